/**
 * Helpers for the document storage tests: sessions, generated documents, uploads over raw HTTP
 * (chunked, early answers, aborts) and a look at the data directory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { PDFDocument } from '@cantoo/pdf-lib';
import { bearer, login, multipartBody, type RawResponse } from './client.js';

export const ID = /^[0-9a-f]{32}$/;

export interface DocumentFile {
  documentId: string;
  parentDocumentId: string;
  fileSize: number;
  mimeType: string;
  fileName: string;
  fileExtension: string;
  fileTypeId: number;
  fileTypeGroups: string;
  fileLastModified: string;
  filePath: string;
  historyId: number;
  isFileLocked: boolean;
  error: { errorCode: number; errorMessage: string; stackTrace: string };
}

export interface ErrorBody {
  errorCode: number;
  errorMessage: string;
  stackTrace: string;
}

export interface TestSession {
  token: string;
  /** The session id (`uniqueId` of the user information); names the session's storage directory. */
  id: string;
  headers: Record<string, string>;
}

/** An anonymous session and its id. */
export async function openSession(rest: string): Promise<TestSession> {
  const { token } = await login(rest);
  const response = await fetch(`${rest}/authentication/user/info`, { headers: bearer(token) });
  if (response.status !== 200) throw new Error(`user info failed: ${response.status}`);
  const { uniqueId } = (await response.json()) as { uniqueId: string };
  return { token, id: uniqueId, headers: bearer(token) };
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A PDF-looking file of exactly `size` bytes (header, random filler, %%EOF), unique per call. */
export function pdfOfSize(size: number): Buffer {
  const head = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const tail = Buffer.from('\n%%EOF\n', 'latin1');
  if (size < head.length + tail.length) throw new Error('too small for a PDF');
  return Buffer.concat([head, randomBytes(size - head.length - tail.length), tail]);
}

/** A well-formed PDF (pdf-lib) with the given number of pages, a title and an author. */
export async function realPdf(pages = 1, title = 'Quire test'): Promise<Buffer> {
  const document = await PDFDocument.create();
  for (let i = 0; i < pages; i++) document.addPage([595, 842]);
  document.setTitle(title);
  document.setAuthor('Quire');
  return Buffer.from(await document.save());
}

/** 1x1 PNG. */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A multipart body built from raw parts (each part: its header lines and content), with or without the closing delimiter. */
export function rawMultipart(parts: Array<{ headers: string[]; content: Buffer | string }>, options: { boundary?: string; close?: boolean } = {}): { body: Buffer; contentType: string } {
  const boundary = options.boundary ?? 'quire-doc-test-b0undary';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n`, 'utf8'));
    chunks.push(typeof part.content === 'string' ? Buffer.from(part.content, 'utf8') : part.content);
    chunks.push(Buffer.from('\r\n'));
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface Outcome {
  /** The final response, when one arrived. */
  response?: RawResponse;
  /** The transport error, when the connection failed before a full response arrived. */
  error?: NodeJS.ErrnoException;
  /** Body bytes the socket accepted before the request ended or failed. */
  bytesWritten: number;
  /** Whether the whole body was handed over and the request ended. */
  completed: boolean;
}

type BodySource = Buffer | AsyncIterable<Buffer> | Iterable<Buffer>;

/**
 * One HTTP request over node:http that survives what a refused upload may do to the connection: an
 * early answer, a reset while the body is still being written. Resolves with the response if one
 * arrived and the error otherwise; never rejects. With `expectContinue` the body is sent only after
 * a 100 Continue. Without Content-Length the body goes chunked.
 */
export function send(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string | number>;
    body?: BodySource;
    expectContinue?: boolean;
    /** Called once the request is on its way, with the request (to abort it) and the running byte count. */
    onStart?: (request: ClientRequest) => void;
  },
): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = { bytesWritten: 0, completed: false };
    let continued = false;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      // Done with this connection: a request the server answered without reading it ends here, as a client would end it.
      req.destroy();
      resolve(outcome);
    };
    const headers = { ...options.headers, ...(options.expectContinue ? { expect: '100-continue' } : {}) };
    const req = httpRequest(url, { method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        outcome.response = { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), continued };
        // Let a body writer still running notice the closed connection first, so bytesWritten is final.
        setImmediate(settle);
      });
      res.on('error', (error) => {
        outcome.error ??= error;
        settle();
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      outcome.error ??= error;
      // A response may still be in flight on the same socket; give it a moment to be parsed.
      setImmediate(() => {
        if (!outcome.response) settle();
      });
    });
    req.on('close', () => {
      setTimeout(() => {
        if (!outcome.response && !settled) {
          outcome.error ??= Object.assign(new Error('connection closed without a response'), { code: 'ECONNCLOSED' });
          settle();
        }
      }, 50);
    });
    options.onStart?.(req);
    const writeBody = async () => {
      const body = options.body;
      try {
        if (body === undefined) {
          req.end();
        } else if (Buffer.isBuffer(body)) {
          req.end(body, () => {
            outcome.bytesWritten = body.length;
            outcome.completed = true;
          });
        } else {
          for await (const chunk of body as AsyncIterable<Buffer>) {
            if (req.destroyed || req.writableEnded) return;
            const ok = req.write(chunk);
            outcome.bytesWritten += chunk.length;
            if (!ok) {
              await new Promise<void>((done) => {
                const finish = () => {
                  req.off('drain', finish);
                  req.off('close', finish);
                  done();
                };
                req.on('drain', finish);
                req.on('close', finish);
              });
            }
          }
          if (!req.destroyed) {
            req.end(() => {
              outcome.completed = true;
            });
          }
        }
      } catch (error) {
        outcome.error ??= error as NodeJS.ErrnoException;
      }
    };
    if (options.expectContinue) {
      req.on('continue', () => {
        continued = true;
        void writeBody();
      });
      req.flushHeaders();
    } else {
      void writeBody();
    }
  });
}

/** `total` bytes in chunks of `chunkSize`, generated as they are pulled. */
export function* filler(total: number, chunkSize = 64 * 1024): Generator<Buffer> {
  const block = randomBytes(chunkSize);
  let left = total;
  while (left > 0) {
    const size = Math.min(left, chunkSize);
    left -= size;
    yield size === chunkSize ? block : block.subarray(0, size);
  }
}

const STREAM_BOUNDARY = 'quire-stream-b0undary';

/** The start of a multipart upload up to the first byte of the file part `filedata`. */
export function multipartHead(fileName: string): Buffer {
  return Buffer.from(`--${STREAM_BOUNDARY}\r\nContent-Disposition: form-data; name="filedata"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
}

/** What follows the file content: the closing delimiter. */
export const MULTIPART_TAIL = Buffer.from(`\r\n--${STREAM_BOUNDARY}--\r\n`);

/** A multipart upload whose file content is `content`, as chunks: head, content, tail. */
export function* multipartStream(content: Iterable<Buffer>, fileName: string): Generator<Buffer> {
  yield multipartHead(fileName);
  yield* content;
  yield MULTIPART_TAIL;
}

export const STREAM_CONTENT_TYPE = `multipart/form-data; boundary=${STREAM_BOUNDARY}`;

/**
 * A content replacement (PUT documents/{id}) that holds the document's lock while its body arrives:
 * the first 64 bytes go at once, the rest when `release()` is called. `done` is the PUT's outcome.
 */
export function replacementHoldingLock(rest: string, token: string, documentId: string, replacement: Buffer): { release(): void; done: Promise<Outcome> } {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  async function* body(): AsyncGenerator<Buffer> {
    yield multipartHead('replacement.pdf');
    yield replacement.subarray(0, 64);
    await gate;
    yield replacement.subarray(64);
    yield MULTIPART_TAIL;
  }
  const done = send(`${rest}/documents/${documentId}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': STREAM_CONTENT_TYPE }, body: body() });
  return { release: () => release(), done };
}

/** Uploads `content` with a declared Content-Length; returns the outcome without judging it. */
export function postDocument(rest: string, token: string, content: Buffer, fileName: string, options: { query?: string; expectContinue?: boolean } = {}): Promise<Outcome> {
  const { body, contentType } = multipartBody(content, fileName);
  return send(`${rest}/documents${options.query ?? ''}`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': contentType, 'content-length': body.length },
    body,
    expectContinue: options.expectContinue,
  });
}

/** Uploads `content` chunked (no Content-Length). */
export function postDocumentChunked(rest: string, token: string, content: Iterable<Buffer>, fileName: string): Promise<Outcome> {
  return send(`${rest}/documents`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': STREAM_CONTENT_TYPE },
    body: multipartStream(content, fileName),
  });
}

/** The id the 303 of an upload points at. */
export function locationId(headers: IncomingHttpHeaders): string {
  const match = /\/documents\/([0-9a-f]{32})\/info$/.exec(String(headers.location));
  if (!match) throw new Error(`no document location in ${String(headers.location)}`);
  return match[1]!;
}

/** Uploads and returns the DocumentFile; throws unless the server answered 303. */
export async function uploadFile(rest: string, token: string, content: Buffer, fileName: string, query = ''): Promise<DocumentFile> {
  const outcome = await postDocument(rest, token, content, fileName, { query });
  if (outcome.response?.status !== 303) {
    throw new Error(`upload failed: ${outcome.response?.status ?? outcome.error?.message} ${outcome.response?.body.toString() ?? ''}`);
  }
  return info(rest, token, locationId(outcome.response.headers));
}

export async function info(rest: string, token: string, documentId: string): Promise<DocumentFile> {
  const response = await fetch(`${rest}/documents/${documentId}/info`, { headers: bearer(token) });
  if (response.status !== 200) throw new Error(`info failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as DocumentFile;
}

export async function list(rest: string, token: string): Promise<DocumentFile[]> {
  const response = await fetch(`${rest}/documents/list`, { headers: bearer(token) });
  if (response.status !== 200) throw new Error(`list failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as DocumentFile[];
}

export function parseError(body: Buffer): ErrorBody {
  return JSON.parse(body.toString('utf8')) as ErrorBody;
}

/** Every path under `dir`, relative, with '/' separators, sorted. */
export function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      out.push(child);
      if (entry.isDirectory()) walk(child);
    }
  };
  if (existsSync(dir)) walk('');
  return out.sort();
}

/** Entries of `<dataDir>/tmp` (uploads in progress). */
export function tempEntries(dataDir: string): string[] {
  return existsSync(path.join(dataDir, 'tmp')) ? readdirSync(path.join(dataDir, 'tmp')) : [];
}

/** The document directories of a session on disk, each with its entries. */
export function storedDocuments(dataDir: string, sessionId: string): Map<string, string[]> {
  const dir = path.join(dataDir, 'storage', sessionId);
  const result = new Map<string, string[]>();
  if (!existsSync(dir)) return result;
  for (const documentId of readdirSync(dir)) result.set(documentId, readdirSync(path.join(dir, documentId)).sort());
  return result;
}

/** Retries `check` until it stops throwing or `timeoutMs` passes (then rethrows its last error). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 3000, intervalMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
