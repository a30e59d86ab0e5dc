/**
 * The fuzzer's HTTP client (node:http, not fetch: fetch's own header and body timeouts would cut
 * calls the server may legitimately take minutes for, and its errors hide whether the connection
 * was refused or reset). Every call has a deadline and reports its time.
 */
import { Agent, request } from 'node:http';

export interface Answer {
  /** HTTP status, or 0 when there was none (see `failure`). */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
  /** Why there was no answer: the deadline passed, or the connection failed (refused, reset). */
  failure?: 'timeout' | 'connection';
  failureMessage?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Answers above this are cut: the fuzzer needs the status and an error body, not result files. */
const MAX_BODY = 4 * 1024 * 1024;

export function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer | string; timeoutMs: number; keepBody?: boolean }): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (answer: Omit<Answer, 'ms'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...answer, ms: performance.now() - started });
    };
    const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
    const req = request(url, { method: options.method ?? 'GET', agent, headers: { ...options.headers, ...(body ? { 'content-length': String(body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY || options.keepBody) chunks.push(chunk);
      });
      res.on('end', () => finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', (error) => finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), failure: 'connection', failureMessage: error.message }));
    });
    const timer = setTimeout(() => {
      req.destroy(new Error('deadline passed'));
      finish({ status: 0, headers: {}, body: Buffer.alloc(0), failure: 'timeout', failureMessage: `no answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    req.on('error', (error) => finish({ status: 0, headers: {}, body: Buffer.alloc(0), failure: 'connection', failureMessage: error.message }));
    req.end(body);
  });
}

/** A multipart/form-data body with one file part `filedata`, as the official clients send it. */
export function multipart(content: Buffer, fileName: string): { body: Buffer; contentType: string } {
  const boundary = 'quire-fuzz-7d1c9a3e';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  return { body: Buffer.concat([head, content, Buffer.from(`\r\n--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The webPDF error structure of an answer, when it is one. */
export function errorOf(answer: Answer): { errorCode?: number; errorMessage?: string } | undefined {
  if (answer.status < 400) return undefined;
  try {
    const parsed = JSON.parse(answer.body.toString('utf8')) as { errorCode?: unknown; errorMessage?: unknown };
    return {
      ...(typeof parsed.errorCode === 'number' ? { errorCode: parsed.errorCode } : {}),
      ...(typeof parsed.errorMessage === 'string' ? { errorMessage: parsed.errorMessage } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * Whether an error answer has the promised shape (docs/errors.md): a numeric errorCode and an
 * errorMessage, with Content-Type application/json; a 415 is the clients' transport error and comes
 * as application/problem+json, carrying the same members.
 */
export function wellFormedError(answer: Answer): boolean {
  if (answer.status < 400) return true;
  const type = answer.headers['content-type'];
  const error = errorOf(answer);
  const promisedType = answer.status === 415 ? 'application/problem+json' : 'application/json';
  return type === promisedType && typeof error?.errorCode === 'number' && typeof error.errorMessage === 'string';
}
