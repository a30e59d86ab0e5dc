import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearer, expectError, login } from '../helpers/client.js';
import { loginFrom, requestFrom } from '../helpers/client-address.js';
import { useTestServer } from '../helpers/fixture.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Tokens {
  token: string;
}

/** Opens an anonymous session from `address` and expects it to work. */
async function anonymous(server: TestServer, address: string): Promise<string> {
  const response = await loginFrom(server.rest, address);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as Tokens).token;
}

async function logout(server: TestServer, address: string, token: string): Promise<void> {
  expect((await requestFrom(address, `${server.rest}/authentication/user/logout`, { headers: bearer(token) })).status).toBe(200);
}

async function sessionId(server: TestServer, token: string): Promise<string> {
  const info = (await (await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(token) })).json()) as { uniqueId: string };
  return info.uniqueId;
}

describe('anonymous sessions per client address', () => {
  const { server } = useTestServer({
    yaml: `
users: [{ name: alice, password: wonderland }, { name: root, password: toor, roles: [admin] }]
security: { anonymousSessionsPerAddress: 3 }
`,
    session: false,
  });

  it('refuses the session past the cap with 429 -151 and Retry-After; other addresses and user logins are not affected', async () => {
    const tokens = [await anonymous(server, '127.0.1.1'), await anonymous(server, '127.0.1.1'), await anonymous(server, '127.0.1.1')];
    const refused = await loginFrom(server.rest, '127.0.1.1');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const body = await expectError(refused, 429, -151);
    expect(body.errorMessage).toMatch(/anonymousSessionsPerAddress/);
    await anonymous(server, '127.0.1.2');
    for (let i = 0; i < 5; i++) expect((await loginFrom(server.rest, '127.0.1.1', { name: 'alice', password: 'wonderland' })).status).toBe(200);
    expect(tokens).toHaveLength(3);
  });

  it('stores the address with the session', async () => {
    const id = await sessionId(server, await anonymous(server, '127.0.1.3'));
    const stored = JSON.parse(readFileSync(path.join(server.dataDir, 'sessions', `${id}.json`), 'utf8')) as Record<string, unknown>;
    expect(stored.clientAddress).toBe('127.0.1.3');
  });

  it('a logout frees its slot', async () => {
    const first = await anonymous(server, '127.0.2.1');
    await anonymous(server, '127.0.2.1');
    await anonymous(server, '127.0.2.1');
    await expectError(await loginFrom(server.rest, '127.0.2.1'), 429, -151);
    await logout(server, '127.0.2.1', first);
    const again = await anonymous(server, '127.0.2.1');
    await expectError(await loginFrom(server.rest, '127.0.2.1'), 429, -151);
    expect(again).not.toBe(first);
  });

  it('an administrative close frees its slot', async () => {
    const first = await anonymous(server, '127.0.3.1');
    await anonymous(server, '127.0.3.1');
    await anonymous(server, '127.0.3.1');
    await expectError(await loginFrom(server.rest, '127.0.3.1'), 429, -151);
    const admin = await login(server.rest, { name: 'root', password: 'toor' });
    const closed = await fetch(`${server.rest}/admin/session/${await sessionId(server, first)}/close`, { method: 'POST', headers: bearer(admin.token) });
    expect(closed.status).toBe(200);
    await anonymous(server, '127.0.3.1');
    await expectError(await loginFrom(server.rest, '127.0.3.1'), 429, -151);
  });

  it('refuses concurrent logins past the cap (the count cannot be raced)', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => loginFrom(server.rest, '127.0.4.1')));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
  });

  it('keeps counting after a restart: the address is stored with the session', async () => {
    const first = await anonymous(server, '127.0.5.1');
    await anonymous(server, '127.0.5.1');
    await anonymous(server, '127.0.5.1');
    await server.restart();
    await expectError(await loginFrom(server.rest, '127.0.5.1'), 429, -151);
    await logout(server, '127.0.5.1', first);
    await anonymous(server, '127.0.5.1');
    await expectError(await loginFrom(server.rest, '127.0.5.1'), 429, -151);
  });
});

describe('anonymous sessions per address: expiry, the default and 0', () => {
  it('an expired session frees its slot', async () => {
    const server = await startTestServer({ yaml: 'session: { lifetime: 1, sweepInterval: 0.2 }\nsecurity: { anonymousSessionsPerAddress: 2 }\n' });
    try {
      await anonymous(server, '127.0.6.1');
      await anonymous(server, '127.0.6.1');
      const refused = await loginFrom(server.rest, '127.0.6.1');
      expect(refused.headers.get('retry-after')).toBe('1');
      await expectError(refused, 429, -151);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await anonymous(server, '127.0.6.1');
    } finally {
      await server.stop();
    }
  });

  it('defaults to 20 per address; 0 means unlimited', async () => {
    const capped = await startTestServer();
    try {
      for (let i = 0; i < 20; i++) await anonymous(capped, '127.0.8.1');
      await expectError(await loginFrom(capped.rest, '127.0.8.1'), 429, -151);
      await anonymous(capped, '127.0.8.2');
    } finally {
      await capped.stop();
    }
    const unlimited = await startTestServer({ env: { QUIRE_SECURITY__ANONYMOUS_SESSIONS_PER_ADDRESS: '0' } });
    try {
      for (let i = 0; i < 30; i++) await anonymous(unlimited, '127.0.8.1');
      expect(readdirSync(path.join(unlimited.dataDir, 'sessions')).filter((n) => n.endsWith('.json'))).toHaveLength(30);
    } finally {
      await unlimited.stop();
    }
  });
});
