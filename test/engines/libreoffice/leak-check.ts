import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { HostileTargets } from './hostile-office.js';

/** The secret image's size: no other image in the hostile documents (or LibreOffice's placeholders) has it. */
export const SECRET_IMAGE_SIZE = '61x43';
export const SECRET_TEXT = 'QUIRE-SECRET-TEXT-4e1b';
export const SECRET_CSV = 'QUIRE-SECRET-CSV-9c07';

/**
 * A loopback HTTP listener that must see nothing: it records every connection and request (so a
 * non-HTTP client shows up too) and answers 404. While `closed`, connections are cut unrecorded
 * (for writing the legacy documents, whose writer follows the links).
 */
export interface Listener {
  base: string;
  /** "connect" per TCP connection, "<METHOD> <path>" per request, in order. */
  hits: string[];
  closed: boolean;
  close(): Promise<void>;
}

export async function startListener(): Promise<Listener> {
  const listener = { hits: [] as string[], closed: false } as Listener;
  const server = http.createServer((request, response) => {
    listener.hits.push(`${request.method} ${request.url}`);
    response.writeHead(404, { connection: 'close', 'content-length': '0' });
    response.end();
  });
  server.on('connection', (socket) => {
    if (listener.closed) {
      socket.destroy();
      return;
    }
    listener.hits.push('connect');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  listener.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  listener.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return listener;
}

/** Where the secret files go: a folder of their own, outside anything a conversion may read. */
export function secretTargets(base: string): HostileTargets {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-secret-'));
  return {
    base,
    secretPng: path.join(dir, 'secret.png'),
    secretText: path.join(dir, 'secret.txt'),
    secretCsv: path.join(dir, 'secret.csv'),
  };
}

export async function writeSecrets(targets: HostileTargets): Promise<void> {
  await sharp({ create: { width: 61, height: 43, channels: 3, background: '#c03' } })
    .png()
    .toFile(targets.secretPng);
  writeFileSync(targets.secretText, `${SECRET_TEXT}\n`);
  writeFileSync(targets.secretCsv, `${SECRET_CSV},2\n`);
}

/** What a PDF holds, read with poppler: its text and the sizes ("WxH") of its images. */
export function pdfContent(file: string): { text: string; images: string[] } {
  const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
  const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s+/).slice(3, 5).join('x'));
  return { text, images };
}
