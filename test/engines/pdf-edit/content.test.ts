import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addBackgrounds,
  addHeaderFooter,
  addWatermark,
  applyDisplaySettings,
  editDocument,
  PdfContentError,
  removeHeaderFooter,
  resizeBox,
  setTransitions,
  type WatermarkPosition,
} from '../../../src/engines/pdf-edit/content/index.js';
import { catalogOf, fontsOf, infoField, labelledPdf, objectDict, pageRefs, pdfinfo, qpdfCheck, qpdfObjects, scratchDir, textOf, type QDict } from '../../helpers/pdf-tools.js';

/**
 * The pdf-edit content editors on real files: text and image watermarks (standard and embedded
 * TrueType fonts), headers and footers with placeholders, backgrounds, page boxes, transitions and
 * display settings. Results are read with pdftotext, pdffonts, pdfinfo, pdfimages and qpdf.
 */
const scratch = scratchDir('pdf-edit-content');
let plain: string;
let counter = 0;
const out = () => scratch.file(`out-${counter++}.pdf`);
const centre: WatermarkPosition = { anchor: 'center_center', x: 0, y: 0, width: 0, height: 0, aspectRatio: true };
const black = { r: 0, g: 0, b: 0 };

beforeAll(async () => {
  plain = await labelledPdf(scratch.file('plain.pdf'), [
    [595, 842],
    [595, 842],
    [842, 595],
  ]);
});
afterAll(() => scratch.remove());

describe('addWatermark', () => {
  it('stamps text in a standard font on the selected pages only, as extractable text', async () => {
    const output = out();
    await editDocument(plain, output, (document) =>
      addWatermark(document, {
        pages: [2, 3],
        // Turned by 90°: pdftotext reads vertical text whole (at 45° it splits it into pieces).
        angle: 90,
        scratchPath: scratch.file('wm-1.img'),
        text: { text: 'CONFIDENTIAL', font: { name: '', bold: true, italic: false }, size: 48, color: { r: 1, g: 0, b: 0 }, opacity: 0.5, outline: false, position: centre },
      }),
    );
    qpdfCheck(output);
    expect(textOf(output, 1, 1)).not.toContain('CONFIDENTIAL');
    expect(textOf(output, 2, 2)).toContain('CONFIDENTIAL');
    expect(textOf(output, 3, 3)).toContain('CONFIDENTIAL');
    expect(textOf(output, 2, 2)).toContain('PAGE-2');
    // A standard font is referenced, not embedded.
    expect(fontsOf(output)).toContainEqual(expect.objectContaining({ name: 'Helvetica-Bold', embedded: false }));
  });

  it('draws text the standard fonts cannot show with an embedded TrueType subset that pdftotext reads back', async () => {
    const output = out();
    await editDocument(plain, output, (document) =>
      addWatermark(document, {
        pages: [1],
        angle: 0,
        scratchPath: scratch.file('wm-2.img'),
        text: { text: 'Grüße Ωμέγα Привет', font: { name: 'DejaVu Sans', bold: false, italic: false }, size: 30, color: black, opacity: 1, outline: false, position: centre },
      }),
    );
    qpdfCheck(output);
    expect(textOf(output, 1, 1)).toContain('Grüße Ωμέγα Привет');
    const embedded = fontsOf(output).filter((font) => font.embedded);
    expect(embedded.length).toBeGreaterThan(0);
    // A subset: the name carries the six-letter tag (ABCDEF+Name).
    expect(embedded.every((font) => /^[A-Z]{6}\+/.test(font.name))).toBe(true);
  });

  it('places an image watermark that pdfimages finds on the page', async () => {
    const png = await sharp({ create: { width: 60, height: 40, channels: 3, background: { r: 0, g: 128, b: 255 } } })
      .png()
      .toBuffer();
    const output = out();
    await editDocument(plain, output, (document) =>
      addWatermark(document, { pages: [1], angle: 0, scratchPath: scratch.file('wm-3.img'), image: { bytes: png, opacity: 0.3, scale: 0, position: centre } }),
    );
    qpdfCheck(output);
    const list = execFileSync('pdfimages', ['-list', output], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter((l) => l.trim() !== '');
    expect(list).toHaveLength(1);
    expect(list[0]).toMatch(/^\s*1\s+0\s+image\s+60\s+40\s+rgb/);
  });
});

describe('addHeaderFooter', () => {
  const spec = (pages: number[], replaceExisting = false) => ({
    header: { left: 'Quire report', center: '', right: '<<dd.mm.yyyy>>' },
    footer: { left: '', center: '<<Page 1 of n>>', right: '' },
    fontName: '',
    size: 10,
    color: black,
    underline: false,
    margin: { top: 20, bottom: 20, left: 30, right: 30 },
    pages,
    firstPageNumber: 1,
    date: { year: 2024, month: 3, day: 7 },
    replaceExisting,
  });

  it('writes headers and footers with page numbers and dates expanded, on the selected pages', async () => {
    const output = out();
    await editDocument(plain, output, async (document) => ({ removed: await addHeaderFooter(document, spec([1, 2, 3])) }));
    qpdfCheck(output);
    for (const page of [1, 2, 3]) {
      const text = textOf(output, page, page);
      expect(text).toContain('Quire report');
      expect(text).toContain('07.03.2024');
      expect(text).toContain(`Page ${page} of 3`);
    }
  });

  it('refuses to add over existing ones unless told to replace them, and removes them', async () => {
    const first = out();
    await editDocument(plain, first, async (document) => ({ removed: await addHeaderFooter(document, spec([1])) }));
    const refused = await editDocument(first, out(), async (document) => ({ removed: await addHeaderFooter(document, spec([1])) })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PdfContentError);
    expect((refused as PdfContentError).kind).toBe('invalidOptions');

    const replaced = out();
    const outcome = await editDocument(first, replaced, async (document) => ({ removed: await addHeaderFooter(document, { ...spec([2]), replaceExisting: true }) }));
    expect(outcome.removed).toBe(true);
    expect(textOf(replaced, 1, 1)).not.toContain('Quire report');
    expect(textOf(replaced, 2, 2)).toContain('Quire report');

    const removed = out();
    await editDocument(replaced, removed, async (document) => ({ removed: removeHeaderFooter(document) }));
    // The removed content is unreferenced (qpdf would drop it); what poppler shows is the page without it.
    expect(textOf(removed, 2, 2)).not.toContain('Quire report');
    expect(textOf(removed, 2, 2)).toContain('PAGE-2');
  });
});

describe('addBackgrounds', () => {
  it('puts a coloured background behind the page content of the selected pages', async () => {
    const output = out();
    await editDocument(plain, output, async (document) => ({
      removed: await addBackgrounds(
        document,
        [
          {
            color: { r: 1, g: 1, b: 0 },
            settings: { pages: [1], opacity: 1, anchor: 'center_center', x: 0, y: 0, relativeToPage: true, rotation: 0, scale: 100, onScreen: true, onPrint: true },
            member: 'background.add',
          },
        ],
        false,
        scratch.file('bg.img'),
      ),
    }));
    qpdfCheck(output);
    const pixel = async (page: number) => {
      const png = execFileSync('pdftoppm', ['-r', '10', '-png', '-f', String(page), '-l', String(page), output]);
      const { data } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      return [data[0], data[1], data[2]];
    };
    expect(await pixel(1)).toEqual([255, 255, 0]);
    expect(await pixel(2)).toEqual([255, 255, 255]);
    // Behind the content: the page text is still there.
    expect(textOf(output, 1, 1)).toContain('PAGE-1');
  });
});

describe('page boxes, transitions and display settings', () => {
  it('resizes the crop box of the selected pages as pdfinfo reads it', async () => {
    const output = out();
    await editDocument(plain, output, async (document) => resizeBox(document, [2], 'crop_box', { x: 10, y: 20, width: 300, height: 400 }, 'box'));
    expect(infoField(pdfinfo(output, '-box', '-f', '2', '-l', '2'), 'Page    2 CropBox')).toMatch(/^10\.00\s+20\.00\s+310\.00\s+420\.00$/);
    expect(infoField(pdfinfo(output, '-box', '-f', '1', '-l', '1'), 'Page    1 CropBox')).toMatch(/^0\.00\s+0\.00\s+595\.00\s+842\.00$/);
  });

  it('writes page transitions and the document display settings into the page and catalog dictionaries', async () => {
    const output = out();
    await editDocument(plain, output, async (document) => {
      setTransitions(document, { pages: [1, 3], style: 'wipe', direction: 'topToBottom', duration: 2, flyScale: 1, flyAreaOpaque: false, autoScroll: true, autoScrollTime: 5 });
      applyDisplaySettings(document, { initialPage: 2, initialView: 'outlines', language: 'de-DE', magnification: 'fitWidth', magnificationZoom: 100, pageLayout: 'twoPagesRight' });
    });
    qpdfCheck(output);
    const objects = qpdfObjects(output);
    const pages = pageRefs(output).map((ref) => objectDict(objects, ref)!);
    expect(objectDict(objects, pages[0]!['/Trans'])).toMatchObject({ '/S': '/Wipe', '/D': 2, '/Di': 270 });
    expect(pages[0]!['/Dur']).toBe(5);
    expect(pages[1]!['/Trans']).toBeUndefined();
    expect(pages[2]!['/Trans']).toBeDefined();
    const catalog: QDict = catalogOf(objects);
    expect(catalog['/PageMode']).toBe('/UseOutlines');
    expect(catalog['/PageLayout']).toBe('/TwoPageRight');
    expect(catalog['/Lang']).toBe('u:de-DE');
    const open = catalog['/OpenAction'] as unknown[];
    expect(open[0]).toBe(pageRefs(output)[1]);
    expect(open[1]).toBe('/FitH');
  });
});
