import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { PDFDocument } from '@cantoo/pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPdf, PdfLibError, savePdf } from '../../../src/engines/pdf-edit/pdf-lib-io.js';
import { buildPdf, documentObjects, pageText } from '../../helpers/hostile-pdf.js';
import { pageRefs, qpdfCheck, scratchDir, textOf } from '../../helpers/pdf-tools.js';

/**
 * Page tree edits through the pdf-edit loader and saver (pdf-lib behind loadPdf/savePdf) on a sound
 * document with a nested page tree and inherited attributes: what qpdf and pdfinfo see afterwards.
 * (Hostile trees are in hostile-documents.test.ts.)
 */
const scratch = scratchDir('pdf-edit-page-tree');
afterAll(() => scratch.remove());

/** pdfinfo's size and rotation of every page: "WxH@rot". */
function pageShapes(file: string): string[] {
  const info = execFileSync('pdfinfo', ['-f', '1', '-l', '999', file], { encoding: 'utf8' });
  const sizes = [...info.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => `${Math.round(Number(m[1]))}x${Math.round(Number(m[2]))}`);
  const rotations = [...info.matchAll(/^Page\s+\d+ rot:\s+(\d+)/gm)].map((m) => m[1]);
  return sizes.map((size, i) => `${size}@${rotations[i]}`);
}

/**
 * Five pages in a two-level tree: the root (MediaBox 300×750, inherited by pages 4–5) holds node 4
 * (MediaBox 500×760 and Rotate 90, inherited by pages 1–3) and pages 4–5 directly. No page has its
 * own box or rotation; the text of every page is at (72, 700).
 */
function nestedPdf(): string {
  const objects = documentObjects({ pages: 5, pagesDictionary: '<</Type/Pages/Kids[4 0 R 16 0 R 18 0 R]/Count 5/MediaBox[0 0 300 750]>>' });
  objects[4] = '<</Type/Pages/Parent 2 0 R/Kids[10 0 R 12 0 R 14 0 R]/Count 3/MediaBox[0 0 500 760]/Rotate 90>>';
  for (const n of [10, 12, 14, 16, 18]) {
    objects[n] = String(objects[n]).replace('/MediaBox[0 0 612 792]', '');
    if (n <= 14) objects[n] = String(objects[n]).replace('/Parent 2 0 R', '/Parent 4 0 R');
  }
  const file = scratch.file('nested.pdf');
  writeFileSync(file, buildPdf(objects));
  return file;
}

describe('loadPdf and savePdf on a nested page tree', () => {
  it('keeps every page with its inherited size and rotation when the document is saved unchanged', async () => {
    const input = nestedPdf();
    expect(pageShapes(input)).toEqual(['500x760@90', '500x760@90', '500x760@90', '300x750@0', '300x750@0']);
    const output = scratch.file('unchanged.pdf');
    await savePdf(await loadPdf(input), output);
    qpdfCheck(output);
    expect(pageShapes(output)).toEqual(pageShapes(input));
    expect(textOf(output, 5, 5)).toContain(pageText(5));
  });

  it('removes, inserts and copies pages: sizes, rotations and text follow the pages', async () => {
    const input = nestedPdf();
    const document = await loadPdf(input);
    document.removePage(1); // page 2 (500×760, turned) goes
    const other = await PDFDocument.create();
    other.addPage([200, 100]);
    const [copied] = await document.copyPages(other, [0]);
    document.insertPage(0, copied!); // a 200×100 page without rotation first
    const [again] = await document.copyPages(document, [1]); // old page 1 (inherited size and rotation), again at the end
    document.addPage(again!);
    const output = scratch.file('edited.pdf');
    await savePdf(document, output);
    qpdfCheck(output);
    expect(pageRefs(output)).toHaveLength(6);
    expect(pageShapes(output)).toEqual(['200x100@0', '500x760@90', '500x760@90', '300x750@0', '300x750@0', '500x760@90']);
    expect([2, 3, 4, 5, 6].map((n) => textOf(output, n, n).trim())).toEqual([pageText(1), pageText(3), pageText(4), pageText(5), pageText(1)]);
  });

  it('saves with object streams only when asked, either way readable by qpdf', async () => {
    const input = nestedPdf();
    const packed = scratch.file('packed.pdf');
    const loose = scratch.file('loose.pdf');
    await savePdf(await loadPdf(input), packed, { objectStreams: true });
    await savePdf(await loadPdf(input), loose, { objectStreams: false });
    qpdfCheck(packed);
    qpdfCheck(loose);
    expect(readFileSync(packed, 'latin1')).toContain('/ObjStm');
    expect(readFileSync(loose, 'latin1')).not.toContain('/ObjStm');
  });

  it('refuses a file above the size limit for editing as tooLarge, before reading it', async () => {
    const error = await loadPdf(nestedPdf(), { maxBytes: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfLibError);
    expect((error as PdfLibError).kind).toBe('tooLarge');
  });
});
