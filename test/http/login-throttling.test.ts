import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/auth/passwords.js';
import { basic, expectError } from '../helpers/client.js';
import { loginFrom, requestFrom } from '../helpers/client-address.js';
import { ADMIN_PASSWORD, ALICE_AND_ROOT_YAML, startTestServer, type TestServer } from '../helpers/server.js';

const ALICE = { name: 'alice', password: 'wonderland' };
const WRONG = { name: 'alice', password: 'guess' };

/** A counter or labelled counter of the public metrics. */
async function metric(server: TestServer, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${server.url}/webPDF/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  if (!line) throw new Error(`no metric ${name}${labels}`);
  return Number(line.split(' ')[1]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('login throttling per client address', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      yaml: `${ALICE_AND_ROOT_YAML}
metrics: { public: true }
security:
  login: { maxFailures: 3, window: 60, lockout: 1, maxLockout: 4, userMaxFailures: 0 }
`,
    });
  });
  afterAll(() => server.stop());

  it('locks the address after maxFailures with 429 -150 and Retry-After, refuses even the right password without hashing, lets it in after the lock', async () => {
    for (let i = 0; i < 3; i++) await expectError(await loginFrom(server.rest, '127.0.0.1', WRONG), 401, -64);

    const checksBefore = await metric(server, 'quire_password_checks_total');
    const throttledBefore = await metric(server, 'quire_logins_total', '{outcome="throttled"}');
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      const refused = await loginFrom(server.rest, '127.0.0.1', i % 2 === 0 ? ALICE : WRONG);
      expect(refused.headers.get('retry-after')).toBe('1');
      const body = await expectError(refused, 429, -150);
      expect(body.errorMessage).toMatch(/from this address/);
    }
    const elapsed = performance.now() - started;
    // Not one password was hashed for the 20 refused attempts.
    expect(await metric(server, 'quire_password_checks_total')).toBe(checksBefore);
    expect(await metric(server, 'quire_logins_total', '{outcome="throttled"}')).toBe(throttledBefore + 20);
    console.log(`20 throttled login attempts: ${elapsed.toFixed(0)} ms`);

    // Another address is not locked by this address's lock.
    expect((await loginFrom(server.rest, '127.0.0.2', ALICE)).status).toBe(200);

    await sleep(1100);
    const after = await loginFrom(server.rest, '127.0.0.1', ALICE);
    expect(after.status).toBe(200);
    expect(await metric(server, 'quire_password_checks_total')).toBe(checksBefore + 2);
  });

  it('doubles the next lock of the same address', async () => {
    for (let i = 0; i < 3; i++) await expectError(await loginFrom(server.rest, '127.0.0.5', WRONG), 401, -64);
    const first = await loginFrom(server.rest, '127.0.0.5', ALICE);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('1');
    await sleep(1100);
    for (let i = 0; i < 3; i++) await expectError(await loginFrom(server.rest, '127.0.0.5', WRONG), 401, -64);
    const second = await loginFrom(server.rest, '127.0.0.5', ALICE);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('2');
  });

  it('a successful login forgives the address its earlier failures', async () => {
    for (let i = 0; i < 2; i++) await expectError(await loginFrom(server.rest, '127.0.0.6', WRONG), 401, -64);
    expect((await loginFrom(server.rest, '127.0.0.6', ALICE)).status).toBe(200);
    for (let i = 0; i < 2; i++) await expectError(await loginFrom(server.rest, '127.0.0.6', WRONG), 401, -64);
    expect((await loginFrom(server.rest, '127.0.0.6', ALICE)).status).toBe(200);
  });

  it('never throttles successful logins, however many', async () => {
    for (let i = 0; i < 12; i++) expect((await loginFrom(server.rest, '127.0.0.7', ALICE)).status).toBe(200);
  });

  it('anonymous logins check no password and are not throttled by a locked address', async () => {
    for (let i = 0; i < 3; i++) await expectError(await loginFrom(server.rest, '127.0.0.8', WRONG), 401, -64);
    await expectError(await loginFrom(server.rest, '127.0.0.8', ALICE), 429, -150);
    expect((await loginFrom(server.rest, '127.0.0.8')).status).toBe(200);
  });
});

describe('Basic credentials of the metrics are throttled like logins', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ yaml: 'security:\n  login: { maxFailures: 3, lockout: 1, userMaxFailures: 0 }\n' });
  });
  afterAll(() => server.stop());

  it('refuses a scraper with wrong credentials 429 -150 after maxFailures, the right ones too while locked, and lets them in afterwards', async () => {
    const scrape = (password: string) => requestFrom('127.0.0.3', `${server.url}/webPDF/metrics`, { headers: { authorization: basic('admin', password) } });
    for (let i = 0; i < 3; i++) await expectError(await scrape('wrong'), 401, -64);
    const refused = await scrape(ADMIN_PASSWORD);
    expect(refused.headers.get('retry-after')).toBe('1');
    await expectError(refused, 429, -150);
    expect((await requestFrom('127.0.0.4', `${server.url}/webPDF/metrics`, { headers: { authorization: basic('admin', ADMIN_PASSWORD) } })).status).toBe(200);
    await sleep(1100);
    expect((await scrape(ADMIN_PASSWORD)).status).toBe(200);
  });
});

describe('login throttling per user name', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      yaml: `${ALICE_AND_ROOT_YAML}
security:
  login: { maxFailures: 100, window: 60, lockout: 1, userMaxFailures: 3, userMaxLockout: 2 }
`,
    });
  });
  afterAll(() => server.stop());

  it('throttles a name failed from several addresses for new addresses, but not for an address the user logged in from, nor other names', async () => {
    expect((await loginFrom(server.rest, '127.0.1.1', ALICE)).status).toBe(200);
    await expectError(await loginFrom(server.rest, '127.0.2.1', WRONG), 401, -64);
    await expectError(await loginFrom(server.rest, '127.0.2.2', WRONG), 401, -64);
    await expectError(await loginFrom(server.rest, '127.0.2.3', WRONG), 401, -64);

    const refused = await loginFrom(server.rest, '127.0.2.4', ALICE);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await expectError(refused, 429, -150)).errorMessage).toMatch(/user name/);
    // The user's own address still works: an attacker cannot lock the user out of it.
    expect((await loginFrom(server.rest, '127.0.1.1', ALICE)).status).toBe(200);
    // That success cleared the name: new addresses work again.
    expect((await loginFrom(server.rest, '127.0.2.4', ALICE)).status).toBe(200);
  });

  it('bounds the name throttle by userMaxLockout however often it is triggered', async () => {
    const retryAfters: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 1; i <= 3; i++) await expectError(await loginFrom(server.rest, `127.0.3.${round * 3 + i}`, { name: 'root', password: 'x' }), 401, -64);
      const refused = await loginFrom(server.rest, '127.0.4.1', { name: 'root', password: 'toor' });
      expect(refused.status).toBe(429);
      retryAfters.push(refused.headers.get('retry-after') ?? '');
      await sleep(Number(refused.headers.get('retry-after')) * 1000 + 100);
    }
    expect(retryAfters).toEqual(['1', '2', '2']);
    expect((await loginFrom(server.rest, '127.0.4.1', { name: 'root', password: 'toor' })).status).toBe(200);
  });
});

describe('the client address behind a trusted proxy', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      yaml: `${ALICE_AND_ROOT_YAML}
server: { trustProxy: true }
security:
  login: { maxFailures: 2, lockout: 5, userMaxFailures: 0 }
`,
    });
  });
  afterAll(() => server.stop());

  it('counts failures per X-Forwarded-For address when server.trustProxy is on', async () => {
    const from = (address: string, credentials: { name: string; password: string }) => loginFrom(server.rest, '127.0.0.1', credentials, { 'x-forwarded-for': address });
    for (let i = 0; i < 2; i++) await expectError(await from('198.51.100.1', WRONG), 401, -64);
    await expectError(await from('198.51.100.1', ALICE), 429, -150);
    expect((await from('198.51.100.2', ALICE)).status).toBe(200);
  });
});

describe('bounded password hashing', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A deliberately slow hash (ln=17, ~0.5 s), so that every request of the burst arrives while the first is hashed.
    const slow = await hashPassword('slow-secret', { ln: 17, r: 8, p: 1 });
    server = await startTestServer({
      yaml: `
users:
  - name: slow
    password: '${slow}'
security:
  login: { maxFailures: 0, userMaxFailures: 0, maxConcurrentHashes: 1, maxWaitingHashes: 1 }
`,
    });
  });
  afterAll(() => server.stop());

  it('hashes one password at a time, lets one wait, refuses the rest with 429 -150 and Retry-After', async () => {
    let peakRunning = 0;
    let peakWaiting = 0;
    const sampler = setInterval(() => {
      const { running, waiting } = server.sessions.loginHashing;
      peakRunning = Math.max(peakRunning, running);
      peakWaiting = Math.max(peakWaiting, waiting);
    }, 1);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => loginFrom(server.rest, `127.0.5.${i + 1}`, { name: 'slow', password: 'wrong' })));
    clearInterval(sampler);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([401, 401, 429, 429, 429, 429]);
    for (const answer of answers.filter((a) => a.status === 429)) {
      expect(answer.headers.get('retry-after')).toBe('1');
      await expectError(answer, 429, -150);
    }
    expect(peakRunning).toBe(1);
    expect(peakWaiting).toBe(1);
    expect(server.sessions.logins).toMatchObject({ busy: 4, passwordChecks: 2 });
    expect(server.sessions.loginHashing).toEqual({ running: 0, waiting: 0 });
    // Once the burst is over, the right password gets in.
    expect((await loginFrom(server.rest, '127.0.5.1', { name: 'slow', password: 'slow-secret' })).status).toBe(200);
  });
});
