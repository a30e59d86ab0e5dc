import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bearer } from './client.js';
import { info, type DocumentFile, type ErrorBody } from './documents.js';

/** The answer to a web-service call: its status and headers, and the error structure when it failed. */
export interface WebServiceOutcome {
  status: number;
  contentType: string | null;
  retryAfter: string | null;
  location: string | null;
  error?: ErrorBody;
}

export type ConvertOutcome = WebServiceOutcome;

/** POST converter/{documentId} with a JSON body; redirects are not followed. */
export async function convert(rest: string, token: string, documentId: string, body: unknown = { converter: {} }): Promise<ConvertOutcome> {
  return postWebService(`${rest}/converter/${documentId}`, token, body);
}

/** POST a JSON body to a web service with the session's token; redirects are not followed. */
export async function postWebService(url: string, token: string, body: unknown): Promise<WebServiceOutcome> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    retryAfter: response.headers.get('retry-after'),
    location: response.headers.get('location'),
    ...(response.status >= 400 ? { error: JSON.parse(text) as ErrorBody } : {}),
  };
}

/** Converts and expects success: 303 to the document's info, which is returned. */
export async function convertOk(rest: string, token: string, documentId: string, body: unknown = { converter: {} }): Promise<DocumentFile> {
  const outcome = await convert(rest, token, documentId, body);
  if (outcome.status !== 303) throw new Error(`conversion failed: ${outcome.status} ${JSON.stringify(outcome.error)}`);
  if (!outcome.location?.endsWith(`/documents/${documentId}/info`)) throw new Error(`unexpected location ${outcome.location}`);
  return info(rest, token, documentId);
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-converted-'));
let counter = 0;

/** Downloads a document into a temp file and returns its path (for pdfinfo/pdftotext). */
export async function downloadToFile(rest: string, token: string, documentId: string, extension = 'pdf'): Promise<string> {
  const response = await fetch(`${rest}/documents/${documentId}`, { headers: { ...bearer(token), accept: 'application/octet-stream' } });
  if (response.status !== 200) throw new Error(`download failed: ${response.status}`);
  const file = path.join(scratch, `doc-${counter++}.${extension}`);
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return file;
}

export interface PdfFacts {
  pages: number;
  /** Page size of page 1 in points, rounded. */
  width: number;
  height: number;
  text: string;
  pdfVersion: string;
}

/** What poppler says about a PDF (an independent check of the server's output). */
export function pdfFacts(file: string, userPassword?: string): PdfFacts {
  const password = userPassword === undefined ? [] : ['-upw', userPassword];
  const infoText = execFileSync('pdfinfo', [...password, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const pages = Number(/^Pages:\s+(\d+)/m.exec(infoText)?.[1] ?? NaN);
  const size = /^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(infoText);
  const text = execFileSync('pdftotext', [...password, '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
  return {
    pages,
    width: Math.round(Number(size?.[1] ?? NaN)),
    height: Math.round(Number(size?.[2] ?? NaN)),
    text,
    pdfVersion: /^PDF version:\s+(\S+)/m.exec(infoText)?.[1] ?? '',
  };
}

/** The text of one page. */
export function pageText(file: string, page: number): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', '-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8' });
}

export function fonts(file: string): string {
  return execFileSync('pdffonts', [file], { encoding: 'utf8' });
}
