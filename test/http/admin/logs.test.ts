import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, bearer, expectError, login, type LoginResult } from '../../helpers/client.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';

/** A wrong password sent at login: it must never reach the log. */
const CANARY_PASSWORD = 'Canary-Wrong-Pa55-7c1e';

describe('admin/server/log', () => {
  const { server } = useTestServer({ env: { QUIRE_LOG__LEVEL: 'info', QUIRE_LOG__CONSOLE: 'false' }, session: false });
  let admin: LoginResult;
  let anonymous: string;
  const today = new Date().toISOString().slice(0, 10);
  const logFile = () => path.join(server.dataDir, 'logs', `quire-${today}.log`);

  async function log(headers: Record<string, string> = {}, query = '', method = 'GET'): Promise<Response> {
    return fetch(`${server.rest}/admin/server/log${query}`, { method, headers: { ...bearer(admin.token), accept: 'text/plain', ...headers } });
  }

  beforeAll(async () => {
    const refused = await fetch(`${server.rest}/authentication/user/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic('admin', CANARY_PASSWORD) },
      body: JSON.stringify({ createRefreshToken: true, password: CANARY_PASSWORD }),
    });
    expect(refused.status).toBe(401);
    admin = await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD });
    anonymous = (await login(server.rest)).token;
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.rest}/authentication/user/info/`, { headers: bearer(admin.token) })).status).toBe(200);
  });

  it("streams today's log as text: JSON lines of the requests made, the same bytes as the file", async () => {
    const response = await log();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    const text = await response.text();
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.some((line) => line.msg === 'request completed' && line.path === '/webPDF/rest/authentication/user/info/')).toBe(true);
    expect(lines.every((line) => typeof line.level === 'number' && typeof line.time === 'string')).toBe(true);
    // The file only grows: what was sent is its beginning.
    expect(readFileSync(logFile(), 'utf8').startsWith(text)).toBe(true);
  });

  /** The file size the server saw, from `Content-Range: bytes a-b/size`. */
  function totalOf(response: Response): number {
    const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
    expect(match).not.toBeNull();
    return Number(match![3]);
  }

  it('HEAD gives the size in Content-Length: the bytes GET sends up to that point', async () => {
    const head = await log({ accept: '*/*' }, '', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(await head.text()).toBe('');
    const size = Number(head.headers.get('content-length'));
    expect(size).toBeGreaterThan(0);
    // Every request adds a line after its response, so a later GET sends the HEAD's size and more.
    const whole = Buffer.from(await (await log()).arrayBuffer());
    expect(whole.length).toBeGreaterThan(size);
    expect(whole.subarray(0, size).equals(readFileSync(logFile()).subarray(0, size))).toBe(true);
    expect(whole.subarray(0, size).toString().endsWith('\n')).toBe(true);
  });

  it('honours Range: bytes=0-9 → exactly 10 bytes with 206 and Content-Range', async () => {
    const response = await log({ range: 'bytes=0-9' });
    expect(response.status).toBe(206);
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBe(10);
    expect(body.equals(readFileSync(logFile()).subarray(0, 10))).toBe(true);
    expect(response.headers.get('content-range')).toMatch(/^bytes 0-9\/\d+$/);
    expect(response.headers.get('content-length')).toBe('10');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
  });

  it("honours an open range bytes=5- (and the clients' default bytes=0-)", async () => {
    const response = await log({ range: 'bytes=5-' });
    expect(response.status).toBe(206);
    const size = totalOf(response);
    expect(response.headers.get('content-range')).toBe(`bytes 5-${size - 1}/${size}`);
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBe(size - 5);
    expect(body.equals(readFileSync(logFile()).subarray(5, size))).toBe(true);

    const all = await log({ range: 'bytes=0-' });
    expect(all.status).toBe(206);
    expect(Buffer.from(await all.arrayBuffer()).equals(readFileSync(logFile()).subarray(0, totalOf(all)))).toBe(true);
  });

  it('honours a suffix range bytes=-5: the last 5 bytes', async () => {
    const response = await log({ range: 'bytes=-5' });
    expect(response.status).toBe(206);
    const size = totalOf(response);
    expect(response.headers.get('content-range')).toBe(`bytes ${size - 5}-${size - 1}/${size}`);
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.equals(readFileSync(logFile()).subarray(size - 5, size))).toBe(true);
    expect(body.toString().endsWith('\n')).toBe(true);
  });

  it('answers a range past the end with 416, Content-Range: bytes */size and the error structure', async () => {
    const before = readFileSync(logFile()).length;
    const response = await log({ range: `bytes=${before + 100_000}-` });
    const match = /^bytes \*\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
    expect(match).not.toBeNull();
    expect(Number(match![1])).toBeGreaterThanOrEqual(before);
    await expectError(response, 416, -121);
    await expectError(await log({ range: 'bytes=-0' }), 416, -121);
  });

  it('reads the log of another day by date; a day without a log is 404 (-120), a malformed date 400 (-14)', async () => {
    const day = '2001-02-03';
    writeFileSync(path.join(server.dataDir, 'logs', `quire-${day}.log`), '{"msg":"an old line"}\n');
    const old = await log({}, `?date=${day}`);
    expect(old.status).toBe(200);
    expect(await old.text()).toBe('{"msg":"an old line"}\n');
    const head = await log({}, `?date=${day}`, 'HEAD');
    expect(head.headers.get('content-length')).toBe('22');

    const missing = await expectError(await log({}, '?date=2001-02-04'), 404, -120);
    expect(missing.errorMessage).toContain('2001-02-04');
    expect((await log({}, '?date=2001-02-04', 'HEAD')).status).toBe(404);
    await expectError(await log({}, '?date=03.02.2001'), 400, -14);
    await expectError(await log({}, '?date=2001-02-30'), 400, -14);
  });

  it("reads an empty log with the clients' default bytes=0- (200, no body); ignores ranges it does not support", async () => {
    writeFileSync(path.join(server.dataDir, 'logs', 'quire-2001-02-06.log'), '');
    const empty = await log({ range: 'bytes=0-' }, '?date=2001-02-06');
    expect(empty.status).toBe(200);
    expect(empty.headers.get('content-length')).toBe('0');
    expect(await empty.text()).toBe('');

    writeFileSync(path.join(server.dataDir, 'logs', 'quire-2001-02-07.log'), '0123456789abcdef\n');
    const bare = await log({ range: '2-5' }, '?date=2001-02-07');
    expect(bare.status).toBe(206);
    expect(await bare.text()).toBe('2345');
    const clipped = await log({ range: 'bytes=10-999' }, '?date=2001-02-07');
    expect(clipped.headers.get('content-range')).toBe('bytes 10-16/17');
    expect(await clipped.text()).toBe('abcdef\n');
    const longSuffix = await log({ range: 'bytes=-100' }, '?date=2001-02-07');
    expect(longSuffix.status).toBe(206);
    expect(await longSuffix.text()).toBe('0123456789abcdef\n');
    for (const ignored of ['bytes=0-1,4-5', 'lines=1-2', 'bytes=5-2']) {
      const whole = await log({ range: ignored }, '?date=2001-02-07');
      expect(whole.status, ignored).toBe(200);
      expect(await whole.text()).toBe('0123456789abcdef\n');
    }
  });

  it('never writes a password or a token to the log', async () => {
    const text = readFileSync(logFile(), 'utf8');
    expect(text).toContain('request refused');
    for (const secret of [CANARY_PASSWORD, ADMIN_PASSWORD, admin.token, admin.refreshToken, anonymous, basic('admin', CANARY_PASSWORD).slice(6)]) {
      expect(text).not.toContain(secret);
    }
  });

  it('refuses non-administrators (403) and calls without a token (401)', async () => {
    for (const method of ['GET', 'HEAD']) {
      const forbidden = await fetch(`${server.rest}/admin/server/log`, { method, headers: bearer(anonymous) });
      expect(forbidden.status).toBe(403);
      const none = await fetch(`${server.rest}/admin/server/log`, { method });
      expect(none.status).toBe(401);
    }
    await expectError(await fetch(`${server.rest}/admin/server/log`, { headers: bearer(anonymous) }), 403, -67);
    await expectError(await fetch(`${server.rest}/admin/server/log`), 401, -61);
  });
});
