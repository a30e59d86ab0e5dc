import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { stampCodes } from '../../../src/engines/barcode/drawing.js';
import { SwissBillDataError } from '../../../src/engines/barcode/errors.js';
import { renderSwissBill, type SwissBillData, type SwissBillSeparator } from '../../../src/engines/barcode/swiss-bill.js';
import { infoField, labelledPdf, pdfinfo, qpdfCheck, scratchDir, textOf } from '../../helpers/pdf-tools.js';
import { javaZxing, javaZxingAvailable, MM, pageSizeMm, renderPage } from './readers.js';
import { EXAMPLE, EXAMPLE_PAYLOAD } from './swiss-example.js';

/**
 * The Swiss QR bill (swissqrbill laid out with PDFKit, embedded as a form XObject): the QR code read
 * back by Java ZXing (zbar does not read codes with the Swiss cross) to the exact payload written out
 * here by hand from the Swiss Implementation Guidelines, and the layout measured on a pdftoppm render
 * against the standard: bill 210 × 105 mm, QR code 46 × 46 mm at 67 mm / 17 mm of the bill.
 */

const scratch = scratchDir('barcode-swiss');
afterAll(() => scratch.remove());

const DPI = 300;

const PX_PER_MM = DPI / 25.4;

/** The dark pixels' bounding box (in mm of the page) inside `area` (mm from the page's top-left) of a page rendered at DPI. */
async function darkBox(png: string, area: { x: number; y: number; width: number; height: number }): Promise<{ left: number; top: number; right: number; bottom: number }> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  const [x0, y0] = [Math.round(area.x * PX_PER_MM), Math.round(area.y * PX_PER_MM)];
  const [x1, y1] = [Math.round((area.x + area.width) * PX_PER_MM), Math.round((area.y + area.height) * PX_PER_MM)];
  let [left, top, right, bottom] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, -1, -1];
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      if (data[y * info.width + x]! < 128) {
        left = Math.min(left, x);
        right = Math.max(right, x + 1);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y + 1);
      }
    }
  }
  return { left: left / PX_PER_MM, top: top / PX_PER_MM, right: right / PX_PER_MM, bottom: bottom / PX_PER_MM };
}

/** Share of dark pixels on the vertical line x (mm) between y0 and y1 (mm). */
async function darkShare(png: string, x: number, y0: number, y1: number): Promise<number> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  const column = Math.round(x * PX_PER_MM);
  let dark = 0;
  let total = 0;
  for (let y = Math.round(y0 * PX_PER_MM); y < Math.round(y1 * PX_PER_MM); y++) {
    total++;
    // The 0.75 pt line is ~3 px wide at 300 dpi: any dark pixel within 2 px of the column counts.
    if ([-2, -1, 0, 1, 2].some((dx) => data[y * info.width + column + dx]! < 160)) dark++;
  }
  return dark / total;
}

describe('renderSwissBill', () => {
  it.skipIf(!javaZxingAvailable)('appends the bill on a page of its own (210 × 105 mm): its QR code reads back the exact payload and measures 46 × 46 mm at 67 / 17 mm', async () => {
    const input = await labelledPdf(scratch.file('two.pdf'), [
      [595, 842],
      [595, 842],
    ]);
    const output = scratch.file('appended.pdf');
    const shape = await renderSwissBill({ data: EXAMPLE, format: 'billOnly', language: 'de', separator: 'none' });
    await stampCodes(input, output, () => [{ shape, pages: [1], position: { x: 0, y: 0, width: 0, height: 0, metrics: 'mm', coordinates: 'user' }, rotation: 0, newPage: 'end' }]);
    qpdfCheck(output);
    expect(infoField(pdfinfo(output), 'Pages')).toBe('3');
    expect(pageSizeMm(output, 3)).toEqual([210, 105]);
    expect(textOf(output, 1, 2)).not.toContain('Zahlteil');
    expect(textOf(output, 3, 3)).toContain('Zahlteil');
    const qr = renderPage(output, 3, scratch.file('appended-qr'), { dpi: DPI, box: { x: 67 * MM, y: 17 * MM, width: 46 * MM, height: 46 * MM }, pad: 3 * MM });
    expect(javaZxing(qr)).toEqual({ format: 'QR_CODE', text: EXAMPLE_PAYLOAD });
    const page = renderPage(output, 3, scratch.file('appended-page'), { dpi: DPI });
    const box = await darkBox(page, { x: 64, y: 14, width: 52, height: 51 });
    for (const [measured, standard] of [
      [box.left, 67],
      [box.top, 17],
      [box.right, 113],
      [box.bottom, 63],
    ] as const) {
      expect(Math.abs(measured - standard)).toBeLessThan(0.3);
    }
  });

  it.skipIf(!javaZxingAvailable)('codeOnly is the QR code alone, 46 × 46 mm, placed like any code; billPortraitSheet is an A4 sheet with the bill at its foot', async () => {
    const input = await labelledPdf(scratch.file('one.pdf'));
    const output = scratch.file('code-only.pdf');
    const code = await renderSwissBill({ data: EXAMPLE, format: 'codeOnly', language: 'de', separator: 'none' });
    const sheet = await renderSwissBill({ data: EXAMPLE, format: 'billPortraitSheet', language: 'fr', separator: 'solidLine' });
    expect([code.width / MM, code.height / MM].map((mm) => Math.round(mm * 100) / 100)).toEqual([46, 46]);
    await stampCodes(input, output, () => [
      { shape: code, pages: [1], position: { x: 120, y: 200, width: 46, height: 46, metrics: 'mm', coordinates: 'user' }, rotation: 0 },
      { shape: sheet, pages: [1], position: { x: 0, y: 0, width: 0, height: 0, metrics: 'mm', coordinates: 'user' }, rotation: 0, newPage: 'before' },
    ]);
    expect(infoField(pdfinfo(output), 'Pages')).toBe('2');
    expect(pageSizeMm(output, 1)).toEqual([210, 297]);
    expect(textOf(output, 1, 1)).toContain('Section paiement');
    expect(textOf(output, 2, 2)).toContain('PAGE-1');
    const alone = renderPage(output, 2, scratch.file('code-only-qr'), { dpi: DPI, box: { x: 120 * MM, y: 200 * MM, width: 46 * MM, height: 46 * MM }, pad: 4 * MM });
    expect(javaZxing(alone)?.text).toBe(EXAMPLE_PAYLOAD);
    const page = renderPage(output, 2, scratch.file('code-only-page'), { dpi: DPI });
    const box = await darkBox(page, { x: 117, y: 197, width: 52, height: 52 });
    expect(box.right - box.left).toBeCloseTo(46, 0);
    expect(box.bottom - box.top).toBeCloseTo(46, 0);
    // On the A4 sheet the bill starts 297 − 105 = 192 mm down: its QR code at 192 + 17 mm.
    const sheetQr = renderPage(output, 1, scratch.file('sheet-qr'), { dpi: DPI, box: { x: 67 * MM, y: 209 * MM, width: 46 * MM, height: 46 * MM }, pad: 3 * MM });
    expect(javaZxing(sheetQr)?.text).toBe(EXAMPLE_PAYLOAD);
  });

  it.each<[SwissBillSeparator, number, number]>([
    ['solidLine', 0.97, 1],
    ['dashedLineWithScissors', 0.4, 0.8],
    ['dottedLine', 0.05, 0.4],
    ['none', 0, 0],
  ])('draws the %s separator between receipt and payment part (share of dark pixels on the 62 mm line in [%d, %d])', async (separator, low, high) => {
    const shape = await renderSwissBill({ data: EXAMPLE, format: 'billExtraSpace', language: 'en', separator });
    const input = await labelledPdf(scratch.file(`sep-${separator}.pdf`));
    const output = scratch.file(`sep-${separator}-out.pdf`);
    await stampCodes(input, output, () => [{ shape, pages: [1], position: { x: 0, y: 0, width: 0, height: 0, metrics: 'mm', coordinates: 'user' }, rotation: 0, newPage: 'end' }]);
    expect(pageSizeMm(output, 2)).toEqual([210, 110]);
    const page = renderPage(output, 2, scratch.file(`sep-${separator}`), { dpi: DPI });
    // The bill starts 5 mm down; the scissors sit on the line's first 15 mm.
    const share = await darkShare(page, 62, 5 + 20, 5 + 100);
    expect(share).toBeGreaterThanOrEqual(low);
    expect(share).toBeLessThanOrEqual(high);
  });

  it.each<[string, SwissBillData, string]>([
    ['a wrong IBAN checksum', { ...EXAMPLE, creditor: { ...EXAMPLE.creditor, account: 'CH45 3199 9123 0008 8901 2' } }, 'creditor.account'],
    ['a wrong QR reference check digit', { ...EXAMPLE, reference: '21 00000 00003 13947 14300 09018' }, 'reference'],
    ['a QR-IBAN without a reference', { ...EXAMPLE, reference: undefined }, 'reference'],
    ['a creditor reference with wrong check digits', { ...EXAMPLE, creditor: { ...EXAMPLE.creditor, account: 'CH93 0076 2011 6238 5295 7' }, reference: 'RF19 5390 0754 7034' }, 'reference'],
    ['a German IBAN', { ...EXAMPLE, creditor: { ...EXAMPLE.creditor, account: 'DE89 3704 0044 0532 0130 00' }, reference: undefined }, 'creditor.account'],
    ['a debtor without a city', { ...EXAMPLE, debtor: { ...EXAMPLE.debtor!, city: undefined as unknown as string } }, 'debtor.city'],
  ])('refuses %s, naming the member', async (_, data, member) => {
    const refusal = await renderSwissBill({ data, format: 'billOnly', language: 'de', separator: 'none' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SwissBillDataError);
    expect((refusal as SwissBillDataError).member).toBe(member);
  });

  it('accepts a valid creditor reference (ISO 11649) with a regular IBAN', async () => {
    const shape = await renderSwissBill({
      data: { ...EXAMPLE, creditor: { ...EXAMPLE.creditor, account: 'CH93 0076 2011 6238 5295 7' }, reference: 'RF18 5390 0754 7034' },
      format: 'billOnly',
      language: 'it',
      separator: 'none',
    });
    expect(shape.page?.byteLength).toBeGreaterThan(1000);
  });
});
