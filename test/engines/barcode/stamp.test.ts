import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { PDFDocument } from '@cantoo/pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeCode, newDocumentWithCodes, stampCodes } from '../../../src/engines/barcode/drawing.js';
import type { CodeStamp, Symbology } from '../../../src/engines/barcode/index.js';
import { labelledPdf, pdfinfo, qpdfCheck, scratchDir, textOf } from '../../helpers/pdf-tools.js';
import { javaZxing, javaZxingAvailable, MM, renderPage, zbar } from './readers.js';

/**
 * The barcode engine's stamping on real PDFs: every symbology drawn as vector paths, the page
 * rendered by pdftoppm, only the requested box cropped out and read by another reader (zbarimg, Java
 * ZXing) → the exact value.
 */

const scratch = scratchDir('barcode-stamp');
afterAll(() => scratch.remove());

/** What zbarimg calls each symbology (undefined: zbar cannot read it; Java ZXing's name instead). */
const CASES: { symbology: Symbology; value: string; zbar?: string; zxing?: string; expected?: string; size: [number, number] }[] = [
  { symbology: 'qrcode', value: 'https://www.webpdf.de', zbar: 'QR-Code', size: [30, 30] },
  { symbology: 'ean13', value: '5901234123457', zbar: 'EAN-13', size: [50, 25] },
  { symbology: 'ean13', value: '590123412345', zbar: 'EAN-13', expected: '5901234123457', size: [50, 25] },
  { symbology: 'ean8', value: '90311017', zbar: 'EAN-8', size: [40, 25] },
  { symbology: 'upca', value: '03600029145', zbar: 'UPC-A', expected: '036000291452', size: [50, 25] },
  { symbology: 'code128', value: 'Quire-128 ok', zbar: 'CODE-128', size: [60, 20] },
  { symbology: 'code39', value: 'ABC-123', zbar: 'CODE-39', size: [60, 20] },
  { symbology: 'codabar', value: 'A12345B', zbar: 'Codabar', size: [50, 20] },
  { symbology: 'itf', value: '12345678', zbar: 'I2/5', size: [50, 20] },
  { symbology: 'aztec', value: 'Aztec text', zxing: 'AZTEC', size: [25, 25] },
  { symbology: 'datamatrix', value: 'DataMatrix text', zxing: 'DATA_MATRIX', size: [25, 25] },
  { symbology: 'pdf417', value: 'PDF417 text', zxing: 'PDF_417', size: [80, 25] },
];

function readBox(pdf: string, page: number, box: { x: number; y: number; width: number; height: number }, name: string, dpi?: number): { zbar: string[]; zxing: () => ReturnType<typeof javaZxing> } {
  const png = renderPage(pdf, page, scratch.file(name), { box, pad: 4 * MM, ...(dpi ? { dpi } : {}) });
  return { zbar: zbar(png), zxing: () => javaZxing(png) };
}

function stampAt(symbology: Symbology, value: string, box: { x: number; y: number; width: number; height: number }, rotation = 0, extra: Partial<CodeStamp> = {}): CodeStamp {
  return { shape: encodeCode({ symbology, value, margin: 0 }), pages: [1], position: { ...box, metrics: 'mm', coordinates: 'user' }, rotation, ...extra };
}

describe('stampCodes', () => {
  it('draws every symbology at its box: a crop of the box reads back the exact value with an independent reader', async () => {
    const input = await labelledPdf(scratch.file('in.pdf'));
    const boxes = CASES.map((c, i) => ({ x: 10 + (i % 2) * 100, y: 30 + Math.floor(i / 2) * 42, width: c.size[0], height: c.size[1] }));
    const output = scratch.file('all.pdf');
    await stampCodes(input, output, () => CASES.map((c, i) => stampAt(c.symbology, c.value, boxes[i]!)));
    qpdfCheck(output);
    // The page's own content is still there.
    expect(textOf(output)).toContain('PAGE-1');
    CASES.forEach((c, i) => {
      const box = boxes[i]!;
      const found = readBox(output, 1, { x: box.x * MM, y: box.y * MM, width: box.width * MM, height: box.height * MM }, `case-${i}`);
      const expected = c.expected ?? c.value;
      if (c.zbar) expect(found.zbar, c.symbology).toEqual([`${c.zbar}:${expected}`]);
      else if (javaZxingAvailable) expect(found.zxing(), c.symbology).toEqual({ format: c.zxing, text: expected });
    });
  });

  it('draws vector paths, no images, and adds little per page: one form shared by all pages', async () => {
    const input = await labelledPdf(
      scratch.file('ten.pdf'),
      Array.from({ length: 10 }, () => [595, 842] as [number, number]),
    );
    const output = scratch.file('ten-out.pdf');
    await stampCodes(input, output, (count) => [stampAt('qrcode', 'per page', { x: 10, y: 10, width: 20, height: 20 }, 0, { pages: Array.from({ length: count }, (_, i) => i + 1) })]);
    expect(execFileSync('pdfimages', ['-list', output], { encoding: 'utf8' }).trim().split('\n').length).toBe(2); // header lines only
    const grown = statSync(output).size - statSync(input).size;
    expect(grown / 10).toBeLessThan(2048);
    for (const page of [1, 10]) expect(zbar(renderPage(output, page, scratch.file(`ten-${page}`)))).toEqual(['QR-Code:per page']);
  });

  it.each([90, 180, 270, 30])('turns codes clockwise by %i°: the turned code lies in its box and reads back', async (rotation) => {
    const input = await labelledPdf(scratch.file(`rot-${rotation}.pdf`));
    const output = scratch.file(`rot-${rotation}-out.pdf`);
    const sideways = rotation === 90 || rotation === 270;
    const linear = { x: 20, y: 40, width: sideways ? 22 : 60, height: sideways ? 60 : 22 };
    const qr = { x: 120, y: 40, width: 40, height: 40 };
    await stampCodes(input, output, () => [stampAt('code128', 'TURN-128', linear, rotation), stampAt('qrcode', `turned ${rotation}`, qr, rotation)]);
    const mm = (b: typeof linear) => ({ x: b.x * MM, y: b.y * MM, width: b.width * MM, height: b.height * MM });
    expect(readBox(output, 1, mm(linear), `rot-${rotation}-a`).zbar).toEqual(['CODE-128:TURN-128']);
    expect(readBox(output, 1, mm(qr), `rot-${rotation}-b`).zbar).toEqual([`QR-Code:turned ${rotation}`]);
  });

  it('places in user coordinates on a /Rotate 90 page as displayed, and in pdf coordinates from the bottom-left of the unrotated page', async () => {
    const base = await labelledPdf(scratch.file('rotated-base.pdf'));
    const document = await PDFDocument.load(await import('node:fs').then((fs) => fs.readFileSync(base)));
    document.getPage(0).setRotation({ type: 'degrees', angle: 90 } as never);
    const rotated = scratch.file('rotated.pdf');
    await import('node:fs').then(async (fs) => fs.writeFileSync(rotated, await document.save()));
    const output = scratch.file('rotated-out.pdf');
    // Displayed, the page is 842 × 595 pt (landscape): a QR 30 mm from the top-left corner as seen.
    await stampCodes(rotated, output, () => [stampAt('qrcode', 'user on rotated', { x: 30, y: 30, width: 40, height: 40 })]);
    expect(readBox(output, 1, { x: 30 * MM, y: 30 * MM, width: 40 * MM, height: 40 * MM }, 'rot-user').zbar).toEqual(['QR-Code:user on rotated']);

    const pdfCoordinates = scratch.file('pdf-coords.pdf');
    const plain = await labelledPdf(scratch.file('plain.pdf'));
    await stampCodes(plain, pdfCoordinates, () => [
      { shape: encodeCode({ symbology: 'qrcode', value: 'bottom left', margin: 0 }), pages: [1], position: { x: 10, y: 10, width: 30, height: 30, metrics: 'mm', coordinates: 'pdf' }, rotation: 0 },
    ]);
    // 10 mm from the bottom edge: its top is 40 mm above the bottom, 842 pt − 40 mm from the top.
    expect(readBox(pdfCoordinates, 1, { x: 10 * MM, y: 842 - 40 * MM, width: 30 * MM, height: 30 * MM }, 'pdf-coords').zbar).toEqual(['QR-Code:bottom left']);
  });

  it.each([
    ['an xref table', ['--object-streams=disable']],
    ['an xref stream with object streams', ['--object-streams=generate']],
    ['a QDF layout (qpdf --qdf: uncompressed, annotated objects)', ['--object-streams=disable', '--qdf']],
  ])('writes an incremental update after the original bytes of a file with %s: qpdf checks it, every page keeps its text and gets its code', async (name, qpdfArgs) => {
    const labelled = await labelledPdf(scratch.file(`inc-${qpdfArgs.length}-${name.length}-src.pdf`), [
      [595, 842],
      [842, 595],
      [595, 842],
    ]);
    const input = scratch.file(`inc-${name.length}.pdf`);
    execFileSync('qpdf', [...qpdfArgs, labelled, input]);
    const output = scratch.file(`inc-${name.length}-out.pdf`);
    await stampCodes(input, output, () => [stampAt('qrcode', 'incremental', { x: 10, y: 10, width: 20, height: 20 }, 0, { pages: [1, 2, 3] })]);
    const before = readFileSync(input);
    const after = readFileSync(output);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    // One more xref section, pointing back at the original's.
    expect(after.subarray(before.length).toString('latin1')).toMatch(/\/Prev \d+/);
    qpdfCheck(output);
    expect(pdfinfo(output)).toMatch(/Pages:\s+3\n/);
    for (const page of [1, 2, 3]) {
      expect(textOf(output, page, page)).toContain(`PAGE-${page}`);
      expect(zbar(renderPage(output, page, scratch.file(`inc-${name.length}-${page}`)))).toEqual(['QR-Code:incremental']);
    }
  });

  it('leaves pages that are not selected untouched', async () => {
    const input = await labelledPdf(scratch.file('three.pdf'), [
      [595, 842],
      [595, 842],
      [595, 842],
    ]);
    const output = scratch.file('three-out.pdf');
    await stampCodes(input, output, () => [stampAt('ean8', '90311017', { x: 20, y: 40, width: 40, height: 25 }, 0, { pages: [2] })]);
    expect(zbar(renderPage(output, 1, scratch.file('three-1')))).toEqual([]);
    expect(zbar(renderPage(output, 2, scratch.file('three-2')))).toEqual(['EAN-8:90311017']);
    expect(zbar(renderPage(output, 3, scratch.file('three-3')))).toEqual([]);
  });

  it('prints the human-readable text under linear codes as real text: pdftotext finds it inside each box, zbarimg reads each code at 300 dpi', async () => {
    const input = await labelledPdf(scratch.file('text-in.pdf'));
    const cases: { symbology: Symbology; value: string; zbar: string; text: string; size: [number, number]; rotation?: number }[] = [
      // EAN/UPC: the digits in their groups (pdftotext keeps the gaps between groups), check digits computed.
      { symbology: 'ean13', value: '590123412345', zbar: 'EAN-13:5901234123457', text: '5 901234 123457', size: [50, 25] },
      { symbology: 'ean8', value: '9031101', zbar: 'EAN-8:90311017', text: '9031 1017', size: [40, 25] },
      { symbology: 'upca', value: '03600029145', zbar: 'UPC-A:036000291452', text: '0 36000 29145 2', size: [50, 25] },
      { symbology: 'code128', value: 'Quire-128 ok', zbar: 'CODE-128:Quire-128 ok', text: 'Quire-128 ok', size: [60, 20] },
      { symbology: 'code39', value: 'ABC-123', zbar: 'CODE-39:ABC-123', text: '*ABC-123*', size: [60, 20] },
      { symbology: 'codabar', value: 'A12345B', zbar: 'Codabar:A12345B', text: 'A12345B', size: [50, 20] },
      { symbology: 'itf', value: '12345678', zbar: 'I2/5:12345678', text: '12345678', size: [50, 20] },
      // Turned: the text turns with the code.
      { symbology: 'ean13', value: '400638133393', zbar: 'EAN-13:4006381333931', text: '', size: [25, 50], rotation: 90 },
    ];
    const boxes = cases.map((c, i) => ({ x: 10 + (i % 2) * 100, y: 45 + Math.floor(i / 2) * 60, width: c.size[0], height: c.size[1] }));
    const output = scratch.file('text-out.pdf');
    await stampCodes(input, output, () =>
      cases.map((c, i) => ({ ...stampAt(c.symbology, c.value, boxes[i]!, c.rotation ?? 0), shape: encodeCode({ symbology: c.symbology, value: c.value, margin: 0, text: true }) })),
    );
    qpdfCheck(output);
    cases.forEach((c, i) => {
      const box = { x: boxes[i]!.x * MM, y: boxes[i]!.y * MM, width: boxes[i]!.width * MM, height: boxes[i]!.height * MM };
      const text = execFileSync(
        'pdftotext',
        ['-layout', '-x', String(Math.floor(box.x)), '-y', String(Math.floor(box.y)), '-W', String(Math.ceil(box.width)), '-H', String(Math.ceil(box.height)), output, '-'],
        {
          encoding: 'utf8',
        },
      );
      if (c.text) expect(text.replace(/\s+/g, ' ').trim(), c.symbology).toBe(c.text);
      else expect(text.replace(/\s+/g, ''), 'turned').toContain('4006381333931'.slice(1, 7));
      expect(readBox(output, 1, box, `text-${i}`, 300).zbar, c.symbology).toEqual([c.zbar]);
    });
    // Without text, only the page's own label is text.
    const plain = scratch.file('no-text-out.pdf');
    await stampCodes(input, plain, () => [stampAt('ean13', '590123412345', boxes[0]!)]);
    expect(textOf(plain).replace(/\s+/g, '')).toBe('PAGE-1');
  });

  it('makes a new one-page document with the codes', async () => {
    const output = scratch.file('new.pdf');
    await newDocumentWithCodes(output, [595.28, 841.89], [stampAt('qrcode', 'new document', { x: 20, y: 20, width: 40, height: 40 })]);
    expect(pdfinfo(output)).toMatch(/Pages:\s+1\n/);
    expect(pdfinfo(output)).toMatch(/Page size:\s+595\.28 x 841\.89 pts \(A4\)/);
    expect(zbar(renderPage(output, 1, scratch.file('new')))).toEqual(['QR-Code:new document']);
  });
});
