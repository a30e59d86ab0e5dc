import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString, StandardFonts, rgb, type PDFFont, type PDFPage, type PDFRef } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { downloadToFile, pageText, pdfFacts } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

/**
 * `redact` through the REST API. Every effect is checked with poppler and qpdf, never with the
 * server's own code: words are located with `pdftotext -bbox` in the original, then looked for after
 * redaction in the page text, in the area alone, and in the content streams qpdf decompresses.
 */

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-redact-'));
let counter = 0;
const tempFile = (extension: string): string => path.join(scratch, `f-${counter++}.${extension}`);

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

interface Word extends Box {
  text: string;
}

/** Words of a page with their boxes in PDF user space (origin bottom left), from `pdftotext -bbox`. */
function words(file: string, page: number): Word[] {
  const html = execFileSync('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8' });
  const height = Number(/<page width="[\d.]+" height="([\d.]+)"/.exec(html)?.[1]);
  return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    x0: Number(m[1]),
    x1: Number(m[3]),
    y0: height - Number(m[4]),
    y1: height - Number(m[2]),
    text: m[5]!,
  }));
}

function wordBox(file: string, page: number, text: string): Box {
  const word = words(file, page).find((w) => w.text === text);
  if (!word)
    throw new Error(
      `${text} not found on page ${page}: ${words(file, page)
        .map((w) => w.text)
        .join(' ')}`,
    );
  return word;
}

/** Text poppler extracts from an area only (pdftotext -x -y -W -H works top-down at 72 dpi). */
function textInArea(file: string, page: number, box: Box): string {
  const height = Number(/Page\s+\d+ size:\s+[\d.]+ x ([\d.]+)/.exec(execFileSync('pdfinfo', ['-f', String(page), '-l', String(page), file], { encoding: 'utf8' }))?.[1]);
  const args = [
    '-f',
    String(page),
    '-l',
    String(page),
    '-x',
    String(Math.floor(box.x0)),
    '-y',
    String(Math.floor(height - box.y1)),
    '-W',
    String(Math.ceil(box.x1 - box.x0)),
    '-H',
    String(Math.ceil(box.y1 - box.y0)),
  ];
  return execFileSync('pdftotext', [...args, file, '-'], { encoding: 'utf8' }).trim();
}

/** The whole file as qpdf writes it uncompressed, with content streams normalised (every string readable). */
function qdf(file: string): string {
  const out = tempFile('qdf');
  execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, out]);
  return readFileSync(out).toString('latin1');
}

/** Whether a word occurs in the file's decompressed objects, as a literal or a hex string. */
function inFile(file: string, word: string): boolean {
  const text = qdf(file);
  const hex = Buffer.from(word, 'latin1').toString('hex');
  const utf16 = Buffer.from([...word].flatMap((c) => [0, c.charCodeAt(0)])).toString('hex');
  return text.includes(word) || text.toLowerCase().includes(hex) || text.toLowerCase().includes(utf16);
}

/** RGB of the pixel at PDF point (x, y) of a page rendered at 72 dpi. */
async function pixel(file: string, page: number, x: number, y: number): Promise<[number, number, number]> {
  const prefix = tempFile('render');
  execFileSync('pdftoppm', ['-r', '72', '-f', String(page), '-l', String(page), '-singlefile', '-png', file, prefix]);
  const { data, info: meta } = await sharp(`${prefix}.png`).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const px = Math.floor(x);
  const py = Math.floor(meta.height - y);
  const i = (py * meta.width + px) * meta.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

/** Whether anything dark is drawn inside a box of a page (rendered at 72 dpi). */
async function hasInk(file: string, page: number, box: Box): Promise<boolean> {
  const prefix = tempFile('render');
  execFileSync('pdftoppm', ['-r', '72', '-gray', '-f', String(page), '-l', String(page), '-singlefile', '-png', file, prefix]);
  const { data, info: meta } = await sharp(`${prefix}.png`).raw().toBuffer({ resolveWithObject: true });
  for (let y = Math.floor(meta.height - box.y1); y < Math.ceil(meta.height - box.y0); y++) {
    for (let x = Math.floor(box.x0); x < Math.ceil(box.x1); x++) if (data[(y * meta.width + x) * meta.channels]! < 128) return true;
  }
  return false;
}

const inflate = (box: Box, by = 1): [number, number, number, number] => [box.x0 - by, box.y0 - by, box.x1 + by, box.y1 + by];
const center = (box: Box): [number, number] => [(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2];
const near = (a: Box, b: Box): boolean => Math.abs(a.x0 - b.x0) < 0.5 && Math.abs(a.y0 - b.y0) < 0.5 && Math.abs(a.x1 - b.x1) < 0.5;

function annotate(document: PDFDocument, page: PDFPage, entries: Record<string, unknown>): PDFRef {
  const ref = document.context.register(document.context.obj({ Type: 'Annot', ...entries } as never));
  const annots = page.node.Annots();
  if (annots) annots.push(ref);
  else page.node.set(PDFName.of('Annots'), document.context.obj([ref]));
  return ref;
}

/** A redaction annotation over `rect`, filled with `ic` (none: transparent). */
function redaction(document: PDFDocument, page: PDFPage, rect: [number, number, number, number], ic?: number[], quadPoints?: number[], extra: Record<string, unknown> = {}): void {
  annotate(document, page, { Subtype: 'Redact', Rect: rect, ...(ic ? { IC: ic } : {}), ...(quadPoints ? { QuadPoints: quadPoints } : {}), ...extra });
}

/** An overlay text in white (the annotation's /OverlayText and /DA). */
const withheld = { OverlayText: PDFString.of('WITHHELD'), DA: PDFString.of('/Helv 0 Tf 1 1 1 rg'), Q: 1 };

/** Raw content with its own fonts added to a page. */
function addContent(document: PDFDocument, page: PDFPage, content: string, fonts: Record<string, PDFRef> = {}, xobjects: Record<string, PDFRef> = {}): void {
  for (const [name, ref] of Object.entries(fonts)) page.node.setFontDictionary(PDFName.of(name), ref);
  for (const [name, ref] of Object.entries(xobjects)) page.node.setXObject(PDFName.of(name), ref);
  page.node.addContentStream(document.context.register(document.context.flateStream(content)));
}

/** A Helvetica-Bold Type1 font dictionary with an explicit /Widths array (the usual simple font). */
function fontWithWidths(document: PDFDocument, metrics: PDFFont): PDFRef {
  const widths = Array.from({ length: 95 }, (_, i) => Math.round(metrics.widthOfTextAtSize(String.fromCharCode(32 + i), 1000)));
  return document.context.register(document.context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica-Bold', Encoding: 'WinAnsiEncoding', FirstChar: 32, LastChar: 126, Widths: widths }));
}

/** A composite font (Type0, Identity-H, CIDs = Unicode) with /W widths and a ToUnicode map; not embedded. */
function cidFont(document: PDFDocument, metrics: PDFFont): PDFRef {
  const context = document.context;
  const w: unknown[] = [32, Array.from({ length: 95 }, (_, i) => Math.round(metrics.widthOfTextAtSize(String.fromCharCode(32 + i), 1000)))];
  const toUnicode = context.register(
    context.flateStream(
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Test-UCS def /CMapType 2 def\n' +
        '1 begincodespacerange <0000> <FFFF> endcodespacerange\n1 beginbfrange <0020> <007E> <0020> endbfrange\nendcmap CMapName currentdict /CMap defineresource pop end end\n',
    ),
  );
  const descriptor = context.register(
    context.obj({ Type: 'FontDescriptor', FontName: 'Helvetica', Flags: 32, FontBBox: [-166, -225, 1000, 931], ItalicAngle: 0, Ascent: 718, Descent: -207, CapHeight: 718, StemV: 88 }),
  );
  const descendant = context.register(
    context.obj({
      Type: 'Font',
      Subtype: 'CIDFontType2',
      BaseFont: 'Helvetica',
      CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
      FontDescriptor: descriptor,
      DW: 1000,
      W: w,
    } as never),
  );
  return context.register(context.obj({ Type: 'Font', Subtype: 'Type0', BaseFont: 'Helvetica', Encoding: 'Identity-H', DescendantFonts: [descendant], ToUnicode: toUnicode }));
}

const hex16 = (text: string): string => `<${[...text].map((c) => c.charCodeAt(0).toString(16).padStart(4, '0')).join('')}>`;

async function save(document: PDFDocument): Promise<Buffer> {
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

/** Writes bytes to a temp file (for poppler) and returns its path. */
function asFile(bytes: Buffer): string {
  const file = tempFile('pdf');
  writeFileSync(file, bytes);
  return file;
}

describe('toolbox redact', () => {
  const { server, session } = useTestServer();

  const redactOk = async (bytes: Buffer, options: unknown, name = 'doc.pdf'): Promise<string> => {
    const uploaded = await uploadFile(server.rest, session.token, bytes, name);
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ redact: options }]);
    return downloadToFile(server.rest, session.token, uploaded.documentId);
  };

  const blackenAll = { blacken: { collisionRatio: 30, redactAnnotations: true, redactImages: true, redactPaths: true, redactTexts: true } };

  describe('blacken', () => {
    /** Text in several fonts and operators; the words to redact are located by poppler in the original. */
    async function textDocument(): Promise<{ bytes: Buffer; original: string; build: (areas: (file: string) => { rect: Box; ic?: number[] }[]) => Promise<Buffer> }> {
      const make = async (): Promise<PDFDocument> => {
        const document = await PDFDocument.create();
        const helvetica = await document.embedFont(StandardFonts.Helvetica);
        const bold = await document.embedFont(StandardFonts.HelveticaBold);
        const page = document.addPage([595, 842]);
        page.drawText('Public line ALPHA', { x: 50, y: 760, size: 20, font: helvetica });
        page.drawText('Secret BRAVO here', { x: 50, y: 720, size: 20, font: helvetica });
        const fw = fontWithWidths(document, bold);
        const cid = cidFont(document, helvetica);
        addContent(
          document,
          page,
          [
            // kerning, character and word spacing, horizontal scaling
            'BT /FW 16 Tf 1 0 0 1 50 660 Tm 1 Tc 3 Tw 90 Tz [(Account ) -200 (CHARLIE) 100 ( closed)] TJ ET',
            // rotated text
            'BT /FW 14 Tf 0 1 -1 0 500 300 Tm (Rotated DELTA text) Tj ET',
            // ' and " operators
            'BT /FW 12 Tf 14 TL 1 0 0 1 50 600 Tm (first line) Tj (ECHO quote) \' 2 0.5 (FOXTROT dq) " ET',
            // composite font, two-byte codes
            `BT /FC 18 Tf 1 0 0 1 50 520 Tm ${hex16('HOTEL india')} Tj ET`,
            // scaled by the CTM, in a nested q
            'q 2 0 0 2 0 0 cm BT /FW 10 Tf 25 230 Td (Scaled JULIET end) Tj ET Q',
            // a replacement text in marked content, which would otherwise keep the word
            '/Span <</MCID 0 /ActualText (LIMA)>> BDC BT /FW 12 Tf 1 0 0 1 300 520 Tm (LIMA) Tj ET EMC BT /FW 12 Tf 1 0 0 1 400 520 Tm (mike) Tj ET',
            // the same through a named property list
            '/Span /P0 BDC BT /FW 12 Tf 1 0 0 1 300 480 Tm (NOVEMBER) Tj ET EMC',
          ].join('\n'),
          { FW: fw, FC: cid },
        );
        page.node.Resources()!.set(PDFName.of('Properties'), document.context.obj({ P0: { MCID: 1, ActualText: PDFString.of('NOVEMBER') } } as never));
        return document;
      };
      const bytes = await save(await make());
      const original = asFile(bytes);
      return {
        bytes,
        original,
        build: async (areas) => {
          const document = await make();
          const page = document.getPage(0);
          for (const area of areas(original)) redaction(document, page, inflate(area.rect), area.ic);
          return save(document);
        },
      };
    }

    it('removes the redacted words from the content; the rest of each line stays extractable at its place', async () => {
      const fixture = await textDocument();
      const targets = ['BRAVO', 'CHARLIE', 'DELTA', 'ECHO', 'FOXTROT', 'HOTEL', 'JULIET', 'LIMA', 'NOVEMBER'];
      const boxes = Object.fromEntries(targets.map((word) => [word, wordBox(fixture.original, 1, word)]));
      const input = await fixture.build(() => targets.map((word) => ({ rect: boxes[word]!, ic: [0, 0, 0] })));
      for (const word of targets) expect(inFile(asFile(input), word), word).toBe(true);

      const file = await redactOk(input, blackenAll);
      const text = pageText(file, 1);
      for (const word of targets) {
        expect(text, word).not.toContain(word);
        expect(textInArea(file, 1, boxes[word]!), word).toBe('');
        expect(inFile(file, word), `${word} in the file`).toBe(false);
      }
      for (const word of ['Public', 'ALPHA', 'Secret', 'here', 'Account', 'closed', 'Rotated', 'text', 'first', 'line', 'quote', 'dq', 'india', 'Scaled', 'end', 'mike']) {
        expect(text, word).toContain(word);
      }
      // The words after a removed one keep their position (the removed glyphs became TJ offsets).
      for (const word of ['here', 'closed', 'text', 'quote', 'dq', 'india', 'end']) {
        expect(near(wordBox(file, 1, word), wordBox(fixture.original, 1, word)), word).toBe(true);
      }
      // The areas are filled with the interior colour; the redaction annotations are gone.
      expect(await pixel(file, 1, ...center(boxes.BRAVO!))).toEqual([0, 0, 0]);
      expect(await pixel(file, 1, ...center(boxes.JULIET!))).toEqual([0, 0, 0]);
      expect(qdf(file)).not.toMatch(/\/Subtype \/Redact/);
    });

    it('collisionRatio decides about partly covered glyphs', async () => {
      const make = async (cover: number, ratio: number): Promise<string> => {
        const document = await PDFDocument.create();
        const font = await document.embedFont(StandardFonts.Helvetica);
        const page = document.addPage([400, 200]);
        page.drawText('MMMM', { x: 20, y: 100, size: 40, font });
        const m = font.widthOfTextAtSize('M', 40);
        // Covers `cover` of the second M's width, the full glyph height.
        redaction(document, page, [20 + m, 80, 20 + m + m * cover, 150], [0, 0, 0]);
        return redactOk(await save(document), { blacken: { ...blackenAll.blacken, collisionRatio: ratio } });
      };
      const letters = async (cover: number, ratio: number): Promise<string> => pageText(await make(cover, ratio), 1).replace(/\s/g, '');
      expect(await letters(0.5, 30)).toBe('MMM');
      expect(await letters(0.5, 80)).toBe('MMMM');
      expect(await letters(0.05, 0)).toBe('MMM');
      expect(await letters(0.05, 30)).toBe('MMMM');
    });

    it('overwrites image pixels under an area in the image data (Flate and JPEG), cuts paths, and removes annotations in the area', async () => {
      const document = await PDFDocument.create();
      const page = document.addPage([595, 842]);
      const red = await document.embedPng(
        await sharp({ create: { width: 100, height: 100, channels: 3, background: { r: 255, g: 0, b: 0 } } })
          .png()
          .toBuffer(),
      );
      const blue = await document.embedJpg(
        await sharp({ create: { width: 100, height: 100, channels: 3, background: { r: 0, g: 0, b: 255 } } })
          .jpeg({ quality: 95 })
          .toBuffer(),
      );
      page.drawImage(red, { x: 50, y: 300, width: 100, height: 100 });
      page.drawImage(blue, { x: 300, y: 300, width: 100, height: 100 });
      page.drawRectangle({ x: 50, y: 500, width: 200, height: 50, color: rgb(0, 0.8, 0) });
      redaction(document, page, [30, 280, 100, 420]); // left half of the red image, no fill
      redaction(document, page, [350, 280, 420, 420]); // right half of the blue one
      redaction(document, page, [100, 480, 150, 570]); // a slice of the green box
      // A second page shares the first one's resources (so it lists both images) but draws nothing.
      const shared = document.context.register(page.node.Resources()!);
      page.node.set(PDFName.of('Resources'), shared);
      document.addPage([595, 842]).node.set(PDFName.of('Resources'), shared);
      annotate(document, page, { Subtype: 'Text', Rect: [120, 700, 140, 720], Contents: PDFString.of('NOTE-INSIDE') });
      const field = document.getForm().createTextField('secretfield');
      field.setText('FIELD-SECRET');
      field.addToPage(page, { x: 150, y: 695, width: 40, height: 20 });
      annotate(document, page, { Subtype: 'Text', Rect: [300, 700, 320, 720], Contents: PDFString.of('NOTE-OUTSIDE') });
      redaction(document, page, [110, 690, 200, 730], [1, 0, 0]);
      const file = await redactOk(await save(document), blackenAll);

      // Rendered: the areas are empty (white, no fill colour), the rest unchanged.
      expect(await pixel(file, 1, 75, 350)).toEqual([255, 255, 255]);
      expect(await pixel(file, 1, 125, 350)).toEqual([255, 0, 0]);
      expect(await pixel(file, 1, 385, 350)).toEqual([255, 255, 255]);
      const blueLeft = await pixel(file, 1, 325, 350);
      expect(blueLeft[2]).toBeGreaterThan(200);
      expect(blueLeft[0]).toBeLessThan(50);
      expect(await pixel(file, 1, 125, 525)).toEqual([255, 255, 255]);
      expect(await pixel(file, 1, 75, 525)).toEqual([0, 204, 0]);
      expect(await pixel(file, 1, 200, 525)).toEqual([0, 204, 0]);
      expect(await pixel(file, 1, 150, 710)).toEqual([255, 0, 0]);

      // The images as stored: the hidden halves no longer hold the original colours.
      const dir = mkdtempSync(path.join(scratch, 'images-'));
      execFileSync('pdfimages', ['-png', file, path.join(dir, 'img')]);
      const images = readdirSync(dir).sort();
      expect(images).toHaveLength(2);
      const stored = await Promise.all(images.map(async (name) => sharp(path.join(dir, name)).removeAlpha().raw().toBuffer({ resolveWithObject: true })));
      const at = (image: (typeof stored)[number], x: number, y: number): number[] => {
        const i = (y * image.info.width + x) * image.info.channels;
        return [...image.data.subarray(i, i + 3)];
      };
      const [redImage, blueImage] = [stored[0]!, stored[1]!]; // pdfimages lists them in drawing order
      expect(at(redImage, 10, 50)).not.toEqual([255, 0, 0]);
      expect(at(redImage, 90, 50)).toEqual([255, 0, 0]);
      // JPEG: decoded, cleared and re-encoded, so compare loosely: white instead of blue.
      expect(at(blueImage, 90, 50)[0]).toBeGreaterThan(200);
      expect(at(blueImage, 90, 50)[1]).toBeGreaterThan(200);
      expect(at(blueImage, 10, 50)[2]).toBeGreaterThan(200);

      // The unredacted originals are not left behind in the file (not even listed in the shared resources).
      const objects = qdf(file);
      expect(objects.match(/\/Subtype \/Image/g)).toHaveLength(2);
      // The note inside the area went, the one outside stayed; no redaction annotation is left.
      expect(objects).not.toContain('NOTE-INSIDE');
      expect(inFile(file, 'FIELD-SECRET')).toBe(false);
      expect(inFile(file, 'secretfield')).toBe(false);
      expect(objects).toContain('NOTE-OUTSIDE');
      expect(objects).not.toMatch(/\/Subtype \/Redact/);
    });

    it('with redactTexts, redactAnnotations and redactImages off, only the boxes are painted', async () => {
      const document = await PDFDocument.create();
      const font = await document.embedFont(StandardFonts.Helvetica);
      const page = document.addPage([400, 300]);
      page.drawText('Keep KEPTWORD visible', { x: 20, y: 200, size: 20, font });
      const red = await document.embedPng(
        await sharp({ create: { width: 10, height: 10, channels: 3, background: { r: 255, g: 0, b: 0 } } })
          .png()
          .toBuffer(),
      );
      page.drawImage(red, { x: 20, y: 20, width: 100, height: 100 });
      annotate(document, page, { Subtype: 'Text', Rect: [30, 30, 40, 40], Contents: PDFString.of('NOTE-KEPT') });
      redaction(document, page, [0, 0, 400, 300], [0, 0, 1]);
      const file = await redactOk(await save(document), { blacken: { collisionRatio: 30, redactAnnotations: false, redactImages: false, redactPaths: true, redactTexts: false } });
      expect(pageText(file, 1)).toContain('KEPTWORD');
      expect(qdf(file)).toContain('NOTE-KEPT');
      expect(await pixel(file, 1, 200, 150)).toEqual([0, 0, 255]);
      const dir = mkdtempSync(path.join(scratch, 'kept-'));
      execFileSync('pdfimages', ['-png', file, path.join(dir, 'img')]);
      const image = await sharp(path.join(dir, readdirSync(dir)[0]!))
        .raw()
        .toBuffer();
      expect([...image.subarray(0, 3)]).toEqual([255, 0, 0]);
    });

    it('edits a form XObject on a copy: text is removed where redacted and stays on the other page that shows the form', async () => {
      const document = await PDFDocument.create();
      const font = await document.embedFont(StandardFonts.Helvetica);
      const fw = fontWithWidths(document, await document.embedFont(StandardFonts.HelveticaBold));
      const form = document.context.register(
        document.context.flateStream('BT /FW 14 Tf 10 10 Td (Form GOLF content) Tj ET', {
          Type: 'XObject',
          Subtype: 'Form',
          BBox: [0, 0, 300, 40],
          Resources: { Font: { FW: fw } },
        } as never),
      );
      const first = document.addPage([400, 300]);
      const second = document.addPage([400, 300]);
      addContent(document, first, 'q 1 0 0 1 40 150 cm /Fm Do Q', {}, { Fm: form });
      addContent(document, second, 'q 1 0 0 1 40 150 cm /Fm Do Q', {}, { Fm: form });
      second.drawText('second page', { x: 20, y: 20, size: 12, font });
      const original = asFile(await save(document));
      const golf = wordBox(original, 1, 'GOLF');
      redaction(document, first, inflate(golf), [0, 0, 0]);
      const file = await redactOk(await save(document), blackenAll);
      expect(pageText(file, 1)).not.toContain('GOLF');
      expect(pageText(file, 1)).toContain('Form');
      expect(pageText(file, 1)).toContain('content');
      expect(pageText(file, 2)).toContain('GOLF');
      expect(near(wordBox(file, 1, 'content'), wordBox(original, 1, 'content'))).toBe(true);

      // Drawn on the redacted page only: the original form does not stay in the file.
      second.node.set(PDFName.of('Contents'), document.context.obj([]));
      const only = await redactOk(await save(document), blackenAll);
      expect(pageText(only, 1)).toContain('content');
      expect(inFile(only, 'GOLF')).toBe(false);
    });

    it('uses QuadPoints when the annotation has them, not its whole Rect, and writes the overlay text there', async () => {
      const document = await PDFDocument.create();
      const font = await document.embedFont(StandardFonts.Helvetica);
      const page = document.addPage([400, 200]);
      page.drawText('left MIDDLE right', { x: 20, y: 100, size: 20, font });
      const original = asFile(await save(document));
      const middle = wordBox(original, 1, 'MIDDLE');
      const [x0, y0, x1, y1] = inflate(middle);
      redaction(document, page, [0, 0, 400, 200], [0, 0, 0], [x0, y1, x1, y1, x0, y0, x1, y0], withheld);
      const file = await redactOk(await save(document), blackenAll);
      const text = pageText(file, 1);
      expect(text).not.toContain('MIDDLE');
      expect(text).toContain('left');
      expect(text).toContain('right');
      const overlay = wordBox(file, 1, 'WITHHELD');
      expect(overlay.x0).toBeGreaterThanOrEqual(middle.x0 - 1);
      expect(overlay.x1).toBeLessThanOrEqual(middle.x1 + 1);
    });

    it('rasterises a page whose font cannot be measured, with the boxes painted into the pixels; other pages stay as they are', async () => {
      const document = await PDFDocument.create();
      const font = await document.embedFont(StandardFonts.Helvetica);
      // A simple font without /Widths that is not one of the standard 14: its glyph positions are unknown.
      const unknown = document.context.register(document.context.obj({ Type: 'Font', Subtype: 'TrueType', BaseFont: 'QuireTestSans', Encoding: 'WinAnsiEncoding' }));
      const first = document.addPage([400, 300]);
      addContent(document, first, 'BT /FU 20 Tf 20 200 Td (KILO lima) Tj ET', { FU: unknown });
      document.addPage([400, 300]).drawText('page two stays', { x: 20, y: 200, size: 20, font });
      const original = asFile(await save(document));
      const kilo = wordBox(original, 1, 'KILO');
      redaction(document, first, inflate(kilo, 2), [0, 0, 0], undefined, withheld);
      const file = await redactOk(await save(document), blackenAll);
      expect(pageText(file, 1).trim()).toBe('WITHHELD'); // the overlay text, written over the raster
      expect(inFile(file, 'KILO')).toBe(false);
      expect(pageText(file, 2)).toContain('page two stays');
      const list = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' });
      expect(list).toMatch(/^\s+1\s+0\s+image\s+1667\s+1250\s/m); // 400×300 pt at 300 dpi
      expect(await pixel(file, 1, kilo.x0 + 1, kilo.y0 + 1)).toEqual([0, 0, 0]);
    });

    it('is a no-op for a document without redaction annotations', async () => {
      const file = await redactOk(await numberedPdf(2), blackenAll);
      expect(pdfFacts(file).pages).toBe(2);
      expect(pageText(file, 2)).toContain('PAGE-2');
    });
  });

  describe('sanitize', () => {
    async function richDocument(): Promise<Buffer> {
      const document = await PDFDocument.create();
      const font = await document.embedFont(StandardFonts.Helvetica);
      const context = document.context;
      document.setTitle('SECRET-TITLE');
      document.setAuthor('SECRET-AUTHOR');
      const first = document.addPage([595, 842]);
      const second = document.addPage([595, 842]);
      first.drawText('Body text one', { x: 50, y: 780, size: 14, font });
      second.drawText('Body text two', { x: 50, y: 780, size: 14, font });
      // metadata: an XMP stream
      document.catalog.set(PDFName.of('Metadata'), context.register(context.stream('<x:xmpmeta xmlns:x="adobe:ns:meta/">SECRET-XMP</x:xmpmeta>', { Type: 'Metadata', Subtype: 'XML' })));
      // attachments
      await document.attach(Buffer.from('SECRET-ATTACHMENT'), 'secret.txt', { mimeType: 'text/plain' });
      // actions: document JavaScript
      document.catalog.set(PDFName.of('OpenAction'), context.obj({ S: 'JavaScript', JS: PDFString.of('app.alert("SECRET-JS")') }));
      // outlines
      const outlines = context.nextRef();
      const item = context.register(context.obj({ Title: PDFString.of('SECRET-BOOKMARK'), Parent: outlines, Dest: [first.ref, 'Fit'] } as never));
      context.assign(outlines, context.obj({ Type: 'Outlines', First: item, Last: item, Count: 1 }));
      document.catalog.set(PDFName.of('Outlines'), outlines);
      // annotations
      annotate(document, first, { Subtype: 'Text', Rect: [300, 700, 320, 720], Contents: PDFString.of('SECRET-NOTE') });
      // forms: a filled text field
      const field = document.getForm().createTextField('name');
      field.setText('FIELDVALUE');
      field.addToPage(first, { x: 50, y: 600, width: 200, height: 30, font });
      // layers: one visible, one hidden
      const visible = context.register(context.obj({ Type: 'OCG', Name: PDFString.of('Shown') }));
      const hidden = context.register(context.obj({ Type: 'OCG', Name: PDFString.of('SECRET-LAYERNAME') }));
      document.catalog.set(PDFName.of('OCProperties'), context.obj({ OCGs: [visible, hidden], D: { ON: [visible], OFF: [hidden], Order: [visible, hidden] } } as never));
      first.node.Resources()!.set(PDFName.of('Properties'), context.obj({ L1: visible, L2: hidden }));
      const fw = fontWithWidths(document, font);
      addContent(
        document,
        first,
        [
          '/OC /L1 BDC BT /FW 14 Tf 50 500 Td (VISIBLELAYER) Tj ET EMC',
          '/OC /L2 BDC BT /FW 14 Tf 50 480 Td (HIDDENLAYER) Tj ET EMC',
          // tags: marked content with an actual text
          '/Span <</MCID 0 /ActualText (SECRET-ACTUAL)>> BDC BT /FW 14 Tf 50 440 Td (Tagged) Tj ET EMC',
        ].join('\n'),
        { FW: fw },
      );
      const structRoot = context.nextRef();
      const element = context.register(context.obj({ Type: 'StructElem', S: 'P', P: structRoot, Pg: first.ref, K: 0, Alt: PDFString.of('SECRET-ALT') } as never));
      context.assign(structRoot, context.obj({ Type: 'StructTreeRoot', K: [element] } as never));
      document.catalog.set(PDFName.of('StructTreeRoot'), structRoot);
      document.catalog.set(PDFName.of('MarkInfo'), context.obj({ Marked: true }));
      return Buffer.from(await document.save({ useObjectStreams: false }));
    }

    const all = {
      actions: { enabled: true },
      annotations: { enabled: true },
      attachments: { enabled: true },
      forms: { enabled: true },
      layers: { enabled: true },
      metadata: { enabled: true },
      outlines: { enabled: true },
      tags: { enabled: true },
    };

    it('removes every category it is given', async () => {
      const input = asFile(await richDocument());
      for (const secret of ['SECRET-TITLE', 'SECRET-XMP', 'SECRET-JS', 'SECRET-BOOKMARK', 'SECRET-NOTE', 'SECRET-LAYERNAME', 'SECRET-ACTUAL', 'SECRET-ALT', 'HIDDENLAYER']) {
        expect(inFile(input, secret), secret).toBe(true);
      }
      expect(execFileSync('pdfdetach', ['-list', input], { encoding: 'utf8' })).toMatch(/1 embedded files/);

      const file = await redactOk(readFileSync(input), { sanitize: all });
      for (const secret of [
        'SECRET-TITLE',
        'SECRET-AUTHOR',
        'SECRET-XMP',
        'SECRET-JS',
        'SECRET-BOOKMARK',
        'SECRET-NOTE',
        'SECRET-LAYERNAME',
        'SECRET-ACTUAL',
        'SECRET-ALT',
        'SECRET-ATTACHMENT',
        'HIDDENLAYER',
      ]) {
        expect(inFile(file, secret), secret).toBe(false);
      }
      const objects = qdf(file);
      for (const key of ['/AcroForm', '/Outlines', '/OCProperties', '/StructTreeRoot', '/EmbeddedFiles', '/OpenAction', '/Metadata', '/Type /Annot', '/MCID', '/OCG']) {
        expect(objects, key).not.toContain(key);
      }
      expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).not.toMatch(/^(Title|Author):/m);
      expect(execFileSync('pdfdetach', ['-list', file], { encoding: 'utf8' })).toMatch(/0 embedded files/);
      // What was visible stays visible: page text, the visible layer, the filled-in form value (flattened).
      const text = pageText(file, 1);
      for (const shown of ['Body text one', 'VISIBLELAYER', 'Tagged', 'FIELDVALUE']) expect(text, shown).toContain(shown);
      expect(text).not.toContain('HIDDENLAYER');
      expect(pageText(file, 2)).toContain('Body text two');
    });

    it('keeps categories that are absent or disabled', async () => {
      const file = await redactOk(await richDocument(), { sanitize: { metadata: { enabled: true }, outlines: { enabled: false } } });
      expect(inFile(file, 'SECRET-TITLE')).toBe(false);
      for (const kept of ['SECRET-BOOKMARK', 'SECRET-NOTE', 'SECRET-JS', 'HIDDENLAYER', 'SECRET-ACTUAL']) expect(inFile(file, kept), kept).toBe(true);
      expect(qdf(file)).toContain('/AcroForm');
    });

    it('pages: replaces the selected pages by images of themselves at the given dpi (0: 72)', async () => {
      const file = await redactOk(await numberedPdf(3), { sanitize: { pages: { enabled: true, pages: '2-3', dpi: 100 } } });
      expect(pageText(file, 1)).toContain('PAGE-1');
      expect(pageText(file, 2).trim()).toBe('');
      expect(pageText(file, 3).trim()).toBe('');
      expect(inFile(file, 'PAGE-2')).toBe(false);
      const list = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' });
      expect(list).toMatch(/^\s+2\s+0\s+image\s+827\s+1170\s/m);
      expect(list).toMatch(/^\s+3\s+1\s+image\s+827\s+1170\s/m);
      expect(execFileSync('pdffonts', ['-f', '2', '-l', '3', file], { encoding: 'utf8' }).trim().split('\n')).toHaveLength(2);
      // The raster still shows the page: dark pixels where PAGE-2 was written.
      expect(await hasInk(file, 2, { x0: 50, y0: 700, x1: 140, y1: 720 })).toBe(true);
      expect(await hasInk(file, 2, { x0: 50, y0: 600, x1: 140, y1: 690 })).toBe(false);

      const defaults = await redactOk(await numberedPdf(1), { sanitize: { pages: { enabled: true, pages: '*', dpi: 0 } } });
      expect(execFileSync('pdfimages', ['-list', defaults], { encoding: 'utf8' })).toMatch(/^\s+1\s+0\s+image\s+595\s+842\s/m);
    });
  });

  describe('errors', () => {
    it('refuses out-of-range values and page ranges (-14) and leaves the document unchanged', async () => {
      const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'errors.pdf');
      const cases: [unknown, RegExp][] = [
        [{ blacken: { collisionRatio: 101 } }, /collisionRatio/],
        [{ blacken: { collisionRatio: 'lots' } }, /collisionRatio/],
        [{ blacken: { redactTexts: 'maybe' } }, /redactTexts/],
        [{ sanitize: { pages: { enabled: true, pages: '9', dpi: 72 } } }, /toolbox\[0\]\.redact\.sanitize\.pages\.pages: Page 9 is out of range: the document has 2 pages/],
        [{ sanitize: { pages: { enabled: true, pages: '*', dpi: 9601 } } }, /dpi/],
      ];
      for (const [options, message] of cases) {
        const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ redact: options }]);
        expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: -14 } });
        expect(outcome.error?.errorMessage).toMatch(message);
      }
      expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize, isFileLocked: false });
    });

    it('refuses a raster beyond the pixel budget (-104, naming dpi) and leaves the document unchanged', async () => {
      const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(1), 'huge.pdf');
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ redact: { sanitize: { pages: { enabled: true, pages: '1', dpi: 9600 } } } }]);
      expect(outcome).toMatchObject({ status: 400, error: { errorCode: -104 } });
      expect(outcome.error?.errorMessage).toMatch(/toolbox\[0\]\.redact\.sanitize\.pages\.dpi/);
      expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize });
    });

    it('needs the right password for a protected PDF (-5008) and keeps the protection after redacting', async () => {
      const document = await PDFDocument.create();
      const font = await document.embedFont(StandardFonts.Helvetica);
      const page = document.addPage([400, 200]);
      page.drawText('open LOCKEDWORD', { x: 20, y: 100, size: 20, font });
      redaction(document, page, [75, 90, 300, 130], [0, 0, 0]);
      const plain = asFile(await save(document));
      execFileSync('qpdf', ['--encrypt', 'u', 'o', '256', '--', plain, `${plain}.enc`]);
      const uploaded = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
      const wrong = await runToolbox(server.rest, session.token, uploaded.documentId, [{ redact: blackenAll }], { password: { open: 'x' } });
      expect(wrong.error).toMatchObject({ errorCode: -5008 });
      expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize });

      await toolboxOk(server.rest, session.token, uploaded.documentId, [{ redact: blackenAll }], { password: { open: 'u' } });
      const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
      expect(() => pdfFacts(file)).toThrow();
      const text = pdfFacts(file, 'u').text;
      expect(text).toContain('open');
      expect(text).not.toContain('LOCKEDWORD');
    });

    it('answers -7 for a damaged PDF', async () => {
      const uploaded = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog garbage'), 'broken.pdf');
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ redact: blackenAll }]);
      expect(outcome).toMatchObject({ status: 400, error: { errorCode: -7 } });
    });
  });
});
