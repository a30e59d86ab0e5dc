import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Errors, type ErrorName } from '../core/errors.js';

/** What the listener needs of the application: an in-process request (Fastify's `inject`). */
export type InProcessCall = (request: { method: 'GET'; url: string; headers: IncomingHttpHeaders }) => Promise<{
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  rawPayload: Buffer;
}>;

export interface PrivateListener {
  port: number;
  close(): Promise<void>;
}

/**
 * A worker node's only socket: GET of the given paths (health and metrics), answered by the
 * application in-process; everything else 404 without reaching it. The worker still builds the whole
 * application — queued jobs run through it — but exposes none of the API, so a load balancer or a
 * client pointed at a worker by mistake can do nothing with it. HEAD is a GET without body (probes).
 */
export async function listenPrivate(options: { host: string; port: number; paths: readonly string[]; call: InProcessCall }): Promise<PrivateListener> {
  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    const path = url.split('?')[0]!;
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !options.paths.includes(path)) {
      refuse(response, 'ROUTE_NOT_FOUND', 'A worker node serves only its health and metrics; the API is on the api and all nodes.');
      return;
    }
    options
      .call({ method: 'GET', url, headers: request.headers })
      .then((answer) => {
        const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name, value]) => value !== undefined && name !== 'content-length' && name !== 'transfer-encoding'));
        response.writeHead(answer.statusCode, headers as Record<string, string | string[] | number>);
        response.end(request.method === 'HEAD' ? undefined : answer.rawPayload);
      })
      .catch(() => refuse(response, 'SHUTTING_DOWN', 'The worker is stopping.'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function refuse(response: ServerResponse, name: ErrorName, message: string): void {
  const { errorCode, status } = Errors[name];
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ errorCode, errorMessage: message, stackTrace: '' }));
}
