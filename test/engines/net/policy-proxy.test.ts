import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPolicyProxy, type PolicyProxy, type ProxyVerdict } from '../../../src/engines/net/policy-proxy.js';

/** The site behind the proxy: echoes what it received. */
let site: http.Server;
let sitePort: number;
const received: { url: string; host: string | undefined; proxyHeader: string | undefined }[] = [];

/** Allows `allowed.test` and 127.0.0.1, both judged to be 127.0.0.1; refuses the rest. */
const check = async (host: string): Promise<ProxyVerdict> =>
  host === 'allowed.test' || host === '127.0.0.1' ? { allowed: true, addresses: ['127.0.0.1'] } : { allowed: false, reason: `${host} is not allowed` };

let proxy: PolicyProxy;
const refused: string[] = [];

beforeAll(async () => {
  site = http.createServer((request, response) => {
    received.push({ url: request.url ?? '', host: request.headers.host, proxyHeader: request.headers['proxy-connection'] as string | undefined });
    response.setHeader('x-site', 'yes');
    response.end(`hello ${request.method} ${request.url}`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as net.AddressInfo).port;
  proxy = await startPolicyProxy({ check, onRefused: (target) => refused.push(target) });
});

afterAll(async () => {
  await proxy.close();
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  refused.length = 0;
});

/** A plain-http request in proxy form (absolute URL as request target). */
function viaProxy(url: string): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: url, headers: { host: new URL(url).host, 'proxy-connection': 'keep-alive' }, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** Opens a CONNECT tunnel and returns the proxy's status line and the socket. */
function tunnel(authority: string): Promise<{ statusLine: string; socket: net.Socket }> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      resolve({ statusLine: head.slice(0, head.indexOf('\r\n')), socket });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

function readAll(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
  });
}

describe('policy proxy', () => {
  it('listens on loopback', () => {
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('forwards allowed plain-http requests without hop-by-hop headers', async () => {
    const reply = await viaProxy(`http://127.0.0.1:${sitePort}/a?b=c`);
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('hello GET /a?b=c');
    expect(reply.headers['x-site']).toBe('yes');
    expect(received).toEqual([{ url: '/a?b=c', host: `127.0.0.1:${sitePort}`, proxyHeader: undefined }]);
  });

  it('connects to the address the check judged, not to a fresh lookup of the name', async () => {
    // allowed.test does not exist in DNS: the request can only arrive through the pinned address.
    const reply = await viaProxy(`http://allowed.test:${sitePort}/pinned`);
    expect(reply.body).toBe('hello GET /pinned');
    expect(received[0]?.host).toBe(`allowed.test:${sitePort}`);
  });

  it('refuses other hosts with 403 and reports them, without touching the site', async () => {
    const reply = await viaProxy(`http://localhost:${sitePort}/secret`);
    expect(reply.status).toBe(403);
    expect(refused).toEqual([`localhost:${sitePort}`]);
    expect(received).toEqual([]);
  });

  it('refuses non-http request targets', async () => {
    expect((await viaProxy('ftp://127.0.0.1/x')).status).toBe(400);
  });

  it('tunnels allowed CONNECT requests', async () => {
    const { statusLine, socket } = await tunnel(`127.0.0.1:${sitePort}`);
    expect(statusLine).toBe('HTTP/1.1 200 Connection Established');
    const reply = readAll(socket);
    socket.write(`GET /through HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(await reply).toContain('hello GET /through');
  });

  it('refuses other CONNECT targets', async () => {
    const { statusLine, socket } = await tunnel(`[::1]:${sitePort}`);
    expect(statusLine).toBe('HTTP/1.1 403 Forbidden');
    socket.destroy();
    expect(refused).toEqual([`[::1]:${sitePort}`]);
    expect(received).toEqual([]);
  });

  it('answers 502 when an allowed target does not accept connections', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { statusLine, socket } = await tunnel(`127.0.0.1:${port}`);
    socket.destroy();
    expect(statusLine).toBe('HTTP/1.1 502 Bad Gateway');
    expect((await viaProxy(`http://127.0.0.1:${port}/`)).status).toBe(502);
  });

  it('cuts open tunnels on close', async () => {
    const own = await startPolicyProxy({ check });
    const { port } = new URL(own.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`CONNECT 127.0.0.1:${sitePort} HTTP/1.1\r\n\r\n`);
    await new Promise((resolve) => socket.once('data', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await own.close();
    await closed;
  });
});
