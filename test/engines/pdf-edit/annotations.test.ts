import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editPdf, readPdf } from '../../../src/engines/pdf-edit/annotations/edit-pdf.js';
import { AnnotationEditor } from '../../../src/engines/pdf-edit/annotations/editor.js';
import { PdfEditError } from '../../../src/engines/pdf-edit/annotations/errors.js';
import { OutlineEditor } from '../../../src/engines/pdf-edit/annotations/outline.js';
import { labelledPdf, objectDict, pageRefs, qpdfCheck, qpdfObjects, scratchDir, textOf, type QDict } from '../../helpers/pdf-tools.js';

/**
 * The pdf-edit annotation and outline editors on real files (pdf-lib in memory, saved by editPdf).
 * What they wrote is read back with qpdf (objects), pdftoppm (what a viewer draws) and pdftotext.
 */
const scratch = scratchDir('pdf-edit-annotations');
let plain: string;
let counter = 0;
const out = () => scratch.file(`out-${counter++}.pdf`);

/** The annotation dictionaries of page `n` (1-based), as qpdf reads them. */
function annotations(file: string, n: number): QDict[] {
  const objects = qpdfObjects(file);
  const page = objectDict(objects, pageRefs(file)[n - 1])!;
  const annots = (page['/Annots'] ?? []) as string[];
  return annots.map((ref) => objectDict(objects, ref)!);
}

/** The colour pdftoppm draws at (x, y) in PDF points of a 72 dpi rendering of page `n`. */
const renders = new Map<string, Buffer>();
function pixelAt(file: string, n: number, x: number, y: number, pageHeight: number): [number, number, number] {
  const key = `${file}#${n}`;
  if (!renders.has(key)) renders.set(key, execFileSync('pdftoppm', ['-r', '72', '-f', String(n), '-l', String(n), file], { maxBuffer: 64 * 1024 * 1024 }));
  const ppm = renders.get(key)!;
  const m = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 32).toString('latin1'))!;
  const width = Number(m[1]);
  const offset = m[0].length + (Math.round(pageHeight - y) * width + Math.round(x)) * 3;
  return [ppm[offset]!, ppm[offset + 1]!, ppm[offset + 2]!];
}

beforeAll(async () => {
  plain = await labelledPdf(scratch.file('plain.pdf'), [
    [595, 842],
    [595, 842],
  ]);
});
afterAll(() => scratch.remove());

describe('AnnotationEditor', () => {
  it('adds shapes, lines, markup, free text, notes and stamps with geometry, entries and drawn appearances', async () => {
    const output = out();
    const pdf = { coordinates: 'pdf' as const, metrics: 'pt' as const };
    await editPdf(plain, output, async (document) => {
      const editor = new AnnotationEditor(document);
      await editor.add(
        'square',
        { page: 1, color: '#FF0000', interiorColor: '#00FF00', drawMode: 'fillAndStroke', contents: 'a square', position: { rectangle: { ...pdf, x: 100, y: 100, width: 100, height: 50 } } },
        'square',
      );
      await editor.add('circle', { page: 1, color: '#0000FF', drawMode: 'stroke', position: { rectangle: { ...pdf, x: 300, y: 100, width: 80, height: 80 } } }, 'circle');
      await editor.add('line', { page: 1, color: '#000000', start: { ...pdf, x: 100, y: 300 }, end: { ...pdf, x: 400, y: 300 } }, 'line');
      await editor.add('markup', { page: 1, markupType: 'highlight', color: '#FFFF00', position: { pathElement: [{ ...pdf, x: 45, y: 735, width: 110, height: 30 }] } }, 'markup');
      await editor.add(
        'freetext',
        { page: 2, contents: 'Free text here', font: { name: 'Helvetica', size: 14, color: '#000000' }, position: { rectangle: { ...pdf, x: 100, y: 400, width: 200, height: 40 } } },
        'freetext',
      );
      await editor.add('text', { page: 2, contents: 'A note', name: 'note-1', position: { ...pdf, x: 400, y: 600, width: 20, height: 20 } }, 'text');
      await editor.add('rubberstamp', { page: 2, icon: 'approved', position: { rectangle: { ...pdf, x: 100, y: 200, width: 150, height: 50 } } }, 'stamp');
      editor.finish();
    });
    qpdfCheck(output);

    const first = annotations(output, 1);
    expect(first.map((a) => a['/Subtype'])).toEqual(['/Square', '/Circle', '/Line', '/Highlight']);
    expect(first[0]!['/Rect']).toEqual([100, 100, 200, 150]);
    expect(first[0]!['/C']).toEqual([1, 0, 0]);
    expect(first[0]!['/IC']).toEqual([0, 1, 0]);
    expect(first[0]!['/Contents']).toBe('u:a square');
    expect(first[2]!['/L']).toEqual([100, 300, 400, 300]);
    for (const annotation of first) expect((annotation['/AP'] as QDict)['/N'], String(annotation['/Subtype'])).toBeDefined();

    const second = annotations(output, 2);
    expect(second.map((a) => a['/Subtype'])).toEqual(['/FreeText', '/Text', '/Popup', '/Stamp']);
    expect(second[1]!['/NM']).toBe('u:note-1');
    expect(second[3]!['/Name']).toBe('/Approved');

    // A viewer draws the appearances: the square's interior green, its border red, the page text untouched.
    expect(pixelAt(output, 1, 150, 125, 842)).toEqual([0, 255, 0]);
    const border = Array.from({ length: 12 }, (_, i) => pixelAt(output, 1, 95 + i, 125, 842));
    expect(border.some(([r, g, b]) => r > 200 && g < 100 && b < 100)).toBe(true);
    expect(textOf(output, 1, 1)).toContain('PAGE-1');
  });

  it('edits the selected annotations of a kind and removes annotations (with their pop-ups)', async () => {
    const added = out();
    await editPdf(plain, added, async (document) => {
      const editor = new AnnotationEditor(document);
      await editor.add('square', { page: 1, name: 'box', color: '#FF0000', position: { rectangle: { coordinates: 'pdf', metrics: 'pt', x: 10, y: 10, width: 50, height: 50 } } }, 'a');
      await editor.add('text', { page: 1, name: 'note', contents: 'remove me', position: { coordinates: 'pdf', metrics: 'pt', x: 300, y: 300, width: 20, height: 20 } }, 'b');
      editor.finish();
    });
    const edited = out();
    const changed = await editPdf(added, edited, async (document) => {
      const editor = new AnnotationEditor(document);
      const count = await editor.edit([{ page: 1 }], { square: { color: '#0000FF', contents: 'now blue' } }, 'edit');
      editor.finish();
      return count;
    });
    expect(changed).toBe(1);
    const square = annotations(edited, 1).find((a) => a['/Subtype'] === '/Square')!;
    expect(square['/C']).toEqual([0, 0, 1]);
    expect(square['/Contents']).toBe('u:now blue');

    const cleared = out();
    const removed = await editPdf(edited, cleared, (document) => {
      const editor = new AnnotationEditor(document);
      const count = editor.clear([1], false);
      editor.finish();
      return count;
    });
    // The square, the note and the note's pop-up.
    expect(removed).toBe(3);
    expect(annotations(cleared, 1)).toEqual([]);
    qpdfCheck(cleared);
  });

  it('refuses a page that does not exist as an invalid option, and leaves the output unwritten', async () => {
    const output = scratch.file('never-written.pdf');
    const error = await editPdf(plain, output, async (document) => {
      await new AnnotationEditor(document).add('square', { page: 3 }, 'add[0]');
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfEditError);
    expect((error as PdfEditError).message).toMatch(/add\[0\]\.page/);
    expect(() => readFileSync(output)).toThrow();
  });
});

describe('OutlineEditor', () => {
  /** The outline as qpdf walks it: [title, dest page (1-based)] with children, by /First and /Next. */
  function outline(file: string): unknown[] {
    const objects = qpdfObjects(file);
    const catalog = objectDict(objects, (objects['trailer']!.value as QDict)['/Root'])!;
    const pages = pageRefs(file);
    const walk = (ref: unknown): unknown[] => {
      const items: unknown[] = [];
      for (let item = ref; typeof item === 'string'; item = objectDict(objects, item)!['/Next']) {
        const dict = objectDict(objects, item)!;
        const dest = (objectDict(objects, dict['/A'])?.['/D'] ?? dict['/Dest']) as string[] | undefined;
        const title = String(dict['/Title']).replace(/^u:/, '');
        const page = dest ? pages.indexOf(dest[0]!) + 1 : 0;
        items.push(dict['/First'] ? [title, page, walk(dict['/First'])] : [title, page]);
      }
      return items;
    };
    const root = objectDict(objects, catalog['/Outlines']);
    return root ? walk(root['/First']) : [];
  }

  it('builds a nested outline with destinations, inserts before and after items, and removes one', async () => {
    const built = out();
    await editPdf(plain, built, (document) => {
      const editor = new OutlineEditor(document);
      const goTo = (page: number) => [{ goTo: { destination: { fitPage: { page } } } }];
      editor.add({ itemName: 'Chapter 1', actions: goTo(1) }, 'a');
      editor.add({ itemName: 'Chapter 2', actions: goTo(2), bold: true, color: '#FF0000' }, 'b');
      editor.add({ itemName: 'Section 2.1', path: '/Chapter 2', actions: goTo(2) }, 'c');
      editor.add({ itemName: 'Preface', path: '/Chapter 1', pathPosition: 'before' }, 'd');
      editor.add({ itemName: 'Grüße ✓', path: '/Chapter 2', pathPosition: 'after', actions: goTo(1) }, 'e');
      editor.finish();
    });
    qpdfCheck(built);
    expect(outline(built)).toEqual([
      ['Preface', 0],
      ['Chapter 1', 1],
      ['Chapter 2', 2, [['Section 2.1', 2]]],
      ['Grüße ✓', 1],
    ]);

    const objects = qpdfObjects(built);
    const root = objectDict(objects, objectDict(objects, (objects['trailer']!.value as QDict)['/Root'])!['/Outlines'])!;
    // Four items at the top, one closed child: /Count of the open root counts the visible items.
    expect(root['/Count']).toBe(4);

    const removed = out();
    await editPdf(built, removed, (document) => {
      const editor = new OutlineEditor(document);
      editor.remove('/Chapter 2/Section 2.1', 'remove');
      editor.remove('/Preface', 'remove');
      editor.finish();
    });
    expect(outline(removed)).toEqual([
      ['Chapter 1', 1],
      ['Chapter 2', 2],
      ['Grüße ✓', 1],
    ]);
    expect(await readPdf(removed, (document) => new OutlineEditor(document).itemCount)).toBe(3);

    const cleared = out();
    await editPdf(removed, cleared, (document) => {
      const editor = new OutlineEditor(document);
      editor.clear();
      editor.finish();
    });
    expect(outline(cleared)).toEqual([]);
    qpdfCheck(cleared);
  });

  it('refuses an item under a path that does not exist', async () => {
    const error = await editPdf(plain, out(), (document) => new OutlineEditor(document).add({ itemName: 'x', path: '/Nowhere' }, 'add')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfEditError);
    expect((error as Error).message).toMatch(/no item "\/Nowhere"/);
  });
});

describe('editPdf on input pdf-lib cannot use', () => {
  it('refuses a file that is no PDF, without writing the output', async () => {
    const junk = scratch.file('junk.pdf');
    writeFileSync(junk, '%PDF-1.4\n%%EOF\n');
    const output = scratch.file('junk-out.pdf');
    const error = await editPdf(junk, output, () => undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(() => readFileSync(output)).toThrow();
  });
});
