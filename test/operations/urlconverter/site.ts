import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** A request a test listener saw. */
export interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

export interface Listener {
  origin: string;
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

/** An HTTP listener on `host` that records every request and answers with `handle`. */
export async function listen(
  host: string,
  handle: (url: string, headers: IncomingHttpHeaders, reply: (status: number, type: string, body: string | Buffer, extra?: Record<string, string>) => void) => void,
): Promise<Listener> {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    handle(request.url ?? '', request.headers, (status, type, body, extra = {}) => {
      response.writeHead(status, { 'content-type': type, ...extra });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    origin: `http://${shown}:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A red 60×40 PNG (sharp), for pdfimages to find. */
export function redPng(): Promise<Buffer> {
  return sharp({ create: { width: 60, height: 40, channels: 3, background: { r: 220, g: 0, b: 0 } } })
    .png()
    .toBuffer();
}

/** Text pages of the test site. */
export function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="font:16px sans-serif;margin:0">${body}</body></html>`;
}

/** A forward HTTP proxy for the tests: records what it is asked for, asks for Basic credentials when given. */
export async function forwardProxy(credentials?: string): Promise<Listener> {
  const { default: http } = await import('node:http');
  const { default: net } = await import('node:net');
  const seen: Seen[] = [];
  const authorised = (headers: IncomingHttpHeaders) => credentials === undefined || headers['proxy-authorization'] === `Basic ${Buffer.from(credentials).toString('base64')}`;
  const server = http.createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    if (!authorised(request.headers)) {
      response.writeHead(407, { 'proxy-authenticate': 'Basic realm="p"' }).end();
      return;
    }
    const target = new URL(request.url ?? '');
    const headers = { ...request.headers };
    delete headers['proxy-authorization'];
    const upstream = http.request({ host: target.hostname, port: Number(target.port || 80), path: target.pathname + target.search, method: request.method, headers }, (reply) => {
      response.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(response);
    });
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  server.on('connect', (request: import('node:http').IncomingMessage, client: import('node:stream').Duplex) => {
    seen.push({ url: `CONNECT ${request.url ?? ''}`, headers: request.headers });
    if (!authorised(request.headers)) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    const [host, port] = (request.url ?? '').split(/:(?=\d+$)/);
    const upstream = net.connect({ host: host!.replace(/^\[|\]$/g, ''), port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
