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
