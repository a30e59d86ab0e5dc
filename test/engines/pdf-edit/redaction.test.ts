import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editPdf } from '../../../src/engines/pdf-edit/annotations/edit-pdf.js';
import { AnnotationEditor } from '../../../src/engines/pdf-edit/annotations/editor.js';
import { OutlineEditor } from '../../../src/engines/pdf-edit/annotations/outline.js';
import { redactPdf, type RasterEnvironment } from '../../../src/engines/pdf-edit/redaction/index.js';
import { pdfinfo, qpdfCheck, qpdfObjects, scratchDir, textOf } from '../../helpers/pdf-tools.js';

/**
 * The redaction engine on real files: redaction annotations applied by removing the content under
 * them, and sanitising (hidden content removed, pages rasterised). Judged by pdftotext, pdfimages,
 * pdfinfo and qpdf — what a reader of the result can still get out of it.
 */
const scratch = scratchDir('pdf-edit-redaction');
let counter = 0;
const out = () => scratch.file(`out-${counter++}.pdf`);
const env = (): RasterEnvironment => ({ scratch: (extension) => scratch.file(`raster-${counter++}.${extension}`), deadline: Date.now() + 60_000, toolTimeoutMs: 30_000 });
let source: string;

/**
 * qpdf's objects of the file after a qpdf rewrite, which keeps only what is reachable: the engine
 * leaves replaced objects unreferenced and its caller rewrites with qpdf (redaction/index.ts).
 */
function reachableObjects(file: string): (Record<string, unknown> | undefined)[] {
  const rewritten = `${file}.qpdf.pdf`;
  execFileSync('qpdf', [file, rewritten]);
  return Object.values(qpdfObjects(rewritten)).map((o) => o.value as Record<string, unknown> | undefined);
}

beforeAll(async () => {
  // Page 1: a public line and a secret line; page 2: public text only. An outline and metadata.
  const document = await PDFDocument.create();
  document.setTitle('Secret plans');
  const font = await document.embedFont(StandardFonts.Helvetica);
  const first = document.addPage([595, 842]);
  first.drawText('Public statement stays', { x: 50, y: 700, size: 18, font });
  first.drawText('TOPSECRET code 4711', { x: 50, y: 600, size: 18, font });
  document.addPage([595, 842]).drawText('Second page text', { x: 50, y: 700, size: 18, font });
  const plain = scratch.file('plain.pdf');
  writeFileSync(plain, await document.save());
  source = scratch.file('marked.pdf');
  // A redaction annotation over the secret line (PDF coordinates: the baseline is at y 600).
  await editPdf(plain, source, async (d) => {
    const editor = new AnnotationEditor(d);
    await editor.add('redact', { page: 1, position: { pathElement: [{ coordinates: 'pdf', metrics: 'pt', x: 40, y: 590, width: 300, height: 30 }] } }, 'redact');
    editor.finish();
    const outline = new OutlineEditor(d);
    outline.add({ itemName: 'Chapter', actions: [{ goTo: { destination: { fitPage: { page: 2 } } } }] }, 'outline');
    outline.finish();
  });
});
afterAll(() => scratch.remove());

describe('blacken', () => {
  it('removes the text under the redaction annotations and the annotations themselves; the rest stays readable', async () => {
    expect(textOf(source, 1, 1)).toContain('TOPSECRET');
    const output = out();
    const report = await redactPdf(source, output, { blacken: { collisionRatio: 30, redactTexts: true, redactImages: true, redactPaths: true, redactAnnotations: true } }, env());
    expect(report).toEqual({ blackenedPages: [1], rasterizedForRedaction: [], rasterizedForSanitize: [] });
    qpdfCheck(output);
    const text = textOf(output, 1, 1);
    expect(text).not.toContain('TOPSECRET');
    expect(text).not.toContain('4711');
    expect(text).toContain('Public statement stays');
    expect(textOf(output, 2, 2)).toContain('Second page text');
    // No /Redact annotation is left to show what was there.
    expect(reachableObjects(output).some((value) => value?.['/Subtype'] === '/Redact')).toBe(false);
  });

  it('changes nothing on a document without redaction annotations', async () => {
    const plainOut = out();
    const report = await redactPdf(scratch.file('plain.pdf'), plainOut, { blacken: { collisionRatio: 30, redactTexts: true, redactImages: true, redactPaths: true, redactAnnotations: true } }, env());
    expect(report.blackenedPages).toEqual([]);
    expect(textOf(plainOut, 1, 1)).toContain('TOPSECRET');
  });
});

describe('sanitize', () => {
  it('removes metadata, outlines and annotations, and rasterises the pages asked for', async () => {
    const output = out();
    const report = await redactPdf(
      source,
      output,
      {
        sanitize: {
          actions: true,
          annotations: true,
          attachments: true,
          forms: true,
          layers: true,
          metadata: true,
          outlines: true,
          tags: true,
          pages: { pageIndexes: [1], dpi: 50 },
        },
      },
      env(),
    );
    expect(report.rasterizedForSanitize).toEqual([2]);
    qpdfCheck(output);
    expect(pdfinfo(output)).not.toMatch(/^Title:\s+Secret plans/m);
    const objects = reachableObjects(output);
    expect(objects.some((value) => value?.['/Type'] === '/Outlines')).toBe(false);
    expect(objects.some((value) => value?.['/Subtype'] === '/Redact')).toBe(false);
    // Page 2 is an image now: no text, one image of about 50 dpi.
    expect(textOf(output, 2, 2).trim()).toBe('');
    const images = execFileSync('pdfimages', ['-list', '-f', '2', '-l', '2', output], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter((l) => l.trim() !== '');
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/^\s*2\s+0\s+image\s+41\d\s+58\d\s/);
    // Page 1 keeps its text (sanitising is not redaction).
    expect(textOf(output, 1, 1)).toContain('Public statement stays');
  });
});
