import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it, vi, type TestContext } from 'vitest';
import { basic, bearer, login, multipartBody, uploadDocument, type RawResponse } from '../helpers/client.js';
import { killAll, scaled, spawnQuire, startQuire, waitExit, type QuireProcess } from '../helpers/process.js';

/**
 * The real process: `node dist/main.js` (as `npm start` runs it) with its configuration in the
 * environment, started, signalled and restarted on the same data dir. The tests run concurrently, each
 * with its own port, data dir and child processes (killed when the test ends, whether it passed or
 * not). Waiting deadlines are this machine's (helpers/process.ts `scaled`), never fixed milliseconds.
 */

// The time a test may take, and the session lifetime the expiry tests wait out, grow with how much
// slower this machine starts the server than the one the tests were written on.
vi.setConfig({ testTimeout: await scaled(60_000) });
const LIFETIME_S = Math.max(2, Math.ceil((await scaled(2000)) / 1000));

const dataDirs: string[] = [];
function newDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-lifecycle-'));
  dataDirs.push(dir);
  return dir;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Kills the test's processes when it ends, passed or failed (the tests run concurrently, each owns its processes). */
function tracked(context: TestContext): (quire: QuireProcess) => void {
  const mine: QuireProcess[] = [];
  context.onTestFinished(async () => {
    await Promise.all(mine.map((quire) => quire.kill()));
  });
  return (quire) => mine.push(quire);
}

afterAll(async () => {
  await killAll();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function userInfo(rest: string, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${rest}/authentication/user/info`, { headers: bearer(token) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function adminLogin(rest: string, password: string): Promise<Response> {
  return fetch(`${rest}/authentication/user/login`, {
    method: 'POST',
    headers: { authorization: basic('admin', password), 'content-type': 'application/json' },
    body: '{}',
  });
}

/** The announcement of the generated admin password, if any. */
function announcedPassword(stdout: string): string | undefined {
  return /password "([^"]+)"/.exec(stdout)?.[1];
}

/** Waits until `predicate` holds, polling; false when the deadline (given for the reference machine, see `scaled`) passed. */
async function eventually(predicate: () => boolean, deadlineMs: number, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + (await scaled(deadlineMs));
  while (Date.now() < deadline) {
    if (predicate()) return true;
    await sleep(stepMs);
  }
  return predicate();
}

/** Tries a new TCP connection + request; resolves with the status, or the error code if the connection fails. */
function freshRequest(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

describe.concurrent('the generated admin password', () => {
  it('is announced once on the first start, never logged, and kept for later starts', async (context) => {
    const track = tracked(context);
    const dataDir = newDataDir();
    const first = await startQuire({ dataDir, track });
    const password = announcedPassword(first.stdout);
    expect(password, first.stdout).toBeDefined();
    expect(password!.length).toBeGreaterThanOrEqual(12);
    const login1 = await adminLogin(first.rest, password!);
    expect(login1.status).toBe(200);
    const { token } = (await login1.json()) as { token: string };
    const info = await userInfo(first.rest, token);
    expect(info.body.isAdmin).toBe(true);
    expect(info.body.userName).toBe('admin');
    expect((await adminLogin(first.rest, `${password}x`)).status).toBe(401);
    const firstExit = await first.stop();
    expect(firstExit.code).toBe(0);

    const second = await startQuire({ dataDir, track });
    expect(second.stdout).not.toMatch(/password "/);
    expect((await adminLogin(second.rest, password!)).status).toBe(200);
    expect((await second.stop()).code).toBe(0);

    // The password is in exactly one line of all output: the announcement. Every other line is a JSON log line.
    const lines = `${first.stdout}\n${second.stdout}`.split('\n').filter((line) => line.trim() !== '');
    const withPassword = lines.filter((line) => line.includes(password!));
    expect(withPassword).toHaveLength(1);
    expect(withPassword[0]).toMatch(/^\*\*\* No users are configured: created user "admin" with password "/);
    for (const line of lines) {
      if (line === withPassword[0]) continue;
      expect(() => JSON.parse(line), line).not.toThrow();
    }
    expect(lines.filter((line) => line.startsWith('{')).length).toBeGreaterThan(4);
    expect(`${first.stderr}${second.stderr}`).not.toContain(password!);
    // Only a hash is kept on disk.
    expect(readFileSync(path.join(dataDir, 'users.json'), 'utf8')).not.toContain(password!);
  });

  it('is not announced when QUIRE_ADMIN_PASSWORD chooses it', async (context) => {
    const track = tracked(context);
    const chosen = `chosen-${randomBytes(6).toString('hex')}`;
    const quire = await startQuire({ dataDir: newDataDir(), track, env: { QUIRE_ADMIN_PASSWORD: chosen } });
    const response = await adminLogin(quire.rest, chosen);
    expect(response.status).toBe(200);
    const { token } = (await response.json()) as { token: string };
    expect((await userInfo(quire.rest, token)).body.isAdmin).toBe(true);
    expect((await quire.stop()).code).toBe(0);
    expect(quire.stdout).not.toMatch(/password "/);
    expect(quire.stdout).not.toContain(chosen);
    expect(quire.stderr).not.toContain(chosen);
    expect(quire.stdout).toContain('Quire is listening');
  });
});

describe.concurrent('restart', () => {
  it('keeps sessions, documents and refresh tokens', async (context) => {
    const track = tracked(context);
    const dataDir = newDataDir();
    const first = await startQuire({ dataDir, track });
    const session = await login(first.rest, undefined, true);
    expect(session.refreshToken).not.toBe('');
    const content = randomBytes(200_000);
    const document = await uploadDocument(first.rest, session.token, content, 'random.bin');
    const before = await userInfo(first.rest, session.token);
    expect(before.status).toBe(200);
    const exit = await first.stop('SIGTERM');
    expect(exit.code).toBe(0);
    expect(exit.signal).toBeNull();

    const second = await startQuire({ dataDir, track });
    const after = await userInfo(second.rest, session.token);
    expect(after.status).toBe(200);
    expect(after.body.uniqueId).toBe(before.body.uniqueId);

    const list = await fetch(`${second.rest}/documents/list`, { headers: bearer(session.token) });
    expect(list.status).toBe(200);
    const documents = (await list.json()) as Array<Record<string, unknown>>;
    expect(documents.map((d) => d.documentId)).toEqual([document.documentId]);
    expect(documents[0]!.fileSize).toBe(content.length);

    const download = await fetch(`${second.rest}/documents/${String(document.documentId)}`, { headers: bearer(session.token) });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);

    const refresh = await fetch(`${second.rest}/authentication/user/refresh`, {
      method: 'POST',
      headers: { ...bearer(session.refreshToken), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refresh.status).toBe(200);
    const renewed = (await refresh.json()) as { token: string; refreshToken: string };
    expect(renewed.token).not.toBe(session.token);
    expect((await userInfo(second.rest, renewed.token)).body.uniqueId).toBe(before.body.uniqueId);
    const superseded = await userInfo(second.rest, session.token);
    expect(superseded.status).toBe(401);
    expect(superseded.body.errorCode).toBe(-60);
    expect((await second.stop()).code).toBe(0);
  });
});

describe.concurrent('graceful shutdown', () => {
  /** A multipart upload whose body trickles in: `size` bytes in 64 KB chunks, one every `stepMs`. */
  function slowUpload(quire: QuireProcess, token: string, content: Buffer, stepMs: number, agent: Agent | false): { response: Promise<RawResponse>; sent: () => number; total: number } {
    const { body, contentType } = multipartBody(content, 'slow.bin');
    const chunkSize = 64 * 1024;
    let offset = 0;
    const source = new Readable({
      read() {
        setTimeout(() => {
          if (offset >= body.length) {
            this.push(null);
            return;
          }
          const chunk = body.subarray(offset, offset + chunkSize);
          offset += chunk.length;
          this.push(chunk);
        }, stepMs);
      },
    });
    const response = new Promise<RawResponse>((resolve, reject) => {
      const req = httpRequest(`${quire.rest}/documents`, { method: 'POST', agent, headers: { ...bearer(token), 'content-type': contentType, 'content-length': body.length } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), continued: false }));
        res.on('error', reject);
      });
      req.on('error', reject);
      source.pipe(req);
    });
    return { response, sent: () => offset, total: body.length };
  }

  it('lets an in-flight upload finish, refuses new connections, and exits 0', async (context) => {
    const track = tracked(context);
    const dataDir = newDataDir();
    const quire = await startQuire({ dataDir, track, env: { QUIRE_SERVER__SHUTDOWN_TIMEOUT: '10' } });
    const session = await login(quire.rest, undefined, false);
    const sessionId = String((await userInfo(quire.rest, session.token)).body.uniqueId);

    // 4 MB sent in 64 chunks over about 1.5 s.
    const content = randomBytes(4 * 1024 * 1024);
    const upload = slowUpload(quire, session.token, content, 23, false);

    await sleep(300);
    expect(upload.sent()).toBeGreaterThan(0);
    expect(upload.sent()).toBeLessThan(upload.total);
    const signalledAt = Date.now();
    quire.child.kill('SIGTERM');
    expect(await eventually(() => quire.stdout.includes('"shutting down"'), 3000)).toBe(true);
    // The listening socket is closed: a new connection is refused while the upload still runs.
    const fresh = await freshRequest(`${quire.url}/webPDF/health`);
    expect(upload.sent()).toBeLessThan(upload.total);
    expect(fresh).toBe('ECONNREFUSED');

    const response = await upload.response;
    expect(response.status, response.body.toString()).toBe(303);
    const documentId = /\/documents\/([0-9a-f]+)\/info$/.exec(String(response.headers.location))?.[1];
    expect(documentId).toBeDefined();

    const exit = await waitExit(quire, 15_000);
    expect(exit.code).toBe(0);
    expect(exit.at - signalledAt).toBeLessThan(10_000);
    // The completed upload is stored whole.
    const documentDir = path.join(dataDir, 'storage', sessionId, documentId!);
    const stored = path.join(documentDir, readdirSync(documentDir).find((name) => /^c-[0-9a-f]{32}$/.test(name))!);
    expect(statSync(stored).size).toBe(content.length);
    expect(readFileSync(stored).equals(content)).toBe(true);
  });

  it('does not wait for a keep-alive client to close its connection after the in-flight response', async (context) => {
    const track = tracked(context);
    const quire = await startQuire({ dataDir: newDataDir(), track, env: { QUIRE_SERVER__SHUTDOWN_TIMEOUT: '4' } });
    const session = await login(quire.rest, undefined, false);
    // A pooling client (as the official Java/.NET clients use) keeps idle connections open.
    const agent = new Agent({ keepAlive: true });
    try {
      const upload = slowUpload(quire, session.token, randomBytes(1024 * 1024), 30, agent);
      await sleep(200);
      quire.child.kill('SIGTERM');
      const response = await upload.response;
      expect(response.status).toBe(303);
      const answeredAt = Date.now();
      const exit = await waitExit(quire, 15_000);
      expect(exit.code, quire.stdout.split('\n').slice(-4).join('\n')).toBe(0);
      expect(exit.at - answeredAt).toBeLessThan(2000);
    } finally {
      agent.destroy();
    }
  });

  it('exits within the shutdown timeout even when a request never finishes', async (context) => {
    const track = tracked(context);
    const quire = await startQuire({ dataDir: newDataDir(), track, env: { QUIRE_SERVER__SHUTDOWN_TIMEOUT: '1' } });
    const session = await login(quire.rest, undefined, false);
    const { body, contentType } = multipartBody(Buffer.alloc(1024 * 1024, 7), 'never.bin');
    // Declares the whole body, sends a part of it, then stalls forever.
    const stalled = httpRequest(`${quire.rest}/documents`, {
      method: 'POST',
      agent: false,
      headers: { ...bearer(session.token), 'content-type': contentType, 'content-length': body.length },
    });
    stalled.on('error', () => undefined);
    stalled.write(body.subarray(0, 64 * 1024));
    try {
      await sleep(300);
      expect(quire.running).toBe(true);
      const signalledAt = Date.now();
      quire.child.kill('SIGTERM');
      const exit = await waitExit(quire, 10_000);
      expect(exit.signal).toBeNull();
      expect(exit.code).not.toBeNull();
      expect(exit.at - signalledAt).toBeLessThan(4000);
    } finally {
      stalled.destroy();
    }
  });
});

describe.concurrent('session expiry', () => {
  it('the sweeper ends an expired session and deletes its storage without any call', async (context) => {
    const track = tracked(context);
    const dataDir = newDataDir();
    const quire = await startQuire({ dataDir, track, env: { QUIRE_SESSION__LIFETIME: String(LIFETIME_S), QUIRE_SESSION__SWEEP_INTERVAL: '0.2' } });
    const session = await login(quire.rest, undefined, false);
    const sessionId = String((await userInfo(quire.rest, session.token)).body.uniqueId);
    await uploadDocument(quire.rest, session.token, Buffer.from('short-lived\n'), 'short.txt');
    const storage = path.join(dataDir, 'storage', sessionId);
    const sessionFile = path.join(dataDir, 'sessions', `${sessionId}.json`);
    expect(existsSync(storage)).toBe(true);
    expect(existsSync(sessionFile)).toBe(true);

    // Nobody calls the server from here on until the storage is gone.
    await sleep(LIFETIME_S * 1000);
    expect(await eventually(() => !existsSync(storage), 1500)).toBe(true);
    expect(existsSync(sessionFile)).toBe(false);
    expect(quire.stdout).toMatch(/"reason":"expired"/);

    const after = await userInfo(quire.rest, session.token);
    expect(after.status).toBe(401);
    expect(after.body.errorCode).toBe(-60);
    expect((await quire.stop()).code).toBe(0);
  });

  it('a session that expired while the server was down is deleted at startup', async (context) => {
    const track = tracked(context);
    const dataDir = newDataDir();
    const env = { QUIRE_SESSION__LIFETIME: String(LIFETIME_S), QUIRE_SESSION__SWEEP_INTERVAL: '60' };
    const first = await startQuire({ dataDir, track, env });
    const session = await login(first.rest, undefined, false);
    const sessionId = String((await userInfo(first.rest, session.token)).body.uniqueId);
    await uploadDocument(first.rest, session.token, Buffer.from('outlived\n'), 'outlived.txt');
    expect((await first.stop()).code).toBe(0);
    const storage = path.join(dataDir, 'storage', sessionId);
    expect(existsSync(storage)).toBe(true);

    await sleep(LIFETIME_S * 1000 + 300);
    // Still on disk: nobody was running to delete it.
    expect(existsSync(storage)).toBe(true);
    const second = await startQuire({ dataDir, track, env });
    // Healthy means started: the startup sweep has run before the server listened.
    expect(existsSync(storage)).toBe(false);
    expect(existsSync(path.join(dataDir, 'sessions', `${sessionId}.json`))).toBe(false);
    const after = await userInfo(second.rest, session.token);
    expect(after.status).toBe(401);
    expect(after.body.errorCode).toBe(-60);
    expect((await second.stop()).code).toBe(0);
  });
});

describe.concurrent('a bad configuration', () => {
  async function expectRefused(track: (quire: QuireProcess) => void, env: Record<string, string>, key: RegExp): Promise<QuireProcess> {
    const quire = await spawnQuire({ dataDir: newDataDir(), track, env });
    const exit = await waitExit(quire, 15_000);
    expect(exit.code, quire.stderr).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(quire.stderr).toMatch(key);
    expect(quire.stdout).not.toContain('Quire is listening');
    return quire;
  }

  it('an invalid environment value stops the process with a message naming the key', async (context) => {
    const track = tracked(context);
    const quire = await expectRefused(track, { QUIRE_SESSION__LIFETIME: '-5' }, /session\.lifetime/);
    expect(quire.stderr).toContain('QUIRE_SESSION__LIFETIME');
  });

  it('an unknown key in the YAML file stops the process with a message naming the key', async (context) => {
    const track = tracked(context);
    const dir = newDataDir();
    const file = path.join(dir, 'quire.yaml');
    writeFileSync(file, 'session:\n  lifetme: 60\n');
    const quire = await expectRefused(track, { QUIRE_CONFIG: file }, /session\.lifetme/);
    expect(quire.stderr).toMatch(/unknown key/);
  });

  it('an invalid value in the YAML file stops the process with a message naming the key', async (context) => {
    const track = tracked(context);
    const dir = newDataDir();
    const file = path.join(dir, 'quire.yaml');
    writeFileSync(file, 'session:\n  lifetime: -5\n');
    await expectRefused(track, { QUIRE_CONFIG: file }, /session\.lifetime/);
  });

  it('a qpdf or poppler the configuration names that is not there stops the start with the setting to fix', async (context) => {
    const track = tracked(context);
    const qpdf = await expectRefused(track, { QUIRE_ENGINES__QPDF__EXECUTABLE: '/nonexistent/qpdf' }, /engines\.qpdf\.executable/);
    expect(qpdf.stderr).toContain('/nonexistent/qpdf');
    expect((await qpdf.exited).code).toBe(2);
    // Nor a poppler folder without pdftotext.
    const poppler = await expectRefused(track, { QUIRE_ENGINES__POPPLER__DIRECTORY: '/usr/share' }, /engines\.poppler\.directory/);
    expect(poppler.stderr).not.toMatch(/engines\.qpdf/);
  });
});
