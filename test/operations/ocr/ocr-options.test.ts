import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { postWebService } from '../../helpers/converter.js';
import { useTestServer } from '../../helpers/fixture.js';
import { qpdfCheck, scratchDir } from '../../helpers/pdf-tools.js';
import { bboxWords, scanPage, textPdf, wordAccuracy, type Line } from './scans.js';

/**
 * The ocr options that change what the user's pages are made of (imageDpi, jpegQuality) and
 * forceEachPage on a page that has text, on a real server with the real Tesseract pool; judged by
 * poppler (pdfimages -list, pdftotext), never by the service's code.
 */

const { server, session, upload, download } = useTestServer();
const scratch = scratchDir('ocr-options');
afterAll(() => scratch.remove());

const ocr = (documentId: string, body: unknown) => postWebService(`${server.rest}/ocr/${documentId}`, session.token, body);

const LINES: Line[] = [
  { text: 'Searchable scans for everyone', x: 20, y: 150, size: 16 },
  { text: 'The quick brown fox jumps', x: 20, y: 110, size: 16 },
  { text: 'over the lazy dog 1234', x: 20, y: 70, size: 16 },
];
const words = (lines: readonly Line[]) => lines.map((line) => line.text).join(' ');

/** pdfimages -list of a PDF: encoding, pixel size, x-ppi and bytes of each image. */
function imageList(pdf: string): { enc: string; width: number; height: number; xppi: number; yppi: number; bytes: number }[] {
  return execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 14 && cols[2] === 'image')
    .map((cols) => ({ width: Number(cols[3]), height: Number(cols[4]), enc: cols[8]!, xppi: Number(cols[12]), yppi: Number(cols[13]), bytes: parseSize(cols[14]!) }));
}

function parseSize(text: string): number {
  const match = /^([\d.]+)([BKM])$/.exec(text);
  if (!match) return Number.NaN;
  return Number(match[1]) * { B: 1, K: 1024, M: 1024 * 1024 }[match[2] as 'B' | 'K' | 'M'];
}

/** 300 × 200 pt of LINES scanned at 300 dpi (1250 × 833 px): on a 106 × 71 mm page that is ~300 dpi. */
async function scan300(name: string, format: 'png' | 'jpeg'): Promise<string> {
  const png = await scanPage(await textPdf(scratch.file(`${name}-source.pdf`), [LINES]), 1, 300, scratch.file(`${name}.png`));
  if (format === 'png') return png;
  const jpeg = scratch.file(`${name}.jpg`);
  await sharp(png).withMetadata({ density: 300 }).jpeg({ quality: 95 }).toFile(jpeg);
  return jpeg;
}

const PAGE = { width: 106, height: 71, metrics: 'mm' };

describe('ocr imageDpi and jpegQuality (images that become pages)', () => {
  it('imageDpi (default 200) re-samples a 300-dpi image to 200 dpi on its page; 0 keeps it; the text is recognised either way', async () => {
    const png = await scan300('dpi', 'png');
    const byDefault = await upload(readFileSync(png), 'scan.png');
    expect((await ocr(byDefault.documentId, { ocr: { page: PAGE } })).status).toBe(303);
    const reduced = await download(byDefault.documentId);
    qpdfCheck(reduced);
    const [small] = imageList(reduced);
    expect(small!.xppi).toBeGreaterThanOrEqual(199);
    expect(small!.xppi).toBeLessThanOrEqual(201);
    expect(small!.width).toBeLessThan(900);
    expect(wordAccuracy(words(LINES), execFileSync('pdftotext', [reduced, '-'], { encoding: 'utf8' }))).toBeGreaterThanOrEqual(0.98);

    const kept = await upload(readFileSync(png), 'scan.png');
    expect((await ocr(kept.documentId, { ocr: { page: PAGE, imageDpi: 0 } })).status).toBe(303);
    const full = await download(kept.documentId);
    const [large] = imageList(full);
    expect(large!.width).toBe(1250);
    expect(large!.xppi).toBeGreaterThanOrEqual(295);
    expect(wordAccuracy(words(LINES), execFileSync('pdftotext', [full, '-'], { encoding: 'utf8' }))).toBeGreaterThanOrEqual(0.98);
    // The text layer lies over the words on both: the same word at the same place (points).
    const box = (pdf: string) => /<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>quick<\/word>/.exec(execFileSync('pdftotext', ['-bbox', pdf, '-'], { encoding: 'utf8' }));
    expect(Math.abs(Number(box(reduced)![1]) - Number(box(full)![1]))).toBeLessThan(2);
    expect(Math.abs(Number(box(reduced)![2]) - Number(box(full)![2]))).toBeLessThan(2);
  });

  it('jpegQuality sets the quality of a JPEG re-encoded at imageDpi (pdfimages: jpeg, smaller at a lower quality)', async () => {
    const jpeg = await scan300('quality', 'jpeg');
    const sizes: number[] = [];
    for (const quality of [20, 95]) {
      const uploaded = await upload(readFileSync(jpeg), 'scan.jpg');
      expect((await ocr(uploaded.documentId, { ocr: { page: PAGE, imageDpi: 150, checkResolution: true, jpegQuality: quality } })).status).toBe(303);
      const [image] = imageList(await download(uploaded.documentId));
      expect(image!.enc).toBe('jpeg');
      expect(image!.xppi).toBeGreaterThanOrEqual(149);
      expect(image!.xppi).toBeLessThanOrEqual(151);
      sizes.push(image!.bytes);
    }
    expect(sizes[0]!).toBeLessThan(sizes[1]! * 0.7);
  });
});

describe('ocr forceEachPage on a page that has text', () => {
  it('adds only the words inside the page image: pdftotext finds every word once', async () => {
    // A page of its own text (top) with a scanned picture of other words below it.
    const scanned: Line[] = [{ text: 'Pictured invoice number 4711', x: 10, y: 30, size: 16 }];
    const picture = await scanPage(await textPdf(scratch.file('force-picture.pdf'), [scanned], 300, 60), 1, 300, scratch.file('force-picture.png'));
    const document = await PDFDocument.create();
    const font = await document.embedFont(StandardFonts.Helvetica);
    const page = document.addPage([300, 200]);
    page.drawText('Typed heading above', { x: 20, y: 160, size: 16, font });
    page.drawImage(await document.embedPng(readFileSync(picture)), { x: 0, y: 20, width: 300, height: 60 });
    const input = scratch.file('force.pdf');
    writeFileSync(input, await document.save());

    const uploaded = await upload(readFileSync(input), 'force.pdf');
    const outcome = await ocr(uploaded.documentId, { ocr: { forceEachPage: true, failOnWarning: true } });
    expect(outcome.status).toBe(303);
    const text = execFileSync('pdftotext', [await download(uploaded.documentId), '-'], { encoding: 'utf8' });
    const found = text.split(/\s+/).filter(Boolean);
    for (const word of ['Typed', 'heading', 'above', 'Pictured', 'invoice', 'number', '4711']) expect(found.filter((w) => w === word)).toHaveLength(1);
  });
});

describe("ocr forceEachPage on a page OCR'd before", () => {
  it('leaves a page whose text is an OCR layer already as it is (a Warning names it): every word once', async () => {
    const source = await textPdf(scratch.file('again-source.pdf'), [LINES]);
    const png = await scanPage(source, 1, 300, scratch.file('again.png'));
    const uploaded = await upload(readFileSync(png), 'again.png');
    expect((await ocr(uploaded.documentId, { ocr: { page: PAGE } })).status).toBe(303);
    const first = execFileSync('pdftotext', [await download(uploaded.documentId), '-'], { encoding: 'utf8' });
    expect(wordAccuracy(words(LINES), first)).toBeGreaterThanOrEqual(0.98);
    const response = await fetch(`${server.rest}/ocr/${uploaded.documentId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ocr: { forceEachPage: true } }),
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('warning')).toMatch(/OCR text layer already.*1/);
    const again = execFileSync('pdftotext', [await download(uploaded.documentId), '-'], { encoding: 'utf8' })
      .split(/\s+/)
      .filter(Boolean);
    for (const word of ['Searchable', 'quick', 'lazy']) expect(again.filter((found) => found === word)).toHaveLength(1);
  });
});

describe('ocr language beyond the reference five', () => {
  it('takes Tesseract codes joined by +; a code whose data is missing is -203 naming its Debian package; a non-code is 400', async () => {
    const png = await scan300('languages', 'png');
    const both = await upload(readFileSync(png), 'scan.png');
    expect((await ocr(both.documentId, { ocr: { page: PAGE, language: 'eng+deu', outputFormat: 'text' } })).status).toBe(303);
    expect(wordAccuracy(words(LINES), readFileSync(await download(both.documentId, 'txt'), 'utf8'))).toBeGreaterThanOrEqual(0.98);

    // Dutch is not among the packages quire.sh installs.
    expect(existsSync('/usr/share/tesseract-ocr/5/tessdata/nld.traineddata')).toBe(false);
    const missing = await upload(readFileSync(png), 'scan.png');
    const refused = await ocr(missing.documentId, { ocr: { page: PAGE, language: 'eng+nld' } });
    expect(refused.status).toBe(503);
    expect(refused.error).toMatchObject({ errorCode: -203 });
    expect(refused.error!.errorMessage).toContain('tesseract-ocr-nld');

    const bad = await ocr(missing.documentId, { ocr: { language: '../../etc/passwd' } });
    expect(bad.status).toBe(400);
    expect(bad.error!.errorMessage).toMatch(/language/);
  });
});

describe('ocr normalizePageRotation on an image input', () => {
  it('a PNG scanned upside down becomes a page shown upright (/Rotate 180), its image at imageDpi, the text layer over the words', async () => {
    const png = await scan300('upside', 'png');
    const upsideDown = scratch.file('upside-down.png');
    await sharp(png).rotate(180).withMetadata({ density: 300 }).png().toFile(upsideDown);
    const uploaded = await upload(readFileSync(upsideDown), 'upside-down.png');
    const outcome = await ocr(uploaded.documentId, { ocr: { page: PAGE, normalizePageRotation: true } });
    expect(outcome.status).toBe(303);
    const result = await download(uploaded.documentId);
    qpdfCheck(result);
    expect(execFileSync('pdfinfo', [result], { encoding: 'utf8' })).toMatch(/Page rot:\s+180/);
    expect(imageList(result)[0]!.xppi).toBeLessThanOrEqual(201);
    expect(wordAccuracy(words(LINES), execFileSync('pdftotext', [result, '-'], { encoding: 'utf8' }))).toBeGreaterThanOrEqual(0.98);
    // As displayed (upright), "Searchable" starts 20 pt from the left, its baseline 50 pt from the top.
    const searchable = bboxWords(result).find((word) => word.text === 'Searchable')!;
    expect(Math.abs(searchable.xMin - 20)).toBeLessThan(5);
    expect(Math.abs(searchable.yMax - 50)).toBeLessThan(6);
  });
});
