import { existsSync } from 'node:fs';
import path from 'node:path';
import { exportSPKI, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, json, login, uploadDocument } from '../helpers/client.js';
import { b64url, JwksServer, newSigningKey } from '../helpers/jwks-server.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * External OAuth 2.0 providers: Quire verifies the provider's JWTs against its JWKS (served here by a
 * local identity provider on 127.0.0.1) and opens one session per subject.
 */

const now = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let idp: JwksServer;
let server: TestServer;
/** A second server with its own provider, used only by the key rotation test (its JWKS refetch cooldown is 1 s). */
let rotationIdp: JwksServer;
let rotationServer: TestServer;
let rotationPrimedAt = 0;

beforeAll(async () => {
  [idp, rotationIdp] = await Promise.all([JwksServer.start(), JwksServer.start()]);
  // A second provider on the same key set but its own issuer, which demands a user role.
  const strict = [
    '    - id: strictidp',
    `      issuer: ${idp.issuer}strict/`,
    `      jwksUri: ${idp.jwksUri}`,
    '      audience: quire-api',
    '      algorithms: [RS256]',
    '      rolesClaim: roles',
    '      userRoles: [quire-user]',
    '      adminRoles: [quire-admin]',
  ].join('\n');
  [server, rotationServer] = await Promise.all([
    startTestServer({ yaml: `oauth:\n  providers:\n${idp.providerYaml()}${strict}\n` }),
    startTestServer({ yaml: `oauth:\n  providers:\n${rotationIdp.providerYaml({ jwksCooldown: '1' })}` }),
  ]);
  // First use of the rotation provider: its key set is fetched now, the rotation test runs after the cooldown.
  const primed = await fetch(`${rotationServer.rest}/authentication/user/info`, {
    headers: bearer(await rotationIdp.sign({ preferred_username: 'rita' }, { subject: 'rotating-user' })),
  });
  expect(primed.status).toBe(200);
  rotationPrimedAt = Date.now();
  expect(rotationIdp.fetches).toBe(1);
});

afterAll(async () => {
  await Promise.all([server?.stop(), rotationServer?.stop()]);
  await Promise.all([idp?.close(), rotationIdp?.close()]);
});

function call(pathAndQuery: string, token?: string, init: RequestInit = {}, base = server): Promise<Response> {
  return fetch(`${base.rest}${pathAndQuery}`, {
    ...init,
    headers: { accept: 'application/json', ...(token ? bearer(token) : {}), ...(init.headers as Record<string, string> | undefined) },
  });
}

async function info(token: string, base = server): Promise<Record<string, unknown>> {
  const response = await call('/authentication/user/info', token, {}, base);
  const body = await response.text();
  expect(response.status, body).toBe(200);
  return JSON.parse(body) as Record<string, unknown>;
}

/** A webPDF exception structure with the exact content type the official clients expect. */
async function adminToken(): Promise<string> {
  return (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
}

async function sessionEntry(sessionId: string): Promise<Record<string, unknown> | undefined> {
  const response = await call('/admin/session/table', await adminToken());
  expect(response.status).toBe(200);
  const table = (await response.json()) as { sessionList: Array<Record<string, unknown>> };
  return table.sessionList.find((entry) => entry.sessionId === sessionId);
}

async function sessionUserNames(): Promise<unknown[]> {
  const response = await call('/admin/session/table', await adminToken());
  const table = (await response.json()) as { sessionList: Array<Record<string, unknown>> };
  return table.sessionList.map((entry) => entry.userName);
}

async function listDocuments(token: string): Promise<Array<Record<string, unknown>>> {
  const response = await call('/documents/list', token);
  expect(response.status).toBe(200);
  return (await response.json()) as Array<Record<string, unknown>>;
}

describe('external OAuth 2.0 tokens', () => {
  it('open a user session on first use, named by preferred_username, admin only with an admin role', async () => {
    const plain = await info(await idp.sign({ preferred_username: 'alice', roles: ['reader'] }, { subject: 'sub-alice' }));
    expect(plain.userName).toBe('alice');
    expect(plain.isUser).toBe(true);
    expect(plain.isAdmin).toBe(false);
    expect(plain.roles).toEqual(['user']);
    expect((plain.userLimits as Record<string, unknown>).type).toBe('user');
    expect(typeof plain.uniqueId).toBe('string');

    const admin = await info(await idp.sign({ preferred_username: 'ada', roles: ['quire-admin'] }, { subject: 'sub-ada' }));
    expect(admin.userName).toBe('ada');
    expect(admin.isAdmin).toBe(true);
    expect(admin.roles).toEqual(expect.arrayContaining(['user', 'admin']));
    expect(admin.uniqueId).not.toBe(plain.uniqueId);

    const entry = await sessionEntry(String(plain.uniqueId));
    expect(entry?.providerId).toBe('testidp');
    expect(entry?.userName).toBe('alice');
  });

  it('the external admin may call administrative services', async () => {
    const token = await idp.sign({ preferred_username: 'ada2', roles: ['quire-admin'] }, { subject: 'sub-ada2' });
    expect((await call('/admin/session/table', token)).status).toBe(200);
    const user = await idp.sign({ preferred_username: 'bob', roles: [] }, { subject: 'sub-bob' });
    await expectError(await call('/admin/session/table', user), 403);
  });

  it('a newer token of the same subject reuses the session, keeps its documents and extends its expiry', async () => {
    const first = await idp.sign({ preferred_username: 'carol' }, { subject: 'sub-carol', expiresAt: now() + 300 });
    const opened = await info(first);
    const document = await uploadDocument(server.rest, first, Buffer.from('hello from carol\n'), 'carol.txt');
    const before = await sessionEntry(String(opened.uniqueId));
    expect(before?.sessionExpiration).toBeGreaterThan(250);
    expect(before?.sessionExpiration).toBeLessThanOrEqual(330); // exp + the provider's 30 s clock tolerance

    const second = await idp.sign({ preferred_username: 'carol' }, { subject: 'sub-carol', expiresAt: now() + 1200 });
    expect(second).not.toBe(first);
    const renewed = await info(second);
    expect(renewed.uniqueId).toBe(opened.uniqueId);
    const listed = await listDocuments(second);
    expect(listed.map((d) => d.documentId)).toEqual([document.documentId]);

    const after = await sessionEntry(String(opened.uniqueId));
    expect(after?.sessionExpiration).toBeGreaterThan(1100);
    expect(Number(after?.sessionExpiration)).toBeGreaterThan(Number(before?.sessionExpiration));
    // The earlier token is still authentic and unexpired: it reaches the same session.
    expect((await info(first)).uniqueId).toBe(opened.uniqueId);
  });

  describe('refuses forged or foreign tokens with 401 and the JSON error structure', () => {
    const forgeries: Array<[string, () => Promise<string>]> = [
      ['wrong audience', () => idp.sign({ preferred_username: 'mallory' }, { subject: 'mallory', audience: 'another-api' })],
      // An issuer no provider has: the token is taken for a local one, which it is not.
      ['unknown issuer', () => idp.sign({ preferred_username: 'mallory' }, { subject: 'mallory', issuer: 'http://127.0.0.1:9/evil/' })],
      ['expired', () => idp.sign({ preferred_username: 'mallory' }, { subject: 'mallory', issuedAt: now() - 3600, expiresAt: now() - 600 })],
      ['signed by another key with the known kid', async () => idp.sign({ preferred_username: 'mallory' }, { subject: 'mallory', key: await newSigningKey(idp.key.kid) })],
      ['signed by another key with an unknown kid', async () => idp.sign({ preferred_username: 'mallory' }, { subject: 'mallory', key: await newSigningKey('evil-kid') })],
      [
        'alg none',
        async () =>
          `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({
            iss: idp.issuer,
            aud: 'quire-api',
            sub: 'mallory',
            preferred_username: 'mallory',
            roles: ['quire-admin'],
            iat: now(),
            exp: now() + 600,
          })}.`,
      ],
      [
        'HS256 keyed with the public key',
        async () =>
          new SignJWT({ preferred_username: 'mallory', roles: ['quire-admin'] })
            .setProtectedHeader({ alg: 'HS256', kid: idp.key.kid, typ: 'JWT' })
            .setIssuer(idp.issuer)
            .setAudience('quire-api')
            .setSubject('mallory')
            .setIssuedAt()
            .setExpirationTime(now() + 600)
            .sign(new TextEncoder().encode(await exportSPKI(idp.key.publicKey))),
      ],
      [
        'HS256 keyed with the public JWK',
        async () =>
          new SignJWT({ preferred_username: 'mallory', roles: ['quire-admin'] })
            .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
            .setIssuer(idp.issuer)
            .setAudience('quire-api')
            .setSubject('mallory')
            .setIssuedAt()
            .setExpirationTime(now() + 600)
            .sign(new TextEncoder().encode(JSON.stringify(idp.key.publicJwk))),
      ],
      [
        'no subject',
        async () => {
          const token = await new SignJWT({ preferred_username: 'mallory' })
            .setProtectedHeader({ alg: 'RS256', kid: idp.key.kid })
            .setIssuer(idp.issuer)
            .setAudience('quire-api')
            .setIssuedAt()
            .setExpirationTime(now() + 600)
            .sign(idp.key.privateKey);
          return token;
        },
      ],
    ];
    it.each(forgeries)('%s', async (_name, make) => {
      const token = await make();
      await expectError(await call('/authentication/user/info', token), 401);
      await expectError(await call('/documents/list', token), 401);
      expect(await sessionUserNames()).not.toContain('mallory');
    });

    it('the token in the query parameter is checked just the same', async () => {
      const token = await idp.sign({ preferred_username: 'mallory' }, { subject: 'mallory', audience: 'another-api' });
      await expectError(await call(`/authentication/user/info?Authorization=${encodeURIComponent(`Bearer ${token}`)}`), 401);
    });
  });

  it('refresh with an external token is refused', async () => {
    const token = await idp.sign({ preferred_username: 'dave' }, { subject: 'sub-dave' });
    const opened = await info(token);
    await expectError(await call('/authentication/user/refresh', token, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 401, -66);
    // The refusal does not end the session.
    expect((await info(token)).uniqueId).toBe(opened.uniqueId);
  });

  it('logout ends the session: the token gives -60, a token issued later opens a new, empty session', async () => {
    const token = await idp.sign({ preferred_username: 'erin' }, { subject: 'sub-erin' });
    const opened = await info(token);
    await uploadDocument(server.rest, token, Buffer.from('erin\n'), 'erin.txt');
    expect(await listDocuments(token)).toHaveLength(1);
    expect(existsSync(path.join(server.dataDir, 'storage', String(opened.uniqueId)))).toBe(true);

    const logout = await call('/authentication/user/logout', token);
    expect(logout.status).toBe(200);
    await expectError(await call('/authentication/user/info', token), 401, -60);
    await expectError(await call('/documents/list', token), 401, -60);
    expect(existsSync(path.join(server.dataDir, 'storage', String(opened.uniqueId)))).toBe(false);

    await sleep(1100);
    const later = await idp.sign({ preferred_username: 'erin' }, { subject: 'sub-erin' });
    const reopened = await info(later);
    expect(reopened.uniqueId).not.toBe(opened.uniqueId);
    expect(reopened.userName).toBe('erin');
    expect(await listDocuments(later)).toEqual([]);
  });

  it('a token ended by logout stays refused after the subject opened a new session', async () => {
    const token = await idp.sign({ preferred_username: 'frank' }, { subject: 'sub-frank', expiresAt: now() + 600 });
    const opened = await info(token);
    expect((await call('/authentication/user/logout', token)).status).toBe(200);
    await expectError(await call('/authentication/user/info', token), 401, -60);

    await sleep(1100);
    const later = await idp.sign({ preferred_username: 'frank' }, { subject: 'sub-frank', expiresAt: now() + 900 });
    const reopened = await info(later);
    expect(reopened.uniqueId).not.toBe(opened.uniqueId);
    // The logged-out token must not reach the new session.
    await expectError(await call('/authentication/user/info', token), 401, -60);
  });

  it('with userRoles configured, a token without one of them is refused; one with it is accepted', async () => {
    const strictIssuer = `${idp.issuer}strict/`;
    const outsider = await idp.sign({ roles: ['reader'] }, { subject: 'sub-outsider', issuer: strictIssuer });
    await expectError(await call('/authentication/user/info', outsider), 403, -67);
    const noRoles = await idp.sign({}, { subject: 'sub-outsider', issuer: strictIssuer });
    await expectError(await call('/authentication/user/info', noRoles), 403, -67);

    const member = await idp.sign({ roles: ['quire-user'] }, { subject: 'sub-member', issuer: strictIssuer });
    const opened = await info(member);
    expect(opened.isUser).toBe(true);
    expect(opened.isAdmin).toBe(false);
    // No preferred_username: the subject names the user.
    expect(opened.userName).toBe('sub-member');
    const entry = await sessionEntry(String(opened.uniqueId));
    expect(entry?.providerId).toBe('strictidp');
  });

  it('roles given as a space-separated string are understood', async () => {
    const admin = await info(await idp.sign({ preferred_username: 'gina', roles: 'reader quire-admin  writer' }, { subject: 'sub-gina' }));
    expect(admin.isAdmin).toBe(true);
    const strictIssuer = `${idp.issuer}strict/`;
    const member = await info(await idp.sign({ roles: 'reader quire-user' }, { subject: 'sub-hank', issuer: strictIssuer }));
    expect(member.isUser).toBe(true);
    expect(member.isAdmin).toBe(false);
    await expectError(await call('/authentication/user/info', await idp.sign({ roles: 'reader quire-users' }, { subject: 'sub-ivy', issuer: strictIssuer })), 403);
  });

  it('the token also works in the Authorization query parameter', async () => {
    const token = await idp.sign({ preferred_username: 'jill' }, { subject: 'sub-jill' });
    const query = `?Authorization=${encodeURIComponent(`Bearer ${token}`)}`;
    const response = await call(`/authentication/user/info${query}`);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.userName).toBe('jill');
    expect((await info(token)).uniqueId).toBe(body.uniqueId);
    const listed = await call(`/documents/list${query}`);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual([]);
  });

  it('a token past its exp but within the clock tolerance does not open a new session on every call', async () => {
    // clockTolerance defaults to 30 s: jose accepts this token.
    const token = await idp.sign({ preferred_username: 'kim' }, { subject: 'sub-kim', issuedAt: now() - 600, expiresAt: now() - 5 });
    const first = await call('/authentication/user/info', token);
    if (first.status !== 200) {
      await expectError(first, 401);
      return;
    }
    const firstBody = await json(first);
    const second = await call('/authentication/user/info', token);
    expect(second.status).toBe(200);
    expect((await json(second)).uniqueId).toBe(firstBody.uniqueId);
  });

  it('after a key rotation, a token with the new kid is accepted once the key set was refetched', async () => {
    const oldToken = await rotationIdp.sign({ preferred_username: 'rita' }, { subject: 'rotating-user' });
    const before = await info(oldToken, rotationServer);
    // An unknown kid refetches the key set at most once per jwksCooldown (1 s for this provider).
    const wait = rotationPrimedAt + 1_500 - Date.now();
    if (wait > 0) await sleep(wait);
    const oldKey = rotationIdp.key;
    const newKey = await rotationIdp.rotate('key-2');
    const newToken = await rotationIdp.sign({ preferred_username: 'rita' }, { subject: 'rotating-user', key: newKey, expiresAt: now() + 900 });
    const after = await info(newToken, rotationServer);
    expect(rotationIdp.fetches).toBe(2);
    expect(after.userName).toBe('rita');
    expect(after.uniqueId).toBe(before.uniqueId);
    // A fresh token signed by the withdrawn key no longer verifies.
    const withdrawn = await rotationIdp.sign({ preferred_username: 'rita' }, { subject: 'rotating-user', key: oldKey, expiresAt: now() + 901 });
    await expectError(await call('/authentication/user/info', withdrawn, {}, rotationServer), 401);
  }, 45_000);
});
