/**
 * Issue 19: `GET documents/{id}/thumbnail` — a page as a PNG rendered by poppler, cached next to the
 * document, authorised like the download; pictures checked with `file` and the PNG header, the cache
 * on disk.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, rgb } from '@cantoo/pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/client.js';
import { openSession, PNG_1X1, type TestSession } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'quire-thumbnails-'));
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Two A4 pages, the first half black, so a picture of it is not blank. */
async function twoPages(): Promise<Buffer> {
  const document = await PDFDocument.create();
  document.addPage([595, 842]).drawRectangle({ x: 0, y: 421, width: 595, height: 421, color: rgb(0, 0, 0) });
  document.addPage([595, 842]);
  return Buffer.from(await document.save());
}

/** Width and height from the PNG header, and what `file` says about the bytes. */
function picture(png: Buffer, name: string): { width: number; height: number; file: string } {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(png.toString('latin1', 12, 16)).toBe('IHDR');
  const file = path.join(work, name);
  writeFileSync(file, png);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), file: execFileSync('file', ['-b', file]).toString().trim() };
}

/** qpdf, as an independent tool would: rotated or encrypted variants of a PDF. */
function qpdf(source: Buffer, name: string, args: string[]): Buffer {
  const input = path.join(work, `${name}-in.pdf`);
  const output = path.join(work, `${name}.pdf`);
  writeFileSync(input, source);
  execFileSync('qpdf', [...args, '--', input, output]);
  return readFileSync(output);
}

describe('document thumbnails', () => {
  const { server, session, upload } = useTestServer();
  let pdf: Buffer;
  beforeAll(async () => {
    pdf = await twoPages();
  });
  const thumbnail = (documentId: string, query = '', token = session.token, headers: Record<string, string> = {}) =>
    fetch(`${server.rest}/documents/${documentId}/thumbnail${query}`, { headers: { ...bearer(token), ...headers } });
  const documentDir = (documentId: string) => path.join(server.dataDir, 'storage', session.id, documentId);
  const cachedPictures = (documentId: string) => readdirSync(documentDir(documentId)).filter((name) => name.endsWith('.png'));

  it('renders page 1 at 160 pixels by default, and serves the second call from the cache', async () => {
    const document = await upload(pdf, 'two.pdf');
    const first = await thumbnail(document.documentId);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('x-quire-thumbnail')).toBe('rendered');
    const png = Buffer.from(await first.arrayBuffer());
    const seen = picture(png, 'first.png');
    expect(seen).toMatchObject({ width: 160, height: Math.round((160 * 842) / 595) });
    expect(seen.file).toMatch(/^PNG image data, 160 x 226/);
    // The picture is not blank: the black half compresses differently from a white page.
    const blank = Buffer.from(await (await thumbnail(document.documentId, '?page=2')).arrayBuffer());
    expect(blank.equals(png)).toBe(false);

    const [cached] = cachedPictures(document.documentId).filter((name) => name.endsWith('-1-160.png'));
    expect(cached).toBeDefined();
    const before = statSync(path.join(documentDir(document.documentId), cached!)).mtimeMs;
    const second = await thumbnail(document.documentId, '?page=1&width=160');
    expect(second.status).toBe(200);
    expect(second.headers.get('x-quire-thumbnail')).toBe('cached');
    expect(Buffer.from(await second.arrayBuffer()).equals(png)).toBe(true);
    expect(statSync(path.join(documentDir(document.documentId), cached!)).mtimeMs).toBe(before);
    expect(cachedPictures(document.documentId)).toHaveLength(2);

    const etag = second.headers.get('etag')!;
    expect((await thumbnail(document.documentId, '', session.token, { 'if-none-match': etag })).status).toBe(304);
  });

  it('follows the page rotation and the requested width', async () => {
    const rotated = await upload(qpdf(pdf, 'rotated', ['--rotate=+90:1']), 'rotated.pdf');
    const response = await thumbnail(rotated.documentId, '?width=400');
    expect(response.status).toBe(200);
    const seen = picture(Buffer.from(await response.arrayBuffer()), 'rotated.png');
    expect(seen).toMatchObject({ width: 400, height: Math.round((400 * 595) / 842) });
    expect(seen.file).toMatch(/^PNG image data, 400 x 283/);
  });

  it('refuses pages and widths out of range with the catalogue error', async () => {
    const document = await upload(pdf, 'two.pdf');
    for (const query of ['?page=3', '?page=0', '?width=1025', '?width=8', '?page=x']) {
      const response = await thumbnail(document.documentId, query);
      expect(response.status, query).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/json');
      const body = (await response.json()) as { errorCode: number; errorMessage: string };
      expect(body.errorCode, query).toBe(-14);
    }
    const past = (await (await thumbnail(document.documentId, '?page=3')).json()) as { errorMessage: string };
    expect(past.errorMessage).toMatch(/2 pages/);
    expect(cachedPictures(document.documentId)).toHaveLength(0);
  });

  it('answers a document that is not a PDF with -211', async () => {
    const image = await upload(PNG_1X1, 'dot.png');
    const response = await thumbnail(image.documentId);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errorCode: number; errorMessage: string };
    expect(body.errorCode).toBe(-211);
    expect(body.errorMessage).toMatch(/not a PDF/);
  });

  it('opens a protected PDF with the password the session supplied, and asks for it before', async () => {
    const locked = await upload(qpdf(pdf, 'locked', ['--encrypt', 'user-pw', 'owner-pw', '256']), 'locked.pdf');
    const refused = await thumbnail(locked.documentId);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errorCode: number }).errorCode).toBe(-5009);
    const supplied = await fetch(`${server.rest}/documents/${locked.documentId}/security/password`, {
      method: 'PUT',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ open: 'user-pw' }),
    });
    expect(supplied.status).toBe(200);
    const response = await thumbnail(locked.documentId);
    expect(response.status).toBe(200);
    expect(picture(Buffer.from(await response.arrayBuffer()), 'locked.png').width).toBe(160);
    // Protected by an owner password only: opens without one.
    const owner = await upload(qpdf(pdf, 'owner', ['--encrypt', '', 'owner-pw', '256']), 'owner.pdf');
    expect((await thumbnail(owner.documentId)).status).toBe(200);
  });

  it("is authorised like the download: the session's own documents only", async () => {
    const document = await upload(pdf, 'mine.pdf');
    const other: TestSession = await openSession(server.rest);
    const foreign = await thumbnail(document.documentId, '', other.token);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { errorCode: number }).errorCode).toBe(-70);
    const anonymous = await fetch(`${server.rest}/documents/${document.documentId}/thumbnail`);
    expect(anonymous.status).toBe(401);
  });

  it('deletes the cached pictures with the document', async () => {
    const document = await upload(pdf, 'gone.pdf');
    expect((await thumbnail(document.documentId)).status).toBe(200);
    expect(cachedPictures(document.documentId)).toHaveLength(1);
    const deleted = await fetch(`${server.rest}/documents/${document.documentId}`, { method: 'DELETE', headers: bearer(session.token) });
    expect(deleted.status).toBe(200);
    expect(existsSync(documentDir(document.documentId))).toBe(false);
  });
});
