import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { forwardVia, tunnelVia, type UpstreamProxy } from './upstream-proxy.js';

/**
 * A forward HTTP proxy on 127.0.0.1 that lets a browser reach only hosts a check allows, and connects
 * to the very addresses the check judged. Pointing a browser context at it closes what request
 * interception alone leaves open: WebSockets (never intercepted), and DNS rebinding between the
 * check and the browser's own lookup. Plain http requests are forwarded; https and WebSockets come
 * as CONNECT tunnels, so TLS stays end to end between the browser and the site.
 */

export type ProxyVerdict = { allowed: true; addresses: string[] } | { allowed: false; reason: string };

export interface PolicyProxyOptions {
  /** Decides a target host (a name or an IP literal, IPv6 in brackets). */
  check: (host: string) => Promise<ProxyVerdict>;
  /** Told about every refused request or tunnel ("host:port"). */
  onRefused?: (target: string, reason: string) => void;
  /** Told the size of every chunk received from a target (bodies and tunnelled bytes), for download limits. */
  onBytes?: (count: number) => void;
  /** Reach the judged addresses through this HTTP proxy instead of directly. */
  upstream?: UpstreamProxy;
}

export interface PolicyProxy {
  /** "http://127.0.0.1:<port>", for a browser's proxy setting. */
  readonly url: string;
  /** Stops listening and cuts every open connection. */
  close(): Promise<void>;
}

/** Per RFC 9110 these concern one connection only and must not be forwarded. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

export async function startPolicyProxy(options: PolicyProxyOptions): Promise<PolicyProxy> {
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const agent = new http.Agent({ keepAlive: true });

  /** The address to connect to, or undefined after answering the client with the refusal. */
  const decide = async (host: string, port: number, refuse: (status: number) => void): Promise<string | undefined> => {
    const verdict = await options.check(host).catch((error: unknown) => ({ allowed: false as const, reason: (error as Error).message }));
    if (verdict.allowed && verdict.addresses[0] !== undefined) return verdict.addresses[0];
    options.onRefused?.(`${host}:${port}`, verdict.allowed ? `${host} has no addresses` : verdict.reason);
    refuse(403);
    return undefined;
  };

  const server = http.createServer((request, response) => {
    const refuse = (status: number): void => {
      if (!response.headersSent) response.writeHead(status, { 'content-type': 'text/plain' });
      response.end();
    };
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      refuse(400);
      return;
    }
    if (target.protocol !== 'http:') {
      refuse(400);
      return;
    }
    const port = Number(target.port || 80);
    void decide(target.hostname, port, refuse).then((address) => {
      if (address === undefined) return;
      const path = target.pathname + target.search;
      const headers = withoutHopByHop(request.headers);
      const upstream = http.request({
        ...(options.upstream ? forwardVia(options.upstream, address, port, path, headers) : { host: address, port, path, headers }),
        method: request.method,
        agent,
      });
      upstream.on('response', (reply) => {
        if (options.onBytes) reply.on('data', (chunk: Buffer) => options.onBytes!(chunk.length));
        response.writeHead(reply.statusCode ?? 502, reply.statusMessage, withoutHopByHop(reply.headers));
        reply.pipe(response);
      });
      upstream.on('error', () => (response.headersSent ? response.destroy() : refuse(502)));
      // The browser gave up on the request (page closed, navigation): so do we.
      response.once('close', () => {
        if (!response.writableFinished) upstream.destroy();
      });
      request.pipe(upstream);
    });
  });

  server.on('connection', track);
  server.on('connect', (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    const refuse = (status: number): void => {
      client.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n\r\n`);
    };
    const authority = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(request.url ?? '');
    if (!authority) {
      refuse(400);
      return;
    }
    const host = authority[1]!;
    const port = Number(authority[2]);
    void decide(host, port, refuse).then(async (address) => {
      if (address === undefined) return;
      let upstream: net.Socket;
      try {
        upstream = options.upstream ? await tunnelVia(options.upstream, address, port) : await connectDirect(address, port);
      } catch {
        refuse(502);
        return;
      }
      track(upstream);
      if (client.destroyed) {
        upstream.destroy();
        return;
      }
      if (options.onBytes) upstream.on('data', (chunk: Buffer) => options.onBytes!(chunk.length));
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      upstream.on('error', () => client.destroy());
      client.once('close', () => upstream.destroy());
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await closed;
    },
  };
}

/** A TCP connection to `address:port`, once it is established. */
function connectDirect(address: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    socket.once('connect', () => {
      socket.removeListener('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function withoutHopByHop(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const copy: http.OutgoingHttpHeaders = { ...headers };
  // Headers that `connection` names are hop-by-hop as well.
  const named = typeof headers.connection === 'string' ? headers.connection.split(',').map((h) => h.trim().toLowerCase()) : [];
  for (const name of [...HOP_BY_HOP, ...named]) delete copy[name];
  return copy;
}
