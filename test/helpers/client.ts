import { expect } from 'vitest';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';

export interface LoginResult {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

export function basic(name: string, password: string): string {
  return `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export async function login(rest: string, credentials?: { name: string; password: string }, createRefreshToken = true): Promise<LoginResult> {
  const response = await fetch(`${rest}/authentication/user/login/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(credentials ? { authorization: basic(credentials.name, credentials.password) } : {}),
    },
    body: JSON.stringify({ createRefreshToken }),
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as LoginResult;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Interim 100 Continue seen before the final status. */
  continued: boolean;
}

/** A multipart/form-data body with one file part, as the official clients send it. */
export function multipartBody(content: Buffer, fileName: string, field = 'filedata', boundary = 'quire-test-boundary-7f3a'): { body: Buffer; contentType: string } {
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, content, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A raw HTTP request (node:http), for what fetch hides: Expect: 100-continue, exact headers, early responses. */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string | number>; body?: Buffer | Readable; expectContinue?: boolean }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let continued = false;
    const headers = { ...options.headers, ...(options.expectContinue ? { expect: '100-continue' } : {}) };
    const req = httpRequest(url, { method: options.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), continued }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const writeBody = () => {
      if (options.body instanceof Readable) options.body.pipe(req);
      else req.end(options.body);
    };
    if (options.expectContinue) {
      req.on('continue', () => {
        continued = true;
        writeBody();
      });
      req.flushHeaders();
    } else {
      writeBody();
    }
  });
}

export async function uploadDocument(rest: string, token: string, content: Buffer, fileName: string, query = ''): Promise<Record<string, unknown>> {
  const { body, contentType } = multipartBody(content, fileName);
  const response = await rawRequest(`${rest}/documents${query}`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': contentType, 'content-length': body.length },
    body,
  });
  if (response.status !== 303) throw new Error(`upload failed: ${response.status} ${response.body.toString()}`);
  const info = await fetch(new URL(String(response.headers.location), rest), { headers: bearer(token) });
  return (await info.json()) as Record<string, unknown>;
}

export async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

/** The webPDF error structure as the tests read it. */
export interface ErrorAnswer {
  errorCode: number;
  errorMessage: string;
  stackTrace: string;
  [key: string]: unknown;
}

/**
 * Asserts an error answer: the status, `Content-Type: application/json` exactly (the official clients
 * compare the whole header), the exception structure, and the errorCode when given.
 */
export async function expectError(response: Response, status: number, errorCode?: number): Promise<ErrorAnswer> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  const body = JSON.parse(text) as ErrorAnswer;
  expect(typeof body.errorCode).toBe('number');
  expect(body.errorCode).not.toBe(0);
  expect(typeof body.errorMessage).toBe('string');
  expect(body).toHaveProperty('stackTrace');
  if (errorCode !== undefined) expect(body.errorCode).toBe(errorCode);
  return body;
}
