import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, bearer, expectError, login } from '../../helpers/client.js';
import { eventually } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';

/** Secrets of the test configuration and environment: none may be in a support package. */
const USER_PASSWORD = 'Carol-Plaintext-Pa55-e9d4';
const JWKS_PASSWORD = 'Jwks-Url-Secret-31b7';
const ENV_NAME = 'QUIRE_SUPPORT_TEST_MARKER';
const ENV_VALUE = 'Env-Value-Secret-8a2f';

const YAML = `
users:
  - name: admin
    password: ${ADMIN_PASSWORD}
    roles: [admin]
  - name: carol
    password: ${USER_PASSWORD}
    roles: [user]
oauth:
  providers:
    - id: corp
      issuer: https://issuer.example
      jwksUri: https://jwks-reader:${JWKS_PASSWORD}@issuer.example/jwks
      audience: quire
`;

describe('admin/server/support', () => {
  // The secret is in the environment before the server starts, as a deployment's would be.
  beforeAll(() => {
    process.env[ENV_NAME] = ENV_VALUE;
  });
  const { server } = useTestServer({ yaml: YAML, env: { QUIRE_LOG__LEVEL: 'info', QUIRE_LOG__CONSOLE: 'false' }, session: false });
  let admin: string;
  let anonymous: string;
  let work: string;
  const today = new Date().toISOString().slice(0, 10);

  async function support(query: string, token = admin): Promise<Response> {
    return fetch(`${server.rest}/admin/server/support${query}`, { headers: { ...bearer(token), accept: 'application/octet-stream' } });
  }

  /** Downloads a package, checks it with `unzip -t`, extracts it and returns the folder and its member names. */
  async function download(query: string): Promise<{ dir: string; members: string[] }> {
    const response = await support(query);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="quire-support-\d{8}T\d{6}Z\.zip"/);
    const dir = mkdtempSync(path.join(work, 'zip-'));
    const zip = path.join(dir, 'package.zip');
    writeFileSync(zip, Buffer.from(await response.arrayBuffer()));
    const test = spawnSync('unzip', ['-t', zip], { encoding: 'utf8' });
    expect(test.status, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toContain('No errors detected');
    const members = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n').sort();
    execFileSync('unzip', ['-q', zip, '-d', path.join(dir, 'x')]);
    return { dir: path.join(dir, 'x'), members };
  }

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'quire-support-test-'));
    admin = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
    anonymous = (await login(server.rest)).token;
    // The user's password travels to the server (right and wrong): it must not be logged.
    await login(server.rest, { name: 'carol', password: USER_PASSWORD });
    const refused = await fetch(`${server.rest}/authentication/user/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic('carol', `${USER_PASSWORD}-wrong`) },
      body: '{}',
    });
    expect(refused.status).toBe(401);
  });

  afterAll(async () => {
    delete process.env[ENV_NAME];
    rmSync(work, { recursive: true, force: true });
  });

  it('packs logs, redacted configuration and environment, without any secret', async () => {
    const { dir, members } = await download('?group=logs&group=config&group=init');
    expect(members).toEqual(['config/configuration.json', 'init/environment.json', `logs/quire-${today}.log`, 'manifest.json']);

    const files = walk(dir);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const secret of [USER_PASSWORD, ADMIN_PASSWORD, JWKS_PASSWORD, ENV_VALUE, basic('carol', USER_PASSWORD).slice(6), admin]) {
        expect(text, `${path.relative(dir, file)} holds a secret`).not.toContain(secret);
      }
    }

    const config = JSON.parse(readFileSync(path.join(dir, 'config/configuration.json'), 'utf8')) as {
      users: { name: string; password: string }[];
      oauth: { providers: { id: string; jwksUri: string }[] };
      server: { contextPath: string };
    };
    expect(config.users).toEqual([
      { name: 'admin', password: '[redacted]', roles: ['admin'] },
      { name: 'carol', password: '[redacted]', roles: ['user'] },
    ]);
    expect(config.oauth.providers[0]).toMatchObject({ id: 'corp', jwksUri: 'https://[redacted]@issuer.example/jwks' });
    expect(config.server.contextPath).toBe('/webPDF');

    const environment = JSON.parse(readFileSync(path.join(dir, 'init/environment.json'), 'utf8')) as {
      server: { version: string; startedAt: string; uptimeSeconds: number; dataDir: string };
      node: { version: string };
      os: { cpus: { count: number }; memory: { total: number } };
      engines: Record<string, { executable: string }>;
      environment: string[];
    };
    expect(environment.server.dataDir).toBe(server.dataDir);
    expect(environment.server.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(Date.parse(environment.server.startedAt)).toBeLessThanOrEqual(Date.now());
    expect(environment.node.version).toBe(process.version);
    expect(environment.os.cpus.count).toBe(os.cpus().length);
    expect(environment.os.memory.total).toBe(os.totalmem());
    expect(Object.keys(environment.engines)).toEqual(expect.arrayContaining(['libreoffice', 'chromium', 'ghostscript']));
    expect(environment.environment).toContain(ENV_NAME);

    // The day's log is the server's file as it was: its lines, including the logins above.
    const log = readFileSync(path.join(dir, `logs/quire-${today}.log`));
    expect(
      readFileSync(path.join(server.dataDir, 'logs', `quire-${today}.log`))
        .subarray(0, log.length)
        .equals(log),
    ).toBe(true);
    expect(log.toString()).toContain('"path":"/webPDF/rest/authentication/user/login/"');

    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { groups: string[]; logs: { days: string[] } };
    expect(manifest.groups).toEqual(['config', 'init', 'logs']);
    expect(manifest.logs.days).toEqual([today]);
  });

  it('packs the logs of today by default, and only the groups asked for', async () => {
    expect((await download('')).members).toEqual([`logs/quire-${today}.log`, 'manifest.json']);
    expect((await download('?group=config')).members).toEqual(['config/configuration.json', 'manifest.json']);
    expect((await download('?group=init&start=&end=')).members).toEqual(['init/environment.json', 'manifest.json']);
  });

  it('packs the day files between start and end', async () => {
    for (const day of ['2001-02-02', '2001-02-03', '2001-02-04', '2001-02-05']) {
      writeFileSync(path.join(server.dataDir, 'logs', `quire-${day}.log`), `{"msg":"${day}"}\n`);
    }
    const { dir, members } = await download('?group=logs&start=2001-02-03&end=2001-02-04');
    expect(members).toEqual(['logs/quire-2001-02-03.log', 'logs/quire-2001-02-04.log', 'manifest.json']);
    expect(readFileSync(path.join(dir, 'logs/quire-2001-02-04.log'), 'utf8')).toBe('{"msg":"2001-02-04"}\n');
    expect((await download('?group=logs&start=1999-01-01&end=1999-12-31')).members).toEqual(['manifest.json']);
  });

  it('leaves no gathered files behind once the ZIP is sent', async () => {
    await download('?group=logs&group=config&group=init');
    const tmp = path.join(server.dataDir, 'tmp');
    // The folder goes right after the last byte, which the client may see first.
    await eventually(() => expect(readdirSync(tmp).filter((name) => name.startsWith('support-'))).toEqual([]));
  });

  it('refuses an unknown group or a malformed date range with 400 (-14)', async () => {
    await expectError(await support('?group=logs&group=secrets'), 400, -14);
    await expectError(await support('?group=logs&start=2024-13-01'), 400, -14);
    await expectError(await support('?group=logs&end=yesterday'), 400, -14);
    await expectError(await support('?group=logs&start=2024-03-02&end=2024-03-01'), 400, -14);
  });

  it('refuses non-administrators (403) and calls without a token (401)', async () => {
    await expectError(await support('', anonymous), 403, -67);
    await expectError(await fetch(`${server.rest}/admin/server/support`), 401, -61);
  });
});

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? walk(file) : [file];
  });
}
