import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readsCleanly } from '../../../src/engines/barcode/clean-input.js';
import { stampThroughCos } from '../../../src/engines/barcode/cos-stamp.js';
import { encodeCode } from '../../../src/engines/barcode/drawing.js';
import type { CodeStamp } from '../../../src/engines/barcode/index.js';
import { buildPdf, documentObjects, lyingCountPdf, pageText, stream } from '../../helpers/hostile-pdf.js';
import { pdfinfo, qpdfCheck, scratchDir, textOf } from '../../helpers/pdf-tools.js';
import { MM, renderPage, zbar } from './readers.js';

/**
 * Stamping through the COS reader (no pdf-lib document of the file): the ways a page reaches its
 * resources and content — inherited from a page-tree node (direct or indirect, shared), its own
 * indirect dictionary shared with other pages, an indirect /XObject dictionary, /Contents as an
 * indirect array, no content at all — each get the code, keep their own content, and the update
 * rewrites a shared dictionary once. Files it must not take are left to pdf-lib untouched.
 */

const scratch = scratchDir('barcode-cos-stamp');
afterAll(() => scratch.remove());

const qr = (value: string, pages: number[], extra: Partial<CodeStamp> = {}): CodeStamp => ({
  shape: encodeCode({ symbology: 'qrcode', value, margin: 0 }),
  pages,
  position: { x: 20, y: 20, width: 40, height: 40, metrics: 'mm', coordinates: 'user' },
  rotation: 0,
  ...extra,
});

/** Five pages reaching their resources and content in five different ways (page n shows "HOSTILE-n", the last none). */
function structuredPdf(): Buffer {
  const text = (n: number) => stream('', `BT /F1 24 Tf 72 700 Td (${pageText(n)}) Tj ET`);
  return buildPdf({
    1: '<</Type/Catalog/Pages 2 0 R>>',
    2: '<</Type/Pages/Kids[4 0 R 14 0 R 16 0 R 18 0 R]/Count 5/MediaBox[0 0 612 792]/Resources 5 0 R>>',
    3: '<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>',
    // Shared by pages 3 (inherited from the root) and 4 (its own reference); its /XObject is indirect.
    5: '<</Font<</F1 3 0 R>>/XObject 6 0 R>>',
    6: '<<>>',
    // An intermediate node with a direct resource dictionary, inherited by pages 1 and 2.
    4: '<</Type/Pages/Parent 2 0 R/Kids[10 0 R 12 0 R]/Count 2/Resources<</Font<</F1 3 0 R>>>>>>',
    10: '<</Type/Page/Parent 4 0 R/Contents 11 0 R>>',
    11: text(1),
    12: '<</Type/Page/Parent 4 0 R/Contents 20 0 R>>',
    13: text(2),
    20: '[13 0 R]',
    14: '<</Type/Page/Parent 2 0 R/Contents[15 0 R]>>',
    15: text(3),
    16: '<</Type/Page/Parent 2 0 R/Resources 5 0 R/Contents 17 0 R/Rotate 90>>',
    17: text(4),
    18: '<</Type/Page/Parent 2 0 R>>',
  });
}

describe('stampThroughCos', () => {
  it('stamps pages whatever way they reach resources and content; each keeps its text; a shared dictionary is written once', async () => {
    const input = scratch.file('structured.pdf');
    writeFileSync(input, structuredPdf());
    const output = scratch.file('structured-out.pdf');
    expect(
      await stampThroughCos(input, output, (count) => [
        qr(
          'cos path',
          Array.from({ length: count }, (_, i) => i + 1),
        ),
      ]),
    ).toBe(true);
    const before = readFileSync(input);
    const after = readFileSync(output);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    const update = after.subarray(before.length).toString('latin1');
    // The shared /XObject dictionary 6 gets the form once; the shared resources 5 need no rewrite.
    expect(update.match(/(^|\n)6 0 obj/g)).toHaveLength(1);
    expect(update).not.toMatch(/(^|\n)5 0 obj/);
    qpdfCheck(output);
    expect(pdfinfo(output)).toMatch(/Pages:\s+5\n/);
    for (let page = 1; page <= 5; page++) {
      if (page <= 4) expect(textOf(output, page, page)).toContain(pageText(page));
      const box = { x: 20 * MM, y: 20 * MM, width: 40 * MM, height: 40 * MM };
      expect(zbar(renderPage(output, page, scratch.file(`structured-${page}`), { box, pad: 4 * MM })), `page ${page}`).toEqual(['QR-Code:cos path']);
    }
  });

  it('stamps only the selected pages: the others keep their dictionaries', async () => {
    const input = scratch.file('three.pdf');
    writeFileSync(input, buildPdf(documentObjects({ pages: 3 })));
    const output = scratch.file('three-out.pdf');
    expect(await stampThroughCos(input, output, () => [qr('second only', [2])])).toBe(true);
    const update = readFileSync(output).subarray(readFileSync(input).length).toString('latin1');
    expect(update).toMatch(/(^|\n)12 0 obj/);
    expect(update).not.toMatch(/(^|\n)(10|14) 0 obj/);
    expect(zbar(renderPage(output, 1, scratch.file('three-1')))).toEqual([]);
    expect(zbar(renderPage(output, 2, scratch.file('three-2')))).toEqual(['QR-Code:second only']);
    expect(textOf(output, 2, 2)).toContain(pageText(2));
  });

  it("uses the clean-input check's read of the same file, and reads a file changed since afresh", async () => {
    const file = scratch.file('changing.pdf');
    writeFileSync(file, buildPdf(documentObjects({ pages: 3 })));
    expect(await readsCleanly(file)).toBe(true);
    // Replaced after the check (another inode, size and time): the stamp must see the new file's two pages.
    const replacement = scratch.file('changing-new.pdf');
    writeFileSync(replacement, buildPdf(documentObjects({ pages: 2 })));
    renameSync(replacement, file);
    let counted = 0;
    const output = scratch.file('changing-out.pdf');
    expect(
      await stampThroughCos(file, output, (count) => {
        counted = count;
        return [qr('changed', [1, 2])];
      }),
    ).toBe(true);
    expect(counted).toBe(2);
    expect(pdfinfo(output)).toMatch(/Pages:\s+2\n/);
    expect(zbar(renderPage(output, 2, scratch.file('changing-2')))).toEqual(['QR-Code:changed']);
  });

  it('leaves to pdf-lib, writing nothing, a file qpdf would repair and a code that needs a page of its own', async () => {
    const lying = scratch.file('lying.pdf');
    writeFileSync(lying, lyingCountPdf(5, 2));
    expect(await stampThroughCos(lying, scratch.file('lying-out.pdf'), () => [qr('x', [1])])).toBe(false);
    expect(existsSync(scratch.file('lying-out.pdf'))).toBe(false);

    const good = buildPdf(documentObjects({ pages: 2 }));
    const shifted = scratch.file('shifted.pdf');
    // A comment line more after the header: every offset of the table points before its object.
    writeFileSync(shifted, Buffer.concat([good.subarray(0, 9), Buffer.from('%% a comment line of forty bytes here\n'), good.subarray(9)]));
    expect(await stampThroughCos(shifted, scratch.file('shifted-out.pdf'), () => [qr('x', [1])])).toBe(false);

    const plain = scratch.file('plain.pdf');
    writeFileSync(plain, good);
    expect(await stampThroughCos(plain, scratch.file('new-page-out.pdf'), () => [qr('x', [1], { newPage: 'end' })])).toBe(false);
    expect(existsSync(scratch.file('new-page-out.pdf'))).toBe(false);
  });
});
