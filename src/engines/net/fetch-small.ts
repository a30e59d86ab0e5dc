import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { AddressPolicy } from './address-policy.js';
import { pinnedLookup } from './webhook-client.js';

/**
 * GETs a small resource (a header or footer template, a CRL) that the address policy allows, or POSTs
 * a small body (an OCSP or time-stamp request), connecting only to the addresses the policy judged
 * (DNS rebinding cannot steer it, as for webhooks). Redirects are not followed; the body is read up to
 * `maxBytes` and refused past it, whatever Content-Length says.
 */
export type FetchFailure = 'refused' | 'unreachable';

export class FetchError extends Error {
  constructor(
    readonly kind: FetchFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchError';
  }
}

export interface SmallFetch {
  url: string;
  policy: AddressPolicy;
  maxBytes: number;
  timeoutMs: number;
  /** Sent as a POST with these headers (content-type, accept, authorization); absent: a GET. */
  post?: { body: Buffer; headers: Record<string, string> };
}

export async function fetchSmall(request: SmallFetch): Promise<Buffer> {
  const decision = await request.policy.checkUrl(request.url);
  if (!decision.allowed) throw new FetchError(decision.refusal === 'unresolved' ? 'unreachable' : 'refused', decision.reason);
  const url = new URL(request.url);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method: request.post ? 'POST' : 'GET',
    ...(request.post ? { headers: { ...request.post.headers, 'content-length': request.post.body.length } } : {}),
    host,
    port: Number(url.port || (secure ? 443 : 80)),
    path: url.pathname + url.search,
    agent: false,
    lookup: pinnedLookup(decision.addresses),
    ...(secure && isIP(host) === 0 ? { servername: host } : {}),
  };
  return new Promise<Buffer>((resolve, reject) => {
    const outgoing = (secure ? https : http).request(options, (response) => {
      const status = response.statusCode ?? 0;
      if (status !== 200) {
        response.destroy();
        reject(new FetchError('unreachable', `${url.href} answered with HTTP status ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > request.maxBytes) {
          response.destroy();
          reject(new FetchError('unreachable', `${url.href} is larger than ${request.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve(Buffer.concat(chunks)));
      response.on('error', (error) => reject(new FetchError('unreachable', `${url.href} could not be read: ${error.message}`, { cause: error })));
    });
    const timer = setTimeout(() => outgoing.destroy(new FetchError('unreachable', `${url.href} did not answer within ${request.timeoutMs} ms`)), request.timeoutMs);
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('error', (error) => reject(error instanceof FetchError ? error : new FetchError('unreachable', `${url.href} could not be loaded: ${error.message}`, { cause: error })));
    outgoing.end(request.post?.body);
  });
}
