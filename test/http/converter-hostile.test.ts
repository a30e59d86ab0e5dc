import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAlive, waitForNoChildren, watchChildren } from '../helpers/child-processes.js';
import { bearer } from '../helpers/client.js';
import { convert, downloadToFile, pageText } from '../helpers/converter.js';
import { openSession, sha256, uploadFile } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { kidsCyclePdf, lyingCountPdf, pageText as hostileText, parentCyclePdf, sharedNodePdf } from '../helpers/hostile-pdf.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 11 for the converter: PDF input whose page tree lies or loops is repaired as the toolbox
 * repairs it (or refused as unreadable), never a 5xx or a broken result; and every step of a
 * conversion lives within one deadline (`converter.timeout`): a step that runs out answers -93 with
 * its process killed, and the document stays as it was.
 */
const HUGE = 2147483647;
const CRASHER = path.resolve(import.meta.dirname, '../fixtures/fuzz/crashers/slow-converter-1165.bin.gz');

const pdfinfo = (file: string, password?: string) => execFileSync('pdfinfo', [...(password === undefined ? [] : ['-upw', password]), file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const pagesOf = (file: string, password?: string) => Number(/^Pages:\s+(\d+)/m.exec(pdfinfo(file, password))?.[1] ?? NaN);
/** qpdf's own check: exit 0 and no warnings (a repaired file must not need repairing again). */
const qpdfCheck = (file: string, password?: string) =>
  execFileSync('qpdf', ['--check', ...(password === undefined ? [] : [`--password=${password}`]), file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
/** The /Count the file's page tree root declares (qpdf --show-npages prints exactly that). */
const declaredCount = (file: string, password?: string) =>
  Number(execFileSync('qpdf', ['--show-npages', ...(password === undefined ? [] : [`--password=${password}`]), file], { encoding: 'utf8' }).trim());

async function storedBytes(server: TestServer, token: string, documentId: string): Promise<Buffer> {
  const response = await fetch(`${server.rest}/documents/${documentId}`, { headers: bearer(token) });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

describe('converter: hostile PDF page trees', () => {
  const { server, session } = useTestServer();

  const cases = [
    { name: '/Count 2147483647 on one page', pdf: () => lyingCountPdf(HUGE), pages: 1 },
    { name: '/Count 2147483647 on three pages', pdf: () => lyingCountPdf(HUGE, 3), pages: 3 },
    { name: '/Count -5 on two pages', pdf: () => lyingCountPdf(-5, 2), pages: 2 },
  ];

  for (const { name, pdf, pages } of cases) {
    it(`${name}: converted whole, the result declares and has the real pages`, async () => {
      const uploaded = await uploadFile(server.rest, session.token, pdf(), 'lying.pdf');
      const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: {} });
      expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
      const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
      expect(pagesOf(file)).toBe(pages);
      expect(declaredCount(file)).toBe(pages);
      expect(qpdfCheck(file)).toMatch(/No syntax or stream encoding errors/);
      for (let page = 1; page <= pages; page++) expect(pageText(file, page)).toContain(hostileText(page));
    });

    it(`${name}: converted with pages "last", the result is that real page`, async () => {
      const uploaded = await uploadFile(server.rest, session.token, pdf(), 'lying.pdf');
      const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: { pages: 'last' } });
      expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
      const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
      expect(pagesOf(file)).toBe(1);
      expect(declaredCount(file)).toBe(1);
      expect(qpdfCheck(file)).toMatch(/No syntax or stream encoding errors/);
      expect(pageText(file, 1)).toContain(hostileText(pages));
    });
  }

  it('a page past the real end of a /Count 2147483647 file is a parameter error naming the real page count', async () => {
    const uploaded = await uploadFile(server.rest, session.token, lyingCountPdf(HUGE, 2), 'lying.pdf');
    const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: { pages: '3' } });
    expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -14 } });
    expect(outcome.error?.errorMessage).toMatch(/\b2 pages\b/);
  });

  it('a protected /Count 2147483647 file is repaired under its password and keeps its protection', async () => {
    const plain = path.join(server.dataDir, 'lying-plain.pdf');
    const locked = path.join(server.dataDir, 'lying-locked.pdf');
    writeFileSync(plain, lyingCountPdf(HUGE, 3));
    execFileSync('qpdf', ['--encrypt', 'geheim', 'geheim-owner', '256', '--', plain, locked]);
    expect(declaredCount(locked, 'geheim')).toBe(HUGE); // qpdf wrote the lie as it was
    const uploaded = await uploadFile(server.rest, session.token, readFileSync(locked), 'locked.pdf');

    const refused = await convert(server.rest, session.token, uploaded.documentId, { converter: { pages: '2' } });
    expect(refused).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -5009 } });

    const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: { pages: '2' }, password: { open: 'geheim' } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
    expect(() => pdfinfo(file)).toThrow(/password/i);
    expect(pagesOf(file, 'geheim')).toBe(1);
    expect(declaredCount(file, 'geheim')).toBe(1);
    expect(qpdfCheck(file, 'geheim')).toMatch(/No syntax or stream encoding errors/);
    expect(execFileSync('pdftotext', ['-upw', 'geheim', file, '-'], { encoding: 'utf8' })).toContain(hostileText(2));
  });

  for (const [name, pdf] of [
    ['a /Kids loop', kidsCyclePdf],
    ['a node listed twice', sharedNodePdf],
  ] as const) {
    for (const body of [{ converter: {} }, { converter: { pages: '1' } }]) {
      it(`${name} (${JSON.stringify(body.converter)}): refused as unreadable (-7), the document unchanged`, async () => {
        const content = pdf();
        const uploaded = await uploadFile(server.rest, session.token, content, 'loop.pdf');
        const outcome = await convert(server.rest, session.token, uploaded.documentId, body);
        expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -7 } });
        expect(sha256(await storedBytes(server, session.token, uploaded.documentId))).toBe(sha256(content));
      });
    }
  }

  it('a page tree root whose /Parent is its page converts to its one real page', async () => {
    for (const body of [{ converter: {} }, { converter: { pages: '1' } }]) {
      const uploaded = await uploadFile(server.rest, session.token, parentCyclePdf(), 'parent.pdf');
      const outcome = await convert(server.rest, session.token, uploaded.documentId, body);
      expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
      const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
      expect(pagesOf(file)).toBe(1);
      expect(pageText(file, 1)).toContain(hostileText(1));
    }
  });
});

/** An HTML page of `lines` lines of text and one 1,800-pixel image printed 3 inches wide (600 dpi). */
async function textWithImageHtml(lines: number): Promise<Buffer> {
  const png = await sharp({ create: { width: 1800, height: 1800, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .png()
    .toBuffer();
  const text = Array.from({ length: lines }, (_, i) => `line ${i} of text that Ghostscript has to write again glyph by glyph`).join('\n');
  return Buffer.from(`<!doctype html><html><body><img src="data:image/png;base64,${png.toString('base64')}" style="width:3in;height:3in"><pre>${text}</pre></body></html>`);
}

describe('converter: the down-sampling step', () => {
  const { server, session } = useTestServer({ engines: true, env: { QUIRE_ENGINES__LIBREOFFICE__WORKERS: '1', QUIRE_ENGINES__CHROMIUM__WORKERS: '1' } });

  it('fuzz crasher slow-converter-1165 (1.1 MB of nested XML, 130+ pages of text): reduceResolution starts no Ghostscript, there is no image', async () => {
    const uploaded = await uploadFile(server.rest, session.token, gunzipSync(readFileSync(CRASHER)), 'fuzz.xmp');
    const gs = watchChildren('gs');
    const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: { reduceResolution: true, dpi: 72, jpegQuality: 40 } });
    gs.stop();
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    expect([...gs.seen.values()]).toEqual([]);
    const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
    expect(pagesOf(file)).toBeGreaterThan(100);
    expect(
      execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
        .split('\n')
        .slice(2)
        .filter((l) => l.trim()),
    ).toEqual([]);
  }, 120_000);

  it('an image above the limit is still down-sampled (Ghostscript runs)', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await textWithImageHtml(40), 'image.html');
    const gs = watchChildren('gs');
    const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: { reduceResolution: true, dpi: 150 } });
    gs.stop();
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    expect(gs.seen.size).toBeGreaterThan(0);
    const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
    const widths = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => Number(l.trim().split(/\s+/)[3]));
    expect(widths.length).toBeGreaterThan(0);
    // 3 inches at 150 dpi: 450 pixels (the 1,800 of the original are gone).
    for (const width of widths) expect(width).toBeLessThanOrEqual(460);
  }, 120_000);

  it('report.fontIsMissing checks at most 100 of the fonts a document names and says so', async () => {
    const docx = await manyFontsDocx(300);
    const uploaded = await uploadFile(server.rest, session.token, docx, 'fonts.docx');
    const response = await fetch(`${server.rest}/converter/${uploaded.documentId}`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ converter: { report: { fontIsMissing: true } } }),
      redirect: 'manual',
    });
    expect(response.status, await response.text()).toBe(303);
    const warning = response.headers.get('warning') ?? '';
    // The document's own fonts (sample.docx names a few) count too: 300 and more, 100 checked.
    const missing = warning.match(/Font missing: \\"NoSuchFont/g) ?? [];
    expect(missing.length).toBeGreaterThan(90);
    expect(missing.length).toBeLessThanOrEqual(100);
    const named = /names (\d+) fonts; the first 100 were checked/.exec(warning);
    expect(Number(named?.[1])).toBeGreaterThanOrEqual(300);
  }, 120_000);
});

/** A DOCX (sample.docx) whose text asks for `count` fonts no system has. */
async function manyFontsDocx(count: number): Promise<Buffer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-fonts-docx-'));
  const sample = path.resolve(import.meta.dirname, '../fixtures/office/sample.docx');
  const documentXml = execFileSync('unzip', ['-p', sample, 'word/document.xml'], { encoding: 'utf8' });
  const runs = Array.from({ length: count }, (_, i) => `<w:r><w:rPr><w:rFonts w:ascii="NoSuchFont${i}" w:hAnsi="NoSuchFont${i}"/></w:rPr><w:t>f${i} </w:t></w:r>`).join('');
  const patched = documentXml.replace(/<w:body>/, `<w:body><w:p>${runs}</w:p>`);
  expect(patched).not.toBe(documentXml);
  mkdirSync(path.join(dir, 'word'));
  writeFileSync(path.join(dir, 'word/document.xml'), patched);
  copyFileSync(sample, path.join(dir, 'fonts.docx'));
  execFileSync('zip', ['-q', 'fonts.docx', 'word/document.xml'], { cwd: dir });
  return readFileSync(path.join(dir, 'fonts.docx'));
}

describe('converter: one deadline for the whole call (converter.timeout)', () => {
  let maker: TestServer;
  const { server, session } = useTestServer({ env: { QUIRE_CONVERTER__TIMEOUT: '3' } });
  /** A PDF Chromium printed: 140+ pages of text and an image at 600 dpi; Ghostscript needs a minute for it. */
  let heavyPdf: Buffer;

  beforeAll(async () => {
    maker = await startTestServer({ engines: true, env: { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false', QUIRE_ENGINES__CHROMIUM__WORKERS: '1' } });
    const makerSession = await openSession(maker.rest);
    const html = await uploadFile(maker.rest, makerSession.token, await textWithImageHtml(9000), 'heavy.html');
    const made = await convert(maker.rest, makerSession.token, html.documentId, { converter: {} });
    expect(made.status, JSON.stringify(made.error)).toBe(303);
    heavyPdf = await storedBytes(maker, makerSession.token, html.documentId);
    await maker.stop();
    // No engines: PDF and PostScript input need none. Three seconds for every step of a call.
  }, 120_000);

  it('Ghostscript down-sampling past the deadline is killed and answers -93; the document is unchanged', async () => {
    const uploaded = await uploadFile(server.rest, session.token, heavyPdf, 'heavy.pdf');
    const gs = watchChildren('gs');
    const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: { reduceResolution: true, dpi: 72 } });
    gs.stop();
    expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -93 } });
    expect(outcome.error?.errorMessage).toMatch(/converter\.timeout/);
    // It was Ghostscript that ran out of time, and it is gone.
    expect(gs.seen.size).toBeGreaterThan(0);
    expect(await waitForNoChildren('gs', 5_000)).toEqual([]);
    for (const pid of gs.seen.keys()) expect(isAlive(pid)).toBe(false);
    expect(sha256(await storedBytes(server, session.token, uploaded.documentId))).toBe(sha256(heavyPdf));
  }, 60_000);

  it('PostScript that never ends is killed at the deadline and answers -93', async () => {
    const uploaded = await uploadFile(server.rest, session.token, Buffer.from('%!PS-Adobe-3.0\n{ 1 pop } loop\nshowpage\n'), 'forever.ps');
    const gs = watchChildren('gs');
    const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: {} });
    gs.stop();
    expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -93 } });
    expect(gs.seen.size).toBeGreaterThan(0);
    expect(await waitForNoChildren('gs', 5_000)).toEqual([]);
  }, 60_000);

  it('within the deadline the same server converts (the budget is per call)', async () => {
    const uploaded = await uploadFile(server.rest, session.token, lyingCountPdf(HUGE, 2), 'small.pdf');
    const outcome = await convert(server.rest, session.token, uploaded.documentId, { converter: { reduceResolution: true, dpi: 72 } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    expect(pagesOf(await downloadToFile(server.rest, session.token, uploaded.documentId))).toBe(2);
  });
});
