import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy.js';

/**
 * POSTs one JSON body to a receiver the address policy allows, and reports how it answered.
 *
 * The host is judged by the policy once, and the connection goes only to the addresses that judgement
 * returned: the request's `lookup` hands them back instead of asking DNS again, so a name that
 * resolves to a public address for the check and to an internal one a moment later (DNS rebinding)
 * cannot steer the delivery. The URL's host still names the request (Host header) and, for https,
 * the TLS server name (SNI) the certificate is checked against.
 *
 * Redirects are not followed: a 3xx answer is a failed delivery like any other non-2xx, since
 * following one would send the signed body to a target nobody checked. The answer's body is read up
 * to a bound and thrown away; only the status matters.
 */

export interface WebhookRequest {
  url: string;
  /** Sent as given (Content-Type, signature headers, ...). */
  headers: Record<string, string>;
  body: string | Buffer;
  /** Until the receiver's status line: connecting, sending, and the receiver's work. */
  timeoutMs: number;
  policy: AddressPolicy;
}

export interface WebhookResponse {
  status: number;
  durationMs: number;
}

/**
 * Why a delivery failed: the policy refused the target (retrying cannot help), no connection (refused,
 * unreachable, TLS), no answer in time, or an answer that is not 2xx.
 */
export type WebhookFailureKind = 'refused' | 'connect' | 'timeout' | 'status';

export class WebhookError extends Error {
  constructor(
    readonly kind: WebhookFailureKind,
    message: string,
    /** The receiver's status, for kind "status". */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WebhookError';
  }
}

/** What is read of a receiver's answer before the connection is dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export async function postWebhook(request: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new WebhookError('refused', 'the URL is not valid');
  }
  const timeoutError = () => new WebhookError('timeout', `no answer from ${url.host} within ${request.timeoutMs} ms`);
  // The check may wait for DNS: it counts against the same time limit as the exchange.
  const decision = await beforeDeadline(request.policy.checkUrl(url), request.timeoutMs, timeoutError);
  if (!decision.allowed) throw new WebhookError('refused', decision.reason);

  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const secure = url.protocol === 'https:';
  const port = Number(url.port || (secure ? 443 : 80));
  const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  const options: https.RequestOptions = {
    method: 'POST',
    host,
    port,
    path: url.pathname + url.search,
    headers: { ...request.headers, 'content-length': String(body.length) },
    // A fresh connection per delivery: nothing pooled under the host name outlives its check.
    agent: false,
    lookup: pinnedLookup(decision.addresses),
    // Certificates are checked against the URL's host; IP literals get no SNI (RFC 6066).
    ...(secure && isIP(host) === 0 ? { servername: host } : {}),
  };

  const status = await new Promise<number>((resolve, reject) => {
    const outgoing = (secure ? https : http).request(options, (response) => {
      // The status is the answer; the body is drained (bounded) only so the receiver can finish.
      resolve(response.statusCode ?? 0);
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) response.destroy();
      });
      response.on('error', () => undefined);
    });
    const timer = setTimeout(() => outgoing.destroy(timeoutError()), Math.max(1, request.timeoutMs - (performance.now() - started)));
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('error', (error) => reject(error instanceof WebhookError ? error : connectError(error, host, port)));
    outgoing.end(body);
  });

  const durationMs = Math.round(performance.now() - started);
  if (status < 200 || status > 299) {
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    throw new WebhookError('status', `HTTP ${status} from receiver${redirect}`, status);
  }
  return { status, durationMs };
}

function beforeDeadline<T>(work: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** A `lookup` that answers with the checked addresses only, in their order (Node tries each in turn). */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const answers = addresses.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? answers.filter((a) => a.family === options.family) : answers;
    const first = wanted[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error(`no checked address of family IPv${String(options.family)}`);
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
    } else if (options.all) callback(null, wanted);
    else callback(null, first.address, first.family);
  };
}

/** A failed connect names the address and port it tried. */
type SocketError = NodeJS.ErrnoException & { address?: string; port?: number };

/** "connection refused to 127.0.0.1:4000", naming each address tried. */
function connectError(error: Error, host: string, port: number): WebhookError {
  const attempts = error instanceof AggregateError ? (error.errors as SocketError[]) : [error as SocketError];
  const described = attempts.map((attempt) => {
    const target = attempt.address ? `${attempt.address.includes(':') ? `[${attempt.address}]` : attempt.address}:${attempt.port ?? port}` : `${host}:${port}`;
    if (attempt.code === 'ECONNREFUSED') return `connection refused to ${target}`;
    if (attempt.code === 'ECONNRESET') return `connection reset by ${target}`;
    // Socket errors carry a syscall and a terse code; TLS failures are better told by their message.
    return `could not connect to ${target} (${attempt.syscall ? (attempt.code ?? attempt.message) : attempt.message})`;
  });
  return new WebhookError('connect', [...new Set(described)].join('; '), undefined, { cause: error });
}
