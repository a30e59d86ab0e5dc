import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/client.js';
import { postWebService } from '../helpers/converter.js';
import { sha256 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { qpdfCheck, scratchDir } from '../helpers/pdf-tools.js';
import { bboxWords, imagePdf, scanPage, textPdf, wordAccuracy, type Line } from '../operations/ocr/scans.js';

/**
 * POST ocr/{documentId} (reference §10.5) on a real server with the real Tesseract pool, on scans
 * the test makes (pdf-lib text → pdftoppm → an image-only PDF page). Results judged by poppler
 * (pdftotext, pdftotext -bbox, pdfimages, pdfinfo) and qpdf, never by the service's code.
 */

const { server, session, upload, download } = useTestServer();
const scratch = scratchDir('ocr-http');
afterAll(() => scratch.remove());

const ocr = (documentId: string, body: unknown) => postWebService(`${server.rest}/ocr/${documentId}`, session.token, body);

const ENGLISH: Line[] = [
  { text: 'Searchable scans for everyone', x: 20, y: 150, size: 16 },
  { text: 'The quick brown fox jumps', x: 20, y: 110, size: 16 },
  { text: 'over the lazy dog 1234', x: 20, y: 70, size: 16 },
];
const GERMAN: Line[] = [
  { text: 'Grüße aus der Straße', x: 20, y: 150, size: 16 },
  { text: 'Äpfel, Öl und Übermut', x: 20, y: 110, size: 16 },
  { text: 'schließen große Türen', x: 20, y: 70, size: 16 },
];
const words = (lines: readonly Line[]) => lines.map((line) => line.text).join(' ');

/** An image-only PDF of `pages` (each a list of lines) scanned at `dpi`. */
async function scannedPdf(name: string, pages: readonly (readonly Line[])[], dpi = 300): Promise<string> {
  const source = await textPdf(scratch.file(`${name}-source.pdf`), pages);
  const pngs = [];
  for (let page = 1; page <= pages.length; page++) pngs.push(await scanPage(source, page, dpi, scratch.file(`${name}-${page}.png`)));
  return imagePdf(scratch.file(`${name}.pdf`), pngs);
}

/** The images of a PDF as pdfimages writes them, by hash. */
function imageHashes(pdf: string, name: string): string[] {
  const prefix = scratch.file(`${name}-img`);
  execFileSync('pdfimages', ['-all', pdf, prefix]);
  const list = execFileSync('sh', ['-c', `ls ${prefix}-*`], { encoding: 'utf8' })
    .trim()
    .split('\n');
  return list.map((file) => sha256(readFileSync(file)));
}

/** The decoded content streams of page 1, as qpdf lists and decodes them. */
function pageContents(pdf: string): Buffer[] {
  const pages = execFileSync('qpdf', ['--show-pages', pdf], { encoding: 'utf8' });
  const first = pages.split(/^page 2:/m)[0]!;
  const refs = [...first.matchAll(/^\s+(\d+) (\d+) R$/gm)].map((match) => `${match[1]},${match[2]}`);
  return refs.map((ref) => execFileSync('qpdf', [`--show-object=${ref}`, '--filtered-stream-data', pdf]));
}

/** Every stream of a PDF, decoded, as qpdf's JSON gives it (Base64). */
function streamsOf(pdf: string): string[] {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-stream-data=inline', pdf], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as {
    qpdf: [unknown, Record<string, { stream?: { data?: string } }>];
  };
  return Object.values(json.qpdf[1]).flatMap((object) => (object.stream?.data === undefined ? [] : [object.stream.data]));
}

describe('ocr outputFormat pdf', () => {
  it('adds an invisible text layer over an image-only page: pdftotext finds the words where they are drawn, the image is unchanged', async () => {
    const input = await scannedPdf('eng', [ENGLISH]);
    const uploaded = await upload(readFileSync(input), 'scan.pdf');
    expect(execFileSync('pdftotext', [input, '-'], { encoding: 'utf8' }).trim()).toBe('');
    const outcome = await ocr(uploaded.documentId, { ocr: { language: 'eng' } });
    expect(outcome.status).toBe(303);
    const result = await download(uploaded.documentId);
    qpdfCheck(result);
    const text = execFileSync('pdftotext', [result, '-'], { encoding: 'utf8' });
    expect(wordAccuracy(words(ENGLISH), text)).toBeGreaterThanOrEqual(0.98);
    // Each word where pdf-lib drew it: "brown" starts after "The quick " on the line at baseline 110.
    const found = bboxWords(result);
    const brown = found.find((word) => word.text === 'brown')!;
    const font = 16;
    // Top-left coordinates: the baseline is at 200 - 110 = 90 pt; the word's box spans about the cap height above it.
    expect(Math.abs(brown.yMax - 90)).toBeLessThan(5);
    const searchable = found.find((word) => word.text === 'Searchable')!;
    expect(Math.abs(searchable.xMin - 20)).toBeLessThan(3);
    expect(brown.xMin).toBeGreaterThan(20 + font * 3);
    // The original image, byte for byte; the page has the same size.
    expect(imageHashes(result, 'after')).toEqual(imageHashes(input, 'before'));
    // The page's own content stream is still there, byte for byte (qpdf's overlay draws it as a form
    // XObject next to the text layer's): nothing of what the page draws was rewritten.
    const original = pageContents(input);
    expect(original.length).toBeGreaterThan(0);
    const after = streamsOf(result);
    for (const stream of original) expect(after).toContain(stream.toString('base64'));
    expect(execFileSync('pdfinfo', [result], { encoding: 'utf8' })).toMatch(/Page size:\s+300 x 200 pts/);
  });

  it('recognises German with umlauts and ß (language deu)', async () => {
    const uploaded = await upload(readFileSync(await scannedPdf('deu', [GERMAN])), 'scan.pdf');
    expect((await ocr(uploaded.documentId, { ocr: { language: 'deu' } })).status).toBe(303);
    const text = execFileSync('pdftotext', [await download(uploaded.documentId), '-'], { encoding: 'utf8' });
    for (const word of ['Grüße', 'Straße', 'Äpfel', 'Öl', 'Übermut', 'schließen', 'große', 'Türen']) expect(text).toContain(word);
    expect(wordAccuracy(words(GERMAN), text)).toBeGreaterThanOrEqual(0.97);
  });

  it('recognises only the scanned page of a PDF whose other page has text, and says so in a Warning', async () => {
    const scan = await scanPage(await textPdf(scratch.file('mixed-source.pdf'), [ENGLISH]), 1, 300, scratch.file('mixed.png'));
    const input = await imagePdf(scratch.file('mixed.pdf'), [scan, scan], 300, 200, [[{ text: 'Already text here', x: 20, y: 100, size: 14 }], undefined]);
    const uploaded = await upload(readFileSync(input), 'mixed.pdf');
    const response = await fetch(`${server.rest}/ocr/${uploaded.documentId}`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ ocr: {} }),
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('warning')).toMatch(/forceEachPage.*1/);
    const result = await download(uploaded.documentId);
    const page1 = execFileSync('pdftotext', ['-f', '1', '-l', '1', result, '-'], { encoding: 'utf8' });
    expect(page1.trim()).toBe('Already text here');
    const page2 = execFileSync('pdftotext', ['-f', '2', '-l', '2', result, '-'], { encoding: 'utf8' });
    expect(page2).toContain('quick brown fox');
  });

  it('makes a PNG a page of the requested size with its text (the official client test body)', async () => {
    const png = await scanPage(await textPdf(scratch.file('png-source.pdf'), [ENGLISH]), 1, 300, scratch.file('image.png'));
    const uploaded = await upload(readFileSync(png), 'image.png');
    const outcome = await ocr(uploaded.documentId, { ocr: { language: 'eng', outputFormat: 'pdf', checkResolution: false, imageDpi: 200, page: { height: 210, width: 148, metrics: 'mm' } } });
    expect(outcome.status).toBe(303);
    const result = await download(uploaded.documentId);
    // 148 × 210 mm = 419.5 × 595.3 pt.
    expect(execFileSync('pdfinfo', [result], { encoding: 'utf8' })).toMatch(/Page size:\s+419\.5\d* x 595\.2\d* pts/);
    expect(execFileSync('pdftotext', [result, '-'], { encoding: 'utf8' })).toContain('quick brown fox');
  });
});

describe('ocr outputFormat text and hocr', () => {
  it('text: UTF-8, one form feed between pages', async () => {
    const uploaded = await upload(readFileSync(await scannedPdf('text', [ENGLISH, GERMAN])), 'two.pdf');
    expect((await ocr(uploaded.documentId, { ocr: { outputFormat: 'text', language: 'deu' } })).status).toBe(303);
    const text = readFileSync(await download(uploaded.documentId, 'txt'), 'utf8');
    const pages = text.split('\f');
    expect(pages).toHaveLength(2);
    expect(pages[0]).toContain('Searchable');
    expect(pages[1]).toContain('Grüße');
  });

  it('hocr: one XHTML document with ocr_page and ocrx_word elements and their boxes', async () => {
    const uploaded = await upload(readFileSync(await scannedPdf('hocr', [ENGLISH, ENGLISH])), 'two.pdf');
    expect((await ocr(uploaded.documentId, { ocr: { outputFormat: 'hocr' } })).status).toBe(303);
    const hocr = readFileSync(await download(uploaded.documentId, 'html'), 'utf8');
    expect(hocr.match(/class='ocr_page'/g)).toHaveLength(2);
    expect(hocr).toMatch(/id='page_2'/);
    expect(hocr).toMatch(/<span class='ocrx_word' id='word_2_\d+' title='bbox \d+ \d+ \d+ \d+; x_wconf \d+'[^>]*>fox<\/span>/);
    // Ids stay unique across pages.
    const ids = [...hocr.matchAll(/id='([^']+)'/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('ocr on a multi-page TIFF', () => {
  it('recognises every page of the TIFF (one page per frame of the requested size)', async () => {
    const source = await textPdf(scratch.file('tiff-source.pdf'), [ENGLISH, GERMAN]);
    const frames = [await scanPage(source, 1, 300, scratch.file('tiff-1.png')), await scanPage(source, 2, 300, scratch.file('tiff-2.png'))];
    const tiff = scratch.file('two.tiff');
    await sharp(frames, { join: { animated: true } })
      .tiff()
      .toFile(tiff);
    expect((await sharp(tiff).metadata()).pages).toBe(2);
    const uploaded = await upload(readFileSync(tiff), 'two.tiff');
    const outcome = await ocr(uploaded.documentId, { ocr: { outputFormat: 'text', language: 'deu', page: { width: 300, height: 200, metrics: 'pt' } } });
    expect(outcome.error).toBeUndefined();
    const pages = readFileSync(await download(uploaded.documentId, 'txt'), 'utf8').split('\f');
    expect(pages).toHaveLength(2);
    expect(pages[0]).toContain('Searchable');
    expect(pages[1]).toContain('Grüße');
  });
});

describe('ocr refusals leave the document as it was', () => {
  it('refuses a scan below 200 dpi with -200 naming the dpi found', async () => {
    const input = await scannedPdf('low', [ENGLISH], 150);
    const uploaded = await upload(readFileSync(input), 'low.pdf');
    const before = sha256(readFileSync(await download(uploaded.documentId)));
    const outcome = await ocr(uploaded.documentId, { ocr: {} });
    expect(outcome.status).toBe(400);
    expect(outcome.contentType).toBe('application/json');
    expect(outcome.error!.errorCode).toBe(-200);
    expect(outcome.error!.errorMessage).toMatch(/page 1: 150 dpi/);
    expect(sha256(readFileSync(await download(uploaded.documentId)))).toBe(before);
  });

  it('failOnWarning: a skipped text page fails the call with -201', async () => {
    const uploaded = await upload(readFileSync(await textPdf(scratch.file('text-only.pdf'), [ENGLISH])), 'text.pdf');
    const before = sha256(readFileSync(await download(uploaded.documentId)));
    const outcome = await ocr(uploaded.documentId, { ocr: { failOnWarning: true } });
    expect(outcome.error?.errorCode).toBe(-201);
    expect(sha256(readFileSync(await download(uploaded.documentId)))).toBe(before);
  });

  it('a password-protected PDF: -5009 without the password; with it OCR’d and encrypted again', async () => {
    const plain = await scannedPdf('protected', [ENGLISH]);
    const locked = scratch.file('locked.pdf');
    execFileSync('qpdf', ['--encrypt', 'geheim', 'owner', '256', '--', plain, locked]);
    const uploaded = await upload(readFileSync(locked), 'locked.pdf');
    const before = sha256(readFileSync(await download(uploaded.documentId)));
    const refused = await ocr(uploaded.documentId, { ocr: {} });
    expect(refused.status).toBe(400);
    expect(refused.error!.errorCode).toBe(-5009);
    expect(sha256(readFileSync(await download(uploaded.documentId)))).toBe(before);

    expect((await ocr(uploaded.documentId, { ocr: {}, password: { open: 'geheim' } })).status).toBe(303);
    const result = await download(uploaded.documentId);
    expect(execFileSync('qpdf', ['--show-encryption', '--password=geheim', result], { encoding: 'utf8' })).toMatch(/R = 6/);
    expect(execFileSync('pdftotext', ['-upw', 'geheim', result, '-'], { encoding: 'utf8' })).toContain('quick brown fox');
  });

  it('bad payloads: 400 naming the field', async () => {
    const uploaded = await upload(readFileSync(await scannedPdf('bad', [ENGLISH])), 'bad.pdf');
    const outcome = await ocr(uploaded.documentId, { ocr: { language: 'klingon' } });
    expect(outcome.status).toBe(400);
    expect(outcome.error!.errorMessage).toMatch(/language/);
  });
});

describe('ocr normalizePageRotation', () => {
  it('turns a sideways scan upright (/Rotate) and places its text layer over the words', async () => {
    const upright = await scanPage(await textPdf(scratch.file('turn-source.pdf'), [ENGLISH]), 1, 300, scratch.file('turn-upright.png'));
    const sideways = scratch.file('turn-sideways.png');
    await sharp(upright).rotate(90).withMetadata({ density: 300 }).toFile(sideways);
    // The scan lies on a portrait page (200 × 300 pt), its lines running top to bottom.
    const input = await imagePdf(scratch.file('turn.pdf'), [sideways], 200, 300);
    const uploaded = await upload(readFileSync(input), 'turned.pdf');
    const outcome = await ocr(uploaded.documentId, { ocr: { normalizePageRotation: true } });
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe(303);
    const result = await download(uploaded.documentId);
    expect(execFileSync('pdfinfo', [result], { encoding: 'utf8' })).toMatch(/Page rot:\s+270/);
    const text = execFileSync('pdftotext', [result, '-'], { encoding: 'utf8' });
    expect(wordAccuracy(words(ENGLISH), text)).toBeGreaterThanOrEqual(0.98);
    // As displayed (turned upright: 300 × 200), "Searchable" starts 20 pt from the left, its line 50 pt from the top.
    const searchable = bboxWords(result).find((word) => word.text === 'Searchable')!;
    expect(Math.abs(searchable.xMin - 20)).toBeLessThan(4);
    expect(Math.abs(searchable.yMax - 50)).toBeLessThan(5);
    expect(imageHashes(result, 'turn-after')).toEqual(imageHashes(input, 'turn-before'));
  });
});

describe('ocr on harder scans', () => {
  it('reads a scan skewed by 3° with speckle noise, with the optimization filters on', async () => {
    const clean = await scanPage(await textPdf(scratch.file('skew-source.pdf'), [ENGLISH]), 1, 300, scratch.file('skew-clean.png'));
    const { data, info } = await sharp(clean).rotate(3, { background: '#ffffff' }).greyscale().raw().toBuffer({ resolveWithObject: true });
    // Deterministic speckles: every 97th pixel flipped dark.
    for (let i = 0; i < data.length; i += 97) data[i] = 40;
    const noisy = scratch.file('skew-noisy.png');
    await sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } })
      .withMetadata({ density: 300 })
      .png()
      .toFile(noisy);
    const input = await imagePdf(scratch.file('skew.pdf'), [noisy], (info.width * 72) / 300, (info.height * 72) / 300);
    const uploaded = await upload(readFileSync(input), 'skew.pdf');
    const outcome = await ocr(uploaded.documentId, { ocr: { optimization: { despeckle: true, medianFilter: 'low' } } });
    expect(outcome.status).toBe(303);
    const text = execFileSync('pdftotext', [await download(uploaded.documentId), '-'], { encoding: 'utf8' });
    expect(wordAccuracy(words(ENGLISH), text)).toBeGreaterThanOrEqual(0.9);
    expect(imageHashes(await download(uploaded.documentId), 'skew-after')).toEqual(imageHashes(input, 'skew-before'));
  });

  it('a page that yields no text is a warning; with failOnWarning the call fails with -201', async () => {
    const blank = scratch.file('blank.png');
    await sharp({ create: { width: 1250, height: 833, channels: 3, background: '#ffffff' } })
      .withMetadata({ density: 300 })
      .png()
      .toFile(blank);
    const uploaded = await upload(readFileSync(await imagePdf(scratch.file('blank.pdf'), [blank])), 'blank.pdf');
    const outcome = await ocr(uploaded.documentId, { ocr: { failOnWarning: true } });
    expect(outcome.error?.errorCode).toBe(-201);
    expect(outcome.error?.errorMessage).toMatch(/page 1: no text/);
  });
});

describe('ocr.pdfa', () => {
  it('runs the PDF/A step on the searchable PDF in the same call', async () => {
    const uploaded = await upload(readFileSync(await scannedPdf('pdfa', [ENGLISH])), 'scan.pdf');
    const outcome = await ocr(uploaded.documentId, { ocr: { pdfa: { convert: { level: '2b' } } } });
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe(303);
    const result = await download(uploaded.documentId);
    expect(execFileSync('pdfinfo', ['-meta', result], { encoding: 'utf8' })).toMatch(/pdfaid:part(>|=")2/);
    expect(execFileSync('pdftotext', [result, '-'], { encoding: 'utf8' })).toContain('quick brown fox');
  });

  it('refuses ocr.pdfa with a text output (400 naming the field)', async () => {
    const uploaded = await upload(readFileSync(await scannedPdf('pdfa-text', [ENGLISH])), 'scan.pdf');
    const outcome = await ocr(uploaded.documentId, { ocr: { outputFormat: 'text', pdfa: { convert: { level: '2b' } } } });
    expect(outcome.status).toBe(400);
    expect(outcome.error!.errorMessage).toMatch(/ocr\.pdfa/);
  });
});
