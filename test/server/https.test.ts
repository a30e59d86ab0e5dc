import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { connect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it, vi, type TestContext } from 'vitest';
import YAML from 'yaml';
import { basic, multipartBody } from '../helpers/client.js';
import { keytool, keytoolKeyPair, openssl, opensslSelfSigned } from '../helpers/certificates.js';
import { boundHttpsPort, portOutsideEphemeralRange } from '../helpers/listening.js';
import { killAll, scaled, spawnQuire, startDeadlineMs, startQuire, waitExit, type QuireProcess } from '../helpers/process.js';

/*
 * The HTTPS listener of the real process (`node dist/main.js`): the generated self-signed key store,
 * configured PEM and PKCS#12 stores, TLS versions, the HTTP → HTTPS redirect, the connector in the
 * server configuration, and the official client's local TLS test (anonymous docx → PDF over HTTPS,
 * certificate verification off). Certificates are compared with what openssl reads from the files.
 * The HTTPS listener binds port 0 (any free port) and the test reads the port Quire reports: a port
 * chosen before the start could be taken by another test's server first (EADDRINUSE).
 */

vi.setConfig({ testTimeout: await scaled(90_000) });

const dirs: string[] = [];
function newDir(prefix = 'quire-https-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await killAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tracked(context: TestContext): (quire: QuireProcess) => void {
  const mine: QuireProcess[] = [];
  context.onTestFinished(async () => {
    await Promise.all(mine.map((quire) => quire.kill()));
  });
  return (quire) => mine.push(quire);
}

/** The SHA-256 fingerprint openssl reads from a PEM certificate file. */
function fingerprintOf(pemFile: string): string {
  return openssl('x509', '-noout', '-fingerprint', '-sha256', '-in', pemFile).trim().replace(/^.*=/, '');
}

/** The certificate of a PKCS#12 file, extracted by openssl into a PEM file. */
function pkcs12Certificate(file: string, password: string, out: string): string {
  writeFileSync(out, openssl('pkcs12', '-in', file, '-passin', `pass:${password}`, '-nokeys'));
  return out;
}

// Self-signed certificates are accepted, as in the official client's local TLS test.
const insecure = new Agent({ rejectUnauthorized: false, keepAlive: false });
// Waiting for a start: no TLS session is kept, so the test's first call makes a full handshake (a resumed one shows no peer certificate).
const probe = new Agent({ rejectUnauthorized: false, keepAlive: false, maxCachedSessions: 0 });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  peer?: PeerCertificate;
}

function call(url: string, options: { method?: string; headers?: Record<string, string | number>; body?: Buffer | string; agent?: Agent } = {}): Promise<Answer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, { method: options.method ?? 'GET', headers: options.headers, ...(target.protocol === 'https:' ? { agent: options.agent ?? insecure } : {}) }, (res) => {
      const peer = target.protocol === 'https:' ? (res.socket as TLSSocket).getPeerCertificate() : undefined;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), ...(peer ? { peer } : {}) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const bodyJson = (answer: Answer) => JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;

/** The TLS version a handshake with these client limits agrees on, or the error code it fails with. */
function handshake(port: number, version: 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'): Promise<{ protocol?: string | null; error?: string }> {
  return new Promise((resolve) => {
    // SECLEVEL=0: the client must be willing to speak TLS 1.1, so that a failure is the server's refusal.
    const socket = connect({ host: '127.0.0.1', port, minVersion: version, maxVersion: version, ciphers: 'DEFAULT:@SECLEVEL=0', rejectUnauthorized: false }, () => {
      resolve({ protocol: socket.getProtocol() });
      socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

/** Waits for `GET <base>/webPDF/health` over HTTPS to answer 200. */
async function waitHttpsHealthy(quire: QuireProcess, base: string): Promise<void> {
  const deadline = Date.now() + (await startDeadlineMs());
  while (Date.now() < deadline) {
    if (!quire.running) throw new Error(`Quire exited.\nstdout:\n${quire.stdout}\nstderr:\n${quire.stderr}`);
    const answer = await call(`${base}/webPDF/health`, { agent: probe }).catch(() => undefined);
    if (answer?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not healthy over HTTPS.\nstdout:\n${quire.stdout}\nstderr:\n${quire.stderr}`);
}

/** HTTPS on port 0: the listener binds a free port, which `boundHttpsPort` reads from the log. */
const httpsEnv = (extra: Record<string, string> = {}) => ({ QUIRE_HTTPS__ENABLED: 'true', QUIRE_HTTPS__PORT: '0', ...extra });

/**
 * Starts Quire with HTTPS on a port of its choosing and waits until it answers over HTTPS (with
 * https.redirectHttp, the HTTP listener answers nothing but 308).
 */
async function startHttpsQuire(track: (quire: QuireProcess) => void, extra: Record<string, string>, dataDir = newDir()): Promise<{ quire: QuireProcess; httpsPort: number }> {
  const quire = await spawnQuire({ dataDir, track, env: httpsEnv(extra) });
  const httpsPort = await boundHttpsPort(quire);
  await waitHttpsHealthy(quire, `https://127.0.0.1:${httpsPort}`);
  return { quire, httpsPort };
}

describe.concurrent('HTTPS listener', () => {
  it('generates a self-signed key store at the first start (0600, in <dataDir>/keystore), serves it, and reuses it after a restart', async (context) => {
    const track = tracked(context);
    const dataDir = newDir();
    const { quire: first, httpsPort: port } = await startHttpsQuire(track, {}, dataDir);
    const store = path.join(dataDir, 'keystore', 'ssl.jks');
    expect(statSync(store).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(store);
    const certFile = pkcs12Certificate(store, 'webpdf', path.join(dataDir, 'generated.crt'));
    expect(openssl('x509', '-in', certFile, '-noout', '-ext', 'subjectAltName')).toMatch(/DNS:localhost.*IP Address:127\.0\.0\.1/s);
    const answer = await call(`https://127.0.0.1:${port}/webPDF/health`);
    expect(answer.status).toBe(200);
    expect(answer.peer?.fingerprint256).toBe(fingerprintOf(certFile));
    expect(first.stdout).toMatch(/generated a self-signed certificate/);

    // TLS 1.2 and 1.3 are spoken; TLS 1.1 is refused by the server (a protocol-version alert).
    expect((await handshake(port, 'TLSv1.2')).protocol).toBe('TLSv1.2');
    expect((await handshake(port, 'TLSv1.3')).protocol).toBe('TLSv1.3');
    const old = await handshake(port, 'TLSv1.1');
    expect(old.protocol).toBeUndefined();
    expect(old.error).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');

    await first.stop('SIGTERM');
    const { quire: second, httpsPort: secondPort } = await startHttpsQuire(track, {}, dataDir);
    expect(readFileSync(store).equals(bytes)).toBe(true);
    expect((await call(`https://127.0.0.1:${secondPort}/webPDF/health`)).peer?.fingerprint256).toBe(fingerprintOf(certFile));
    expect(second.stdout).not.toMatch(/generated a self-signed certificate/);
  });

  it('serves a PKCS#12 and a PEM key store made by openssl', async (context) => {
    const track = tracked(context);
    const dir = newDir();
    opensslSelfSigned(path.join(dir, 'p12.crt'), path.join(dir, 'p12.key'), '/CN=p12.example', { days: 5 });
    openssl('pkcs12', '-export', '-inkey', path.join(dir, 'p12.key'), '-in', path.join(dir, 'p12.crt'), '-out', path.join(dir, 'server.p12'), '-passout', 'pass:p12-secret');
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'pem.key'), '-out', path.join(dir, 'pem.crt'), '-subj', '/CN=pem.example', '-days', '5');
    const [{ quire: p12, httpsPort: p12Port }, { quire: pem, httpsPort: pemPort }] = await Promise.all([
      startHttpsQuire(track, { QUIRE_HTTPS__KEY_STORE__TYPE: 'PKCS12', QUIRE_HTTPS__KEY_STORE__FILE: path.join(dir, 'server.p12'), QUIRE_HTTPS__KEY_STORE__PASSWORD: 'p12-secret' }),
      startHttpsQuire(track, { QUIRE_HTTPS__KEY_STORE__TYPE: 'PEM', QUIRE_HTTPS__KEY_STORE__FILE: path.join(dir, 'pem.crt'), QUIRE_HTTPS__KEY_STORE__KEY_FILE: path.join(dir, 'pem.key') }),
    ]);
    expect((await call(`https://127.0.0.1:${p12Port}/webPDF/health`)).peer?.fingerprint256).toBe(fingerprintOf(path.join(dir, 'p12.crt')));
    expect((await call(`https://127.0.0.1:${pemPort}/webPDF/health`)).peer?.fingerprint256).toBe(fingerprintOf(path.join(dir, 'pem.crt')));
    // Nothing was generated next to a configured store.
    expect(p12.stdout + pem.stdout).not.toMatch(/generated a self-signed certificate/);
  });

  it('refuses to start with a key store it cannot open, naming the setting', async (context) => {
    const track = tracked(context);
    const dir = newDir();
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem'), '-subj', '/CN=x', '-days', '5');
    openssl('pkcs12', '-export', '-inkey', path.join(dir, 'k.pem'), '-in', path.join(dir, 'c.pem'), '-out', path.join(dir, 's.p12'), '-passout', 'pass:right');
    const wrong = await spawnQuire({ dataDir: newDir(), track, env: httpsEnv({ QUIRE_HTTPS__KEY_STORE__FILE: path.join(dir, 's.p12'), QUIRE_HTTPS__KEY_STORE__PASSWORD: 'wrong' }) });
    expect((await waitExit(wrong)).code).toBe(2);
    expect(wrong.stderr).toMatch(/https\.keyStore\.password.*password does not open/);
    // A missing store outside <dataDir>/keystore is the operator's wrong path, not a reason to generate one.
    const missing = await spawnQuire({ dataDir: newDir(), track, env: httpsEnv({ QUIRE_HTTPS__KEY_STORE__FILE: path.join(dir, 'absent.jks') }) });
    expect((await waitExit(missing)).code).toBe(2);
    expect(missing.stderr).toMatch(/https\.keyStore\.file.*does not exist/);
  });

  it('redirects every HTTP request to the same path on the HTTPS listener (308) when https.redirectHttp is on', async (context) => {
    const track = tracked(context);
    const { quire, httpsPort } = await startHttpsQuire(track, { QUIRE_HTTPS__REDIRECT_HTTP: 'true' });
    const get = await call(`${quire.url}/webPDF/rest/documents/abc/info?x=1`, { headers: { host: `localhost:${quire.port}` } });
    expect(get.status).toBe(308);
    expect(get.headers.location).toBe(`https://localhost:${httpsPort}/webPDF/rest/documents/abc/info?x=1`);
    const post = await call(`${quire.url}/webPDF/rest/authentication/user/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(308);
    expect(post.headers.location).toBe(`https://127.0.0.1:${httpsPort}/webPDF/rest/authentication/user/login/`);
    // A Host that is no host name is not echoed into the Location.
    const odd = await call(`${quire.url}/webPDF/health`, { headers: { host: 'evil.example/x@y' } });
    expect(odd.headers.location).toBe(`https://localhost:${httpsPort}/webPDF/health`);
    const followed = await call(String(post.headers.location), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(followed.status).toBe(200);
    expect(bodyJson(followed).token).toBeTypeOf('string');
  });

  it('redirects a request that names no usable host to server.hostName', async (context) => {
    const track = tracked(context);
    const { quire, httpsPort } = await startHttpsQuire(track, { QUIRE_HTTPS__REDIRECT_HTTP: 'true', QUIRE_SERVER__HOST_NAME: 'pdf.example.org' });
    const odd = await call(`${quire.url}/webPDF/health`, { headers: { host: 'evil.example/x@y' } });
    expect(odd.status).toBe(308);
    expect(odd.headers.location).toBe(`https://pdf.example.org:${httpsPort}/webPDF/health`);
    // A usable Host still wins: the client reaches the server under the name it used.
    const named = await call(`${quire.url}/webPDF/health`, { headers: { host: `localhost:${quire.port}` } });
    expect(named.headers.location).toBe(`https://localhost:${httpsPort}/webPDF/health`);
  });

  it("converts a docx anonymously over HTTPS with a self-signed certificate (the official client's local TLS test)", async (context) => {
    const track = tracked(context);
    const { quire, httpsPort: port } = await startHttpsQuire(track, { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'true' });
    const rest = `https://127.0.0.1:${port}/webPDF/rest`;
    const login = await call(`${rest}/authentication/user/login/`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{}' });
    expect(login.status).toBe(200);
    const auth = { authorization: `Bearer ${String(bodyJson(login).token)}` };
    const docx = readFileSync(new URL('../fixtures/office/sample.docx', import.meta.url));
    const { body, contentType } = multipartBody(docx, 'sample.docx');
    const upload = await call(`${rest}/documents`, { method: 'POST', headers: { ...auth, 'content-type': contentType, 'content-length': body.length }, body });
    expect(upload.status).toBe(303);
    const documentId = /documents\/([0-9a-f]+)\/info/.exec(String(upload.headers.location))?.[1];
    expect(documentId).toBeDefined();
    const converted = await call(`${rest}/converter/${documentId}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ converter: {} }) });
    expect(converted.status, converted.body.toString()).toBe(303);
    const download = await call(`${rest}/documents/${documentId}`, { headers: { ...auth, accept: 'application/octet-stream' } });
    expect(download.status).toBe(200);
    const pdf = path.join(newDir(), 'sample.pdf');
    writeFileSync(pdf, download.body);
    const pdfinfo = spawnSync('pdfinfo', [pdf], { encoding: 'utf8' });
    expect(pdfinfo.status).toBe(0);
    expect(pdfinfo.stdout).toMatch(/Pages:\s+[1-9]/);
    expect(quire.running).toBe(true);
  });

  it('shows the listener as connector[1] with its key stores, and stores a new key store and port that the restart puts in force', async (context) => {
    const track = tracked(context);
    const dataDir = newDir();
    // Port 0 as configured (the listener binds a free port). The new port must be named in advance: it is one
    // below the ephemeral range, from which every other test's server gets its ports (port 0, freePort).
    const [port, newPort] = [0, await portOutsideEphemeralRange()];
    // The HTTPS settings live in the file the administration writes (the environment would win over it).
    writeFileSync(path.join(dataDir, 'quire.yaml'), YAML.stringify({ https: { enabled: true, port } }));
    const quire = await startQuire({ dataDir, track, env: { QUIRE_ADMIN_PASSWORD: 'admin-pw' } });
    const boundPort = await boundHttpsPort(quire);
    const rest = `${quire.url}/webPDF/rest`;
    const login = await call(`${rest}/authentication/user/login/`, { method: 'POST', headers: { authorization: basic('admin', 'admin-pw'), 'content-type': 'application/json' }, body: '{}' });
    const headers = { authorization: `Bearer ${String(bodyJson(login).token)}`, accept: 'application/json' };
    const read = async () => bodyJson(await call(`${rest}/admin/configuration/server`, { headers }));

    const view = await read();
    const connectors = (view.configuration as { connectors: { connector: Record<string, any>[] } }).connectors.connector;
    expect(connectors[1]).toMatchObject({
      enabled: true,
      port,
      protocol: 'HTTP/1.1',
      ssl: { scheme: 'https', keystore: { file: 'ssl.jks', type: 'JKS' }, protocols: { protocol: ['TLSv1.2', 'TLSv1.3'] } },
    });
    const stores = view.connectorKeyStore as Record<string, { keyStoreContent: string; certificates: { certificate: string; hasPrivateKey: boolean }[] }>;
    expect(stores['ssl.jks']!.certificates.length).toBeGreaterThan(0);
    const served = (await call(`https://127.0.0.1:${boundPort}/webPDF/health`)).peer!;
    expect(new X509Certificate(Buffer.from(stores['ssl.jks']!.certificates[0]!.certificate, 'base64')).fingerprint256).toBe(served.fingerprint256);
    expect(Buffer.from(stores['ssl.jks']!.keyStoreContent, 'base64').equals(readFileSync(path.join(dataDir, 'keystore', 'ssl.jks')))).toBe(true);

    // A JKS made by keytool, as the official admin test posts its sslKeyStore.jks.
    const jks = path.join(dataDir, 'made.jks');
    keytoolKeyPair(jks, { alias: 'tomcat', keyalg: 'RSA', keysize: 2048, dname: 'CN=admin.example', password: 'webpdf', validity: 5 });
    keytool('-exportcert', '-rfc', '-keystore', jks, '-storepass', 'webpdf', '-alias', 'tomcat', '-file', path.join(dataDir, 'made.crt'));
    const post = (configuration: unknown, keyStores: unknown) =>
      call(`${rest}/admin/configuration/`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          configurationType: 'server',
          configurationMode: 'write',
          configuration,
          configurationChecks: [],
          connectorKeyStore: keyStores,
          trustStoreKeyStore: view.trustStoreKeyStore,
        }),
      });
    const changed = structuredClone(view.configuration) as { connectors: { connector: Record<string, any>[] } };
    changed.connectors.connector[1]!.port = newPort;
    changed.connectors.connector[1]!.ssl.keystore = { type: 'JKS', file: 'sslKeyStore.jks', password: 'wrong' };
    const content = readFileSync(jks).toString('base64');

    // A store the posted password does not open is refused, and nothing is stored.
    const refused = bodyJson(await post(changed, { ...stores, 'sslKeyStore.jks': { keyStoreContent: content } }));
    expect((refused.error as { code: number }).code).not.toBe(0);
    expect(JSON.stringify(refused.problems)).toMatch(/ssl\.keystore\.password/);
    expect(() => statSync(path.join(dataDir, 'keystore', 'sslKeyStore.jks'))).toThrow();

    changed.connectors.connector[1]!.ssl.keystore.password = 'webpdf';
    const written = bodyJson(await post(changed, { ...stores, 'sslKeyStore.jks': { keyStoreContent: content } }));
    expect(written.error, JSON.stringify(written)).toMatchObject({ code: 0 });
    expect(written.restartRequired).toBe(true);
    const stored = path.join(dataDir, 'keystore', 'sslKeyStore.jks');
    expect(statSync(stored).mode & 0o777).toBe(0o600);
    expect(readFileSync(stored).equals(readFileSync(jks))).toBe(true);
    const after = await read();
    expect((after.connectorKeyStore as typeof stores)['sslKeyStore.jks']!.certificates.length).toBeGreaterThan(0);
    expect(YAML.parse(readFileSync(path.join(dataDir, 'quire.yaml'), 'utf8')).https).toMatchObject({ port: newPort, keyStore: { file: 'sslKeyStore.jks', password: 'webpdf' } });

    // The restart (GET admin/server/restart) opens the new port with the new key store.
    expect((await call(`${rest}/admin/server/restart`, { headers })).status).toBe(200);
    const deadline = Date.now() + (await startDeadlineMs());
    let answer: Answer | undefined;
    while (Date.now() < deadline && answer?.status !== 200) {
      answer = await call(`https://127.0.0.1:${newPort}/webPDF/health`).catch(() => undefined);
      if (answer?.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(answer?.peer?.fingerprint256).toBe(fingerprintOf(path.join(dataDir, 'made.crt')));
    const reread = (await read()).configuration as { connectors: { connector: Record<string, any>[] } };
    expect(reread.connectors.connector[1]).toMatchObject({ port: newPort, ssl: { keystore: { file: 'sslKeyStore.jks' } } });
  });
});
