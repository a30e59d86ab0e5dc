import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { loadConfig } from '../../../src/config/load.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { basic, bearer, expectError, json, login } from '../../helpers/client.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';

const TYPES = ['application', 'server', 'user', 'log', 'cluster', 'provider'] as const;
const ALICE_PASSWORD = 'alice-wonder-pw';

const CONFIG_YAML = `# operator's comment: kept by every write
users:
  - name: admin
    password: ${ADMIN_PASSWORD}
    roles: [admin]
  - name: alice
    password: ${ALICE_PASSWORD}
limits:
  user:
    maxFiles: 50   # per user session
oauth:
  providers:
    - id: corp
      issuer: https://login.example.com/tenant
      jwksUri: https://reader:jwks-secret@login.example.com/keys
      audience: api://quire
`;

type Json = Record<string, unknown>;

/** Status of a Basic login, the way the official clients log in. */
async function loginStatus(rest: string, name: string, password: string): Promise<number> {
  const response = await fetch(`${rest}/authentication/user/login/`, { method: 'POST', headers: { authorization: basic(name, password) } });
  await response.arrayBuffer();
  return response.status;
}

function client(rest: string, token: string) {
  const headers = { ...bearer(token), accept: 'application/json' };
  return {
    read: async (type: string): Promise<Json> => {
      const response = await fetch(`${rest}/admin/configuration/${type}`, { headers });
      expect(response.status).toBe(200);
      return json(response);
    },
    get: (type: string): Promise<Response> => fetch(`${rest}/admin/configuration/${type}`, { headers }),
    readText: async (type: string): Promise<string> => (await fetch(`${rest}/admin/configuration/${type}`, { headers })).text(),
    post: (envelope: Json): Promise<Response> => fetch(`${rest}/admin/configuration/`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(envelope) }),
    submit: async (envelope: Json): Promise<Json> => {
      const response = await fetch(`${rest}/admin/configuration/`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(envelope),
      });
      expect(response.status).toBe(200);
      return json(response);
    },
  };
}

/** A fetched envelope, changed and posted back in a mode, as the clients do. */
function envelope(read: Json, mode: 'validate' | 'write', change: (configuration: Json) => void = () => undefined, checks?: Json[]): Json {
  const configuration = structuredClone(read.configuration) as Json;
  change(configuration);
  return { ...read, configurationMode: mode, configuration, ...(checks ? { configurationChecks: checks } : {}) };
}

const at = (object: Json, dotted: string): Json => dotted.split('.').reduce<Json>((node, key) => node[key] as Json, object);
const code = (result: Json) => (result.error as Json).code;

describe('admin configuration', () => {
  const { server } = useTestServer({ yaml: CONFIG_YAML, session: false });
  let admin: ReturnType<typeof client>;
  let file: string;

  beforeAll(async () => {
    file = path.join(server.dataDir, 'quire.yaml');
    admin = client(server.rest, (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token);
  });

  it('reads every type in its envelope, and never a password or its hash', async () => {
    for (const type of TYPES) {
      const text = await admin.readText(type);
      expect(text).not.toContain('$scrypt$');
      expect(text).not.toContain(ADMIN_PASSWORD);
      expect(text).not.toContain(ALICE_PASSWORD);
      const body = JSON.parse(text) as Json;
      expect(body.configurationType).toBe(type);
      expect(typeof body.configurationMode).toBe('string');
      expect(typeof body.configuration).toBe('object');
    }

    const server_ = (await admin.read('server')).configuration as Json;
    expect(at(server_, 'host')).toEqual({ name: 'localhost', contextPath: 'webPDF' });
    expect((at(server_, 'connectors') as unknown as { connector: Json[] }).connector[0]).toEqual({ address: '127.0.0.1', port: 0, protocol: 'HTTP/1.1', enabled: true });
    expect(at(server_, 'localAuth.rest')).toMatchObject({
      allowAnonymous: true,
      accessToken: { expiration: 3600 },
      limits: { maxFiles: 100, maxFilesUser: 50, uploadLimit: 100, uploadLimitUser: 2048, diskSpaceLimit: 500, diskSpaceLimitUser: 10240 },
    });
    expect(at(server_, 'user')).toMatchObject({ roleAdminGroup: 'admin', roleUserGroup: 'user', xml: {} });

    const users = (await admin.read('user')).configuration as Json;
    expect(users.user).toEqual([
      { username: 'admin', password: '', roles: 'admin', uniqueId: 'admin' },
      { username: 'alice', password: '', roles: 'user', uniqueId: 'alice' },
    ]);

    const application = await admin.read('application');
    expect(at(application.configuration as Json, 'webservices.converter')).toMatchObject({ enabled: true, queueSize: 100, maxLatency: 60 });
    // Every web service of the reference is registered now (ocr since issue 16): each reads as enabled.
    expect(at(application.configuration as Json, 'webservices.ocr')).toEqual({ enabled: true });
    expect(at(application.configuration as Json, 'keystore')).toEqual({ type: 'NONE', password: '[redacted]', entry: [], filter: [] });
    expect(application.globalKeyStore).toEqual({ keyStoreContent: '', certificates: [] });

    expect((await admin.read('log')).configuration).toEqual({ debugMode: 'none', level: 'silent', log4j2Xml: '', updateXml: false });
    expect((await admin.read('cluster')).configuration).toMatchObject({ mode: 'single', role: 'coordinator', nodeName: os.hostname() });
    expect((await admin.read('provider')).configuration).toEqual({
      sessionStorage: { name: 'embedded' },
      documentStorage: { name: 'embedded' },
      fileStorage: { name: 'embedded' },
    });
  });

  it('answers 401 without a token and 403 to a non-admin session, for reading and posting', async () => {
    const anonymous = (await login(server.rest)).token;
    const alice = (await login(server.rest, { name: 'alice', password: ALICE_PASSWORD })).token;
    const body = JSON.stringify({ configurationType: 'log', configurationMode: 'validate', configuration: {} });
    const post = (headers: Record<string, string>) => fetch(`${server.rest}/admin/configuration/`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    await expectError(await fetch(`${server.rest}/admin/configuration/user`), 401, -61);
    await expectError(await post({}), 401, -61);
    for (const token of [anonymous, alice]) {
      await expectError(await fetch(`${server.rest}/admin/configuration/user`, { headers: bearer(token) }), 403, -67);
      await expectError(await post(bearer(token)), 403, -67);
    }
  });

  it('refuses an unknown type and a member of the wrong type with -14', async () => {
    await expectError(await admin.get('portal'), 400, -14);
    await expectError(await admin.post({ configurationType: 'portal', configurationMode: 'write', configuration: {} }), 400, -14);
    const read = await admin.read('server');
    await expectError(await admin.post(envelope(read, 'validate', (c) => (at(c, 'localAuth.rest.accessToken').expiration = 'soon'))), 400, -14);
  });

  it('validate reports each bad value by field and key, and changes nothing on disk', async () => {
    const before = readFileSync(file);
    const read = await admin.read('server');
    const result = await admin.submit(
      envelope(read, 'validate', (c) => {
        at(c, 'localAuth.rest.accessToken').expiration = 0;
        at(c, 'host').contextPath = 'web PDF';
        (at(c, 'connectors').connector as Json[])[0]!.port = 70000;
      }),
    );
    expect(result.operation).toBe('validate');
    expect(code(result)).toBe(-130);
    expect(result.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'configuration.localAuth.rest.accessToken.expiration', key: 'session.lifetime' }),
        expect.objectContaining({ field: 'configuration.host.contextPath', key: 'server.contextPath' }),
        expect.objectContaining({ field: 'configuration.connectors.connector.0.port', key: 'server.port', message: 'must be <= 65535' }),
      ]),
    );
    expect(readFileSync(file)).toEqual(before);
    expect(readdirSync(server.dataDir).filter((name) => name.startsWith('quire.yaml') || name.startsWith('.quire'))).toEqual(['quire.yaml']);

    const fine = await admin.submit(envelope(read, 'validate', (c) => (at(c, 'localAuth.rest.accessToken').expiration = 600)));
    expect(code(fine)).toBe(0);
    expect((fine.error as Json).description).toMatch(/session\.lifetime; nothing was saved/);
    expect(readFileSync(file)).toEqual(before);
    expect(server.config.session.lifetime).toBe(3600);
  });

  it('refuses values the reference has but Quire cannot take, and a list without an admin', async () => {
    const cluster = await admin.submit(envelope(await admin.read('cluster'), 'write', (c) => (c.role = 'member')));
    expect(code(cluster)).toBe(-130);
    expect(cluster.problems).toEqual([expect.objectContaining({ field: 'configuration.role' })]);

    const users = await admin.read('user');
    const noAdmin = await admin.submit(envelope(users, 'write', (c) => (c.user = [(c.user as Json[])[1]])));
    expect(code(noAdmin)).toBe(-130);
    expect(JSON.stringify(noAdmin.problems)).toMatch(/role admin/);
    const newWithoutPassword = await admin.submit(envelope(users, 'validate', (c) => (c.user as Json[]).push({ username: 'carol', password: '', roles: 'user' })));
    expect(newWithoutPassword.problems).toEqual([expect.objectContaining({ field: 'configuration.user.2.password' })]);
  });

  it('write replaces the file atomically, keeps a backup and the comments, and applies limits at once', async () => {
    const before = readFileSync(file);
    const alice = (await login(server.rest, { name: 'alice', password: ALICE_PASSWORD })).token;
    const result = await admin.submit(
      envelope(await admin.read('server'), 'write', (c) => {
        at(c, 'localAuth.rest.limits').maxFilesUser = 7;
        at(c, 'localAuth.rest.limits').uploadLimit = 3;
      }),
    );
    expect(code(result)).toBe(0);
    expect(result).toMatchObject({ operation: 'write', restartRequired: false, configFile: file });
    expect(readFileSync(`${file}.bak`)).toEqual(before);
    const written = readFileSync(file, 'utf8');
    expect(written).toContain("# operator's comment: kept by every write");
    expect(YAML.parse(written).limits).toEqual({ user: { maxFiles: 7 }, anonymous: { uploadLimit: 3 } });
    expect(readdirSync(server.dataDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    // Applied live: the limits an existing session reports changed without a restart.
    const info = await json(await fetch(`${server.rest}/authentication/user/info/`, { headers: bearer(alice) }));
    expect(info.userLimits).toMatchObject({ maxFiles: 7 });
    expect(server.config.limits.anonymous.uploadLimit).toBe(3 * 2 ** 20);
  });

  it('write says which keys wait for a restart and which the environment overrides', async () => {
    const application = await admin.submit(envelope(await admin.read('application'), 'write', (c) => (at(c, 'webservices.converter').queueSize = 42)));
    expect(code(application)).toBe(0);
    expect(application).toMatchObject({ restartRequired: true, restartKeys: ['engines.libreoffice.queueSize'] });
    expect(YAML.parse(readFileSync(file, 'utf8')).engines).toEqual({ libreoffice: { queueSize: 42 } });

    const log = await admin.submit(envelope(await admin.read('log'), 'write', (c) => (c.level = 'warn')));
    expect(code(log)).toBe(0);
    expect(log.overridden).toEqual([{ key: 'log.level', variable: 'QUIRE_LOG__LEVEL' }]);
    expect(log.restartRequired).toBe(false);
    expect(YAML.parse(readFileSync(file, 'utf8')).log).toEqual({ level: 'warn' });
    expect(server.config.log.level).toBe('silent');
  });

  it('shows the OAuth providers in the server envelope and writes their role mapping back whole', async () => {
    const read = await admin.read('server');
    expect(JSON.stringify(read)).not.toContain('jwks-secret');
    expect(at(read.configuration as Json, 'oauth.providers.provider')).toEqual([
      {
        id: 'corp',
        name: 'generic',
        displayName: 'corp',
        discoveryUrl: 'https://login.example.com/tenant/.well-known/openid-configuration',
        claimRoles: 'roles',
        roleNameAdmin: '',
        roleNameUser: '',
        maxTimeSkew: 30,
      },
    ]);
    const added = await admin.submit(envelope(read, 'write', (c) => (at(c, 'oauth.providers').provider as Json[]).push({ id: 'other', claimRoles: 'groups' })));
    expect(code(added)).toBe(-130);
    expect(added.problems).toEqual([expect.objectContaining({ field: 'configuration.oauth.providers.provider.1.id' })]);

    const result = await admin.submit(
      envelope(read, 'write', (c) => {
        const corp = (at(c, 'oauth.providers').provider as Json[])[0]!;
        corp.roleNameAdmin = 'quire-admin, ops';
        corp.maxTimeSkew = 5;
      }),
    );
    expect(code(result)).toBe(0);
    expect(result).toMatchObject({ restartRequired: true, restartKeys: ['oauth.providers'] });
    // Written from the running configuration, not from what was shown: the key set URL keeps its credentials.
    expect(YAML.parse(readFileSync(file, 'utf8')).oauth.providers).toEqual([
      expect.objectContaining({
        id: 'corp',
        jwksUri: 'https://reader:jwks-secret@login.example.com/keys',
        audience: 'api://quire',
        adminRoles: ['quire-admin', 'ops'],
        clockTolerance: 5,
      }),
    ]);
  });

  it('adds and removes a user: the change is live, the file holds only a hash, and it survives a restart', async () => {
    const users = await admin.read('user');
    const added = await admin.submit(envelope(users, 'write', (c) => (c.user as Json[]).push({ username: 'bob', password: 'bob-secret-pw', roles: 'user', uniqueId: '' })));
    expect(code(added)).toBe(0);
    expect(await loginStatus(server.rest, 'bob', 'bob-secret-pw')).toBe(200);
    const written = readFileSync(file, 'utf8');
    expect(written).not.toContain('bob-secret-pw');
    expect(written).not.toContain(ALICE_PASSWORD);
    expect((YAML.parse(written).users as Json[]).map((u) => [u.name, String(u.password).slice(0, 8)])).toEqual([
      ['admin', '$scrypt$'],
      ['alice', '$scrypt$'],
      ['bob', '$scrypt$'],
    ]);
    const bob = (await login(server.rest, { name: 'bob', password: 'bob-secret-pw' })).token;

    await server.restart();
    expect(await loginStatus(server.rest, 'bob', 'bob-secret-pw')).toBe(200);
    expect(await loginStatus(server.rest, 'alice', ALICE_PASSWORD)).toBe(200);
    admin = client(server.rest, (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token);

    const removed = await admin.submit(envelope(await admin.read('user'), 'write', (c) => (c.user = (c.user as Json[]).filter((u) => u.username !== 'bob'))));
    expect(code(removed)).toBe(0);
    expect(await loginStatus(server.rest, 'bob', 'bob-secret-pw')).toBe(401);
    // The removed user's session ended with the change.
    expect((await fetch(`${server.rest}/authentication/user/info/`, { headers: bearer(bob) })).status).toBe(401);
    await server.restart();
    expect(await loginStatus(server.rest, 'bob', 'bob-secret-pw')).toBe(401);
    expect(await loginStatus(server.rest, 'alice', ALICE_PASSWORD)).toBe(200);
    admin = client(server.rest, (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token);
  });

  it('changes a password and keeps the others', async () => {
    const result = await admin.submit(
      envelope(await admin.read('user'), 'write', (c) => {
        const alice = (c.user as Json[]).find((u) => u.username === 'alice')!;
        alice.password = 'alice-new-pw';
        alice.roles = 'user,admin';
      }),
    );
    expect(code(result)).toBe(0);
    expect(await loginStatus(server.rest, 'alice', ALICE_PASSWORD)).toBe(401);
    expect(await loginStatus(server.rest, 'alice', 'alice-new-pw')).toBe(200);
    expect(await loginStatus(server.rest, 'admin', ADMIN_PASSWORD)).toBe(200);
    expect((await admin.read('user')).configuration).toEqual({
      user: [
        { username: 'admin', password: '', roles: 'admin', uniqueId: 'admin' },
        { username: 'alice', password: '', roles: 'user,admin', uniqueId: 'alice' },
      ],
    });
  });

  it('runs the requested checks without saving, and refuses checks it cannot run', async () => {
    const before = readFileSync(file);
    const application = await admin.read('application');
    const missing = await admin.submit(envelope(application, 'validate', undefined, [{ checkType: 'executable', executables: ['officeBridge'] }]));
    expect(code(missing)).toBe(-47);
    expect(missing.executableError).toMatchObject({ applicationName: 'officeBridge', isSuccessful: false });

    const chromium = await admin.submit(envelope(application, 'validate', (c) => (at(c, 'bridges.chromium').path = '/nonexistent/chromium'), [{ checkType: 'executable', executables: ['chromium'] }]));
    expect(code(chromium)).toBe(-131);
    expect(chromium.executableError).toMatchObject({ applicationName: 'chromium', commandLine: ['/nonexistent/chromium', '--version'] });
    // An executable that is not Chromium does not print Chromium's version.
    const sh = await admin.submit(envelope(application, 'validate', (c) => (at(c, 'bridges.chromium').path = '/bin/sh'), [{ checkType: 'executable', executables: ['chromium'] }]));
    expect(code(sh)).toBe(-131);
    expect(sh.executableError).toMatchObject({ applicationName: 'chromium', commandLine: ['/bin/sh', '--version'] });

    expect(code(await admin.submit(envelope(application, 'validate', undefined, [{ checkType: 'tsa' }])))).toBe(-34); // no time-stamp authority configured

    const serverRead = await admin.read('server');
    const good = await admin.submit(envelope(serverRead, 'validate', undefined, [{ checkType: 'user', name: 'admin', password: ADMIN_PASSWORD }]));
    expect(code(good)).toBe(0);
    const bad = await admin.submit(envelope(serverRead, 'validate', undefined, [{ checkType: 'user', name: 'admin', password: 'wrong' }]));
    expect(code(bad)).toBe(-131);

    const provider = await admin.read('provider');
    expect(code(await admin.submit(envelope(provider, 'validate', undefined, [{ checkType: 'documentStorage' }, { checkType: 'sessionStorage' }])))).toBe(0);
    expect(readFileSync(file)).toEqual(before);
  });
});

describe('admin configuration without a configuration file', () => {
  const { server } = useTestServer({ session: false });

  it('creates <dataDir>/quire.yaml (0600), which the next start reads', async () => {
    const admin = client(server.rest, (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token);
    const users = await admin.read('user');
    // The generated admin is the one user; posting it back keeps its password.
    expect((users.configuration as Json).user).toEqual([{ username: 'admin', password: '', roles: 'admin', uniqueId: 'admin' }]);
    const result = await admin.submit(envelope(users, 'write', (c) => (c.user as Json[]).push({ username: 'dave', password: 'dave-secret-pw', roles: 'user' })));
    const file = path.join(server.dataDir, 'quire.yaml');
    expect(code(result)).toBe(0);
    expect(result.configFile).toBe(file);
    expect((result.error as Json).description).toMatch(/Created .*quire\.yaml; Quire reads it at start while QUIRE_CONFIG is unset/);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    await server.restart();
    expect(server.config.configFile).toBe(file);
    expect(await loginStatus(server.rest, 'dave', 'dave-secret-pw')).toBe(200);
    expect(await loginStatus(server.rest, 'admin', ADMIN_PASSWORD)).toBe(200);
  });
});

describe('admin configuration: log level', () => {
  let server: RunningServer;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-test-'));
  // No QUIRE_LOG__LEVEL here: the level comes from the file, so a write can change it.
  const env = {
    QUIRE_DATA_DIR: dataDir,
    QUIRE_SERVER__HOST: '127.0.0.1',
    PORT: '0',
    QUIRE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false',
    QUIRE_ENGINES__CHROMIUM__ENABLED: 'false',
  };
  const logger = pino({ level: 'info' }, pino.destination('/dev/null'));

  beforeAll(async () => {
    server = await startServer(loadConfig(env), { logger, announce: () => undefined, reloadConfig: () => loadConfig(env) });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies a new level to the running logger at once', async () => {
    const rest = `${server.url}${server.config.server.restBase}`;
    const admin = client(rest, (await login(rest, { name: 'admin', password: ADMIN_PASSWORD })).token);
    const log = await admin.read('log');
    expect(log.configuration).toMatchObject({ debugMode: 'none', level: 'info' });

    const result = await admin.submit(envelope(log, 'write', (c) => (c.debugMode = 'debugRequestPayload')));
    expect(code(result)).toBe(0);
    expect(result).toMatchObject({ restartRequired: false, overridden: [] });
    expect(logger.level).toBe('trace');
    expect(server.config.log.level).toBe('trace');
    expect((await admin.read('log')).configuration).toMatchObject({ debugMode: 'debugRequestPayload', level: 'trace' });

    expect(code(await admin.submit(envelope(await admin.read('log'), 'write', (c) => (c.level = 'warn'))))).toBe(0);
    expect(logger.level).toBe('warn');
    expect(YAML.parse(readFileSync(path.join(dataDir, 'quire.yaml'), 'utf8'))).toEqual({ log: { level: 'warn' } });
  });
});
