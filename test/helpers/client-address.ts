import { request as httpRequest } from 'node:http';
import { basic } from './client.js';

/**
 * An HTTP call from another loopback source address (127.0.0.2, 127.0.0.3, ...: Linux routes the
 * whole 127/8 to lo), so the server sees a different client address without a proxy. Answers a
 * fetch Response, so the usual helpers (expectError, json) apply.
 */
export function requestFrom(localAddress: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : Buffer.from(init.body);
    const headers = { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    const req = httpRequest(url, { method: init.method ?? 'GET', headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const status = res.statusCode ?? 0;
        const content = Buffer.concat(chunks);
        resolve(new Response(status === 204 || status === 304 ? null : content, { status, headers: responseHeaders }));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** POST authentication/user/login from `localAddress`: Basic credentials, or none for an anonymous session. */
export function loginFrom(rest: string, localAddress: string, credentials?: { name: string; password: string }, headers: Record<string, string> = {}): Promise<Response> {
  return requestFrom(localAddress, `${rest}/authentication/user/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(credentials ? { authorization: basic(credentials.name, credentials.password) } : {}),
      ...headers,
    },
    body: JSON.stringify({ createRefreshToken: false }),
  });
}
