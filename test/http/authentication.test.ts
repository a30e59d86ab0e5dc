import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { SignJWT, generateKeyPair, decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ADMIN_PASSWORD, ALICE_AND_ROOT_YAML } from '../helpers/server.js';
import { basic, bearer, expectError, json, login, uploadDocument } from '../helpers/client.js';

describe('login, info, logout', () => {
  const { server } = useTestServer({ yaml: ALICE_AND_ROOT_YAML, session: false });

  it('opens an anonymous session without credentials', async () => {
    const tokens = await login(server.rest);
    expect(tokens.expiresIn).toBeGreaterThan(3500);
    expect(tokens.refreshToken).not.toBe('');
    const claims = decodeJwt(tokens.token);
    expect(claims.sub).toMatch(/^[0-9a-f]{32}$/);
    const info = await json(await fetch(`${server.rest}/authentication/user/info/`, { headers: bearer(tokens.token) }));
    expect(info).toMatchObject({ userName: '', isUser: true, isAdmin: false, uniqueId: claims.sub });
    expect(info.userLimits).toEqual({ type: 'anonymous', uploadLimit: 100, maxFiles: 100, diskSpaceLimit: 500 });
  });

  it('signs tokens with the pinned algorithm and the session id as subject', async () => {
    const { token } = await login(server.rest);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
    expect(header.alg).toBe('EdDSA');
    expect(decodeJwt(token)).toMatchObject({ iss: 'quire', aud: 'quire', token_use: 'access' });
  });

  it('logs in users with Basic credentials and reports their roles', async () => {
    const alice = await login(server.rest, { name: 'alice', password: 'wonderland' });
    const info = await json(await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(alice.token) }));
    expect(info).toMatchObject({ userName: 'alice', roles: ['user'], isUser: true, isAdmin: false });
    expect((info.userLimits as Record<string, unknown>).type).toBe('user');

    const root = await login(server.rest, { name: 'root', password: 'toor' });
    const rootInfo = await json(await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(root.token) }));
    expect(rootInfo).toMatchObject({ userName: 'root', isUser: true, isAdmin: true });
    expect(rootInfo.roles).toEqual(expect.arrayContaining(['user', 'admin']));
  });

  it('refuses wrong passwords and unknown users with 401', async () => {
    for (const [name, password] of [
      ['alice', 'wrong'],
      ['nobody', 'wonderland'],
    ]) {
      const response = await fetch(`${server.rest}/authentication/user/login`, {
        method: 'POST',
        headers: { authorization: basic(name!, password!), 'content-type': 'application/json' },
        body: '{}',
      });
      await expectError(response, 401, -64);
    }
  });

  it('issues no refresh token unless asked, and supports the deprecated GET login', async () => {
    const noRefresh = await login(server.rest, undefined, false);
    expect(noRefresh.refreshToken).toBe('');
    const viaGet = await fetch(`${server.rest}/authentication/user/login`, { headers: { authorization: basic('alice', 'wonderland') } });
    expect(viaGet.status).toBe(200);
    const body = await json(viaGet);
    expect(typeof body.token).toBe('string');
    expect(body.expiresIn).toBeGreaterThan(0);
  });

  it('accepts the token as the Authorization query parameter', async () => {
    const { token } = await login(server.rest);
    const plain = await fetch(`${server.rest}/authentication/user/info?Authorization=${token}`);
    expect(plain.status).toBe(200);
    const prefixed = await fetch(`${server.rest}/authentication/user/info?Authorization=${encodeURIComponent(`Bearer ${token}`)}`);
    expect(prefixed.status).toBe(200);
  });

  it('lists the signing key store and refuses unknown key stores', async () => {
    const { token } = await login(server.rest);
    const certificates = await fetch(`${server.rest}/authentication/user/certificates/`, { headers: bearer(token) });
    expect((await json(certificates)).keyStores).toEqual([{ isKeyStoreAccessible: true, keyStoreName: 'global', keyStoreOrigin: 'global' }]);
    const unlock = await fetch(`${server.rest}/authentication/user/certificates/passwords/missing`, {
      method: 'PUT',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ keyStorePassword: 'x', aliases: {} }),
    });
    await expectError(unlock, 404, -35);
  });

  it('logout ends the session and deletes its documents from disk', async () => {
    const { token } = await login(server.rest);
    const document = await uploadDocument(server.rest, token, Buffer.from('%PDF-1.4\n%%EOF\n'), 'a.pdf');
    const sessionId = decodeJwt(token).sub!;
    const storage = path.join(server.dataDir, 'storage', sessionId);
    expect(existsSync(path.join(storage, String(document.documentId), 'meta.json'))).toBe(true);

    const logout = await fetch(`${server.rest}/authentication/user/logout/`, { headers: bearer(token) });
    expect(logout.status).toBe(200);
    expect(await logout.text()).toBe('');
    expect(existsSync(storage)).toBe(false);
    await expectError(await fetch(`${server.rest}/documents/list`, { headers: bearer(token) }), 401, -60);
  });
});

/** One server in the default configuration for the two describes below (a start costs seconds). */
const defaults = useTestServer({ session: false });

describe('refresh', () => {
  const { server } = defaults;

  const refresh = (token: string) =>
    fetch(`${server.rest}/authentication/user/refresh/`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ createRefreshToken: true }),
    });

  it('rotates both tokens; only the newest work; storage stays', async () => {
    const first = await login(server.rest);
    const document = await uploadDocument(server.rest, first.token, Buffer.from('hello world'), 'note.txt');

    const response = await refresh(first.refreshToken);
    expect(response.status).toBe(200);
    const second = (await response.json()) as typeof first;
    expect(second.token).not.toBe(first.token);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(decodeJwt(second.token).sub).toBe(decodeJwt(first.token).sub);

    // -60, the code the clients know for a token that opens no session; the message says why.
    const oldAccess = await expectError(await fetch(`${server.rest}/documents/list`, { headers: bearer(first.token) }), 401, -60);
    expect(oldAccess.errorMessage).toMatch(/access token has been replaced by a refresh/);
    const oldRefresh = await expectError(await refresh(first.refreshToken), 401, -60);
    expect(oldRefresh.errorMessage).toMatch(/refresh token has been replaced by a newer one/);

    const list = (await (await fetch(`${server.rest}/documents/list`, { headers: bearer(second.token) })).json()) as Array<{ documentId: string }>;
    expect(list.map((d) => d.documentId)).toEqual([document.documentId]);
    expect((await refresh(second.refreshToken)).status).toBe(200);
  });

  it('refuses an access token as refresh token, a refresh token as access token, and a missing token', async () => {
    const tokens = await login(server.rest);
    await expectError(await refresh(tokens.token), 401, -66);
    await expectError(await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(tokens.refreshToken) }), 401, -62);
    await expectError(await fetch(`${server.rest}/authentication/user/refresh`, { method: 'POST' }), 401, -61);
  });

  it('cannot refresh a session that logged out', async () => {
    const tokens = await login(server.rest);
    await fetch(`${server.rest}/authentication/user/logout`, { headers: bearer(tokens.token) });
    await expectError(await refresh(tokens.refreshToken), 401, -60);
  });
});

describe('token verification', () => {
  const { server } = defaults;
  let token: string;
  beforeAll(async () => {
    token = (await login(server.rest)).token;
  });

  const info = (authorization: string) => fetch(`${server.rest}/authentication/user/info`, { headers: { authorization } });

  it('refuses a missing token and a malformed header', async () => {
    await expectError(await fetch(`${server.rest}/authentication/user/info`), 401, -61);
    await expectError(await info('Bearer not-a-jwt'), 401, -62);
  });

  it('refuses an alg "none" token carrying a real session id', async () => {
    const payload = decodeJwt(token);
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
    await expectError(await info(`Bearer ${unsigned}`), 401, -62);
  });

  it('refuses a tampered payload and a token signed by another key', async () => {
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const tampered = Buffer.from(JSON.stringify({ ...claims, exp: Number(claims.exp) + 99999 })).toString('base64url');
    await expectError(await info(`Bearer ${header}.${tampered}.${signature}`), 401, -62);

    const { privateKey } = await generateKeyPair('EdDSA');
    const forged = await new SignJWT({ token_use: 'access' })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('quire')
      .setAudience('quire')
      .setSubject(String(claims.sub))
      .setJti(String(claims.jti))
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    await expectError(await info(`Bearer ${forged}`), 401, -62);
  });

  it('answers -60 for a token whose session was closed by an administrator', async () => {
    const victim = await login(server.rest);
    const admin = await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD });
    const sessionId = decodeJwt(victim.token).sub!;
    const close = await fetch(`${server.rest}/admin/session/${sessionId}/close`, { method: 'POST', headers: bearer(admin.token) });
    expect(close.status).toBe(200);
    await expectError(await info(`Bearer ${victim.token}`), 401, -60);
  });
});

describe('anonymous sessions disabled', () => {
  const { server } = useTestServer({ env: { QUIRE_ANONYMOUS: 'false' }, session: false });

  it('refuses a login without credentials and still accepts users', async () => {
    const response = await fetch(`${server.rest}/authentication/user/login`, { method: 'POST' });
    await expectError(response, 401, -65);
    const admin = await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD });
    expect(admin.token).not.toBe('');
  });
});

describe('expiry', () => {
  // 2 s, not 1: token times are whole seconds, so a 1-second token issued late in a second may have
  // expired before the upload that follows the login, on a busy machine.
  const { server } = useTestServer({ env: { QUIRE_SESSION__LIFETIME: '2', QUIRE_SESSION__SWEEP_INTERVAL: '0.1' }, session: false });

  it('ends the session after expiresIn seconds like a logout, documents included', async () => {
    const tokens = await login(server.rest);
    expect(tokens.expiresIn).toBe(2);
    await uploadDocument(server.rest, tokens.token, Buffer.from('%PDF-1.4\n%%EOF\n'), 'a.pdf');
    const storage = path.join(server.dataDir, 'storage', decodeJwt(tokens.token).sub!);
    expect(existsSync(storage)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2600));
    expect(existsSync(storage)).toBe(false);
    await expectError(await fetch(`${server.rest}/authentication/user/info`, { headers: bearer(tokens.token) }), 401, -60);
    expect(readdirSync(path.join(server.dataDir, 'sessions')).filter((n) => n.endsWith('.json'))).toEqual([]);
  });
});

describe('administration of sessions', () => {
  const { server } = useTestServer({ yaml: ALICE_AND_ROOT_YAML, session: false });

  it('needs an administrator', async () => {
    const anonymous = await login(server.rest);
    await expectError(await fetch(`${server.rest}/admin/session/table`, { headers: bearer(anonymous.token) }), 403, -67);
    const alice = await login(server.rest, { name: 'alice', password: 'wonderland' });
    await expectError(await fetch(`${server.rest}/admin/session/table`, { headers: bearer(alice.token) }), 403, -67);
    await expectError(await fetch(`${server.rest}/admin/session/table`), 401, -61);
  });

  it('lists every session with its usage and closes one', async () => {
    const user = await login(server.rest, { name: 'alice', password: 'wonderland' });
    await uploadDocument(server.rest, user.token, Buffer.alloc(1000, 1), 'blob.bin');
    const root = await login(server.rest, { name: 'root', password: 'toor' });
    const table = await json(await fetch(`${server.rest}/admin/session/table/`, { headers: bearer(root.token) }));
    const userSession = decodeJwt(user.token).sub!;
    expect(table.sessionId).toBe(decodeJwt(root.token).sub);
    const entry = (table.sessionList as Array<Record<string, unknown>>).find((e) => e.sessionId === userSession);
    expect(entry).toMatchObject({ userName: 'alice', fileCount: 1, fileSize: 1000, isAdmin: false, sessionState: 'ok', providerId: '' });
    expect(Number(entry!.sessionExpiration)).toBeGreaterThan(3000);
    expect(Number(table.sessionDiskUsage)).toBeGreaterThanOrEqual(1000);

    const unknown = await fetch(`${server.rest}/admin/session/${'0'.repeat(32)}/close`, { method: 'POST', headers: bearer(root.token) });
    await expectError(unknown, 404, -69);
  });
});
