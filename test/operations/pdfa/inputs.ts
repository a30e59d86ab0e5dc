import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString, StandardFonts, rgb } from '@cantoo/pdf-lib';
import sharp from 'sharp';

/**
 * Inputs for the PDF/A tests, made with independent tools (pdf-lib, sharp, qpdf): text in a standard
 * font that is not embedded, a photo-like RGB image, an annotation that hides itself, JavaScript at
 * open, a non-ASCII title (Ghostscript drops such an information dictionary for part 1), and the
 * same file password-protected.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-pdfa-inputs-'));

/** A noisy RGB image (JPEG), so re-encoding shows. */
async function photo(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 37 + ((i / 3) | 0) * 11) & 0xff;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

export interface InputOptions {
  pages?: number;
  title?: string;
  javascript?: boolean;
  hiddenAnnotation?: boolean;
  image?: boolean;
  /** An embedded file (PDF/A-1 forbids them). */
  attachment?: boolean;
}

export async function textImagePdf(options: InputOptions = {}): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const image = options.image === false ? undefined : await document.embedJpg(await photo(300, 200));
  const pages = options.pages ?? 2;
  for (let n = 1; n <= pages; n++) {
    const page = document.addPage([595, 842]);
    page.drawText(`Quire PDF/A page ${n}`, { x: 50, y: 780, size: 24, font, color: rgb(0.1, 0.1, 0.4) });
    for (let line = 0; line < 30; line++) page.drawText(`Line ${line + 1} of page ${n}: the quick brown fox jumps over the lazy dog.`, { x: 50, y: 740 - line * 14, size: 10, font });
    if (image) page.drawImage(image, { x: 50, y: 80, width: 300, height: 200 });
  }
  document.setTitle(options.title ?? 'Prüfbericht – PDF/A');
  document.setAuthor('Quire tests');
  document.setSubject('PDF/A conversion');
  document.setKeywords(['pdfa', 'quire']);
  document.setCreationDate(new Date('2024-03-01T10:00:00Z'));
  const context = document.context;
  if (options.javascript) {
    const action = context.obj({ Type: 'Action', S: 'JavaScript', JS: PDFString.of('app.alert("hi")') });
    document.catalog.set(PDFName.of('OpenAction'), context.register(action));
  }
  if (options.hiddenAnnotation) {
    const annotation = context.obj({ Type: 'Annot', Subtype: 'Text', Rect: [400, 700, 420, 720], Contents: PDFString.of('note'), F: 2 });
    document.getPage(0).node.set(PDFName.of('Annots'), context.obj([context.register(annotation)]));
  }
  if (options.attachment) await document.attach(Buffer.from('invoice data'), 'invoice.txt', { mimeType: 'text/plain', description: 'an attachment' });
  return Buffer.from(await document.save());
}

let counter = 0;

/** The PDF protected with AES-256 by qpdf (user and owner password). */
export function protectedCopy(pdf: Buffer, user: string, owner = `${user}-owner`): Buffer {
  const input = path.join(dir, `plain-${counter}.pdf`);
  const output = path.join(dir, `protected-${counter++}.pdf`);
  writeFileSync(input, pdf);
  execFileSync('qpdf', ['--encrypt', user, owner, '256', '--', input, output]);
  return readFileSync(output);
}

const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

/**
 * Text in DejaVu Sans embedded whole as a simple TrueType font with no ToUnicode (written by hand
 * with pdf-lib's objects). `symbolic`: no /Encoding, Flags Symbolic: the codes reach the glyphs
 * through the program's own cmap only, so only the font program says what they mean.
 */
export async function trueTypeTextPdf(text: string, options: { symbolic: boolean }): Promise<Buffer> {
  const fontkit = await import('fontkit');
  const program = readFileSync(DEJAVU);
  const font = fontkit.create(program) as import('fontkit').Font;
  const document = await PDFDocument.create();
  const context = document.context;
  const scale = 1000 / font.unitsPerEm;
  const widths = Array.from({ length: 224 }, (_, i) => Math.round(font.glyphForCodePoint(32 + i).advanceWidth * scale));
  const descriptor = context.obj({
    Type: 'FontDescriptor',
    FontName: 'DejaVuSans',
    Flags: options.symbolic ? 4 : 32,
    FontBBox: [-1021, -463, 1793, 1232],
    ItalicAngle: 0,
    Ascent: 928,
    Descent: -236,
    CapHeight: 729,
    StemV: 80,
    FontFile2: context.register(context.flateStream(program, { Length1: program.length })),
  });
  const fontDict = context.obj({
    Type: 'Font',
    Subtype: 'TrueType',
    BaseFont: 'DejaVuSans',
    FirstChar: 32,
    LastChar: 255,
    Widths: widths,
    FontDescriptor: context.register(descriptor),
    ...(options.symbolic ? {} : { Encoding: 'WinAnsiEncoding' }),
  });
  const page = document.addPage([595, 842]);
  page.node.set(PDFName.of('Resources'), context.obj({ Font: { F1: context.register(fontDict) } }));
  const escaped = text.replace(/[\\()]/g, (c) => `\\${c}`);
  page.node.set(PDFName.of('Contents'), context.register(context.flateStream(`BT /F1 24 Tf 50 760 Td (${escaped}) Tj ET`)));
  return Buffer.from(await document.save());
}

/** Text in a Type3 font whose glyphs (filled boxes) have names outside the Adobe Glyph List and no ToUnicode: nothing says what they mean. */
export async function type3TextPdf(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const context = document.context;
  const box = context.register(context.flateStream('600 0 0 0 500 700 d1 0 0 500 700 re f'));
  const fontDict = context.obj({
    Type: 'Font',
    Subtype: 'Type3',
    Name: 'BoxFont',
    FontBBox: [0, 0, 600, 700],
    FontMatrix: [0.001, 0, 0, 0.001, 0, 0],
    CharProcs: { glyphA: box, glyphB: box },
    Encoding: { Type: 'Encoding', Differences: [65, 'glyphA', 'glyphB'] },
    FirstChar: 65,
    LastChar: 66,
    Widths: [600, 600],
    Resources: {},
  });
  const page = document.addPage([595, 842]);
  page.node.set(PDFName.of('Resources'), context.obj({ Font: { T3: context.register(fontDict) } }));
  page.node.set(PDFName.of('Contents'), context.register(context.flateStream('BT /T3 24 Tf 50 760 Td (ABBA) Tj ET')));
  return Buffer.from(await document.save());
}

/**
 * An untagged document with a structure a reader sees: a title (24 pt), a section heading (16 pt),
 * paragraphs of two lines (11 pt), a bulleted and a numbered list (its numbers drawn apart), a photo with its caption, a
 * coloured box (a path: an artifact) and a link annotation; a second page with another heading and
 * a paragraph. Each line is one text operation (a numbered item two), as most writers emit them.
 */
export async function structuredTextPdf(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const image = await document.embedJpg(await photo(120, 80));
  const first = document.addPage([595, 842]);
  first.drawRectangle({ x: 40, y: 790, width: 515, height: 40, color: rgb(0.9, 0.9, 1) });
  first.drawText('Quarterly report', { x: 50, y: 800, size: 24, font: bold });
  first.drawText('This report describes the quarter in a few sentences, written as a', { x: 50, y: 760, size: 11, font });
  first.drawText('paragraph of two lines so that the tagger has to join them.', { x: 50, y: 746, size: 11, font });
  first.drawText('Results', { x: 50, y: 710, size: 16, font: bold });
  first.drawText('The results came in three parts, listed here in no particular order.', { x: 50, y: 686, size: 11, font });
  ['\u2022 Revenue grew in every region', '\u2022 Costs stayed flat', '\u2022 Staff numbers rose slightly'].forEach((text, i) => first.drawText(text, { x: 60, y: 660 - i * 16, size: 11, font }));
  first.drawText('The next steps follow from them.', { x: 50, y: 600, size: 11, font });
  // The numbers as runs of their own, as word processors write them (Ghostscript joins each line into one TJ: the number stays in the LBody).
  ['Hire two engineers', 'Open the new office'].forEach((text, i) => {
    first.drawText(`${i + 1}.`, { x: 60, y: 576 - i * 16, size: 11, font });
    first.drawText(text, { x: 78, y: 576 - i * 16, size: 11, font });
  });
  first.drawImage(image, { x: 50, y: 420, width: 180, height: 120 });
  first.drawText('Figure 1: Revenue by region', { x: 50, y: 400, size: 11, font });
  const context = document.context;
  const link = context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 370, 200, 385], Border: [0, 0, 0], F: 4, A: { S: 'URI', URI: PDFString.of('https://example.org/') } });
  first.node.set(PDFName.of('Annots'), context.obj([context.register(link)]));
  first.drawText('See example.org for the details.', { x: 50, y: 374, size: 11, font });
  const second = document.addPage([595, 842]);
  second.drawText('Outlook', { x: 50, y: 800, size: 16, font: bold });
  second.drawText('The outlook for the next quarter is good.', { x: 50, y: 776, size: 11, font });
  document.setTitle('Quarterly report');
  document.setCreationDate(new Date('2024-03-01T10:00:00Z'));
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

const NIMBUS_OTF = '/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf';

/**
 * Text in a CIDFontType0 (Identity-H) over the bare CFF program of an OpenType font (FontFile3
 * /CIDFontType0C, name-keyed: CIDs are its glyph indexes), with no ToUnicode: only the program's
 * charset (glyph names) says what the glyphs mean.
 */
export async function cffCidTextPdf(text: string): Promise<Buffer> {
  const fontkit = await import('fontkit');
  const otf = readFileSync(NIMBUS_OTF);
  const font = fontkit.create(otf) as import('fontkit').Font;
  // The sfnt table directory: the 'CFF ' table is the bare program.
  let cff: Buffer | undefined;
  for (let i = 0; i < otf.readUInt16BE(4); i++) {
    const record = 12 + 16 * i;
    if (otf.toString('latin1', record, record + 4) === 'CFF ') cff = otf.subarray(otf.readUInt32BE(record + 8), otf.readUInt32BE(record + 8) + otf.readUInt32BE(record + 12));
  }
  if (!cff) throw new Error(`no CFF table in ${NIMBUS_OTF}`);
  const scale = 1000 / font.unitsPerEm;
  const glyphs = [...text].map((c) => font.glyphForCodePoint(c.codePointAt(0)!));
  const document = await PDFDocument.create();
  const context = document.context;
  const descriptor = context.obj({
    Type: 'FontDescriptor',
    FontName: 'NimbusSans-Regular',
    Flags: 32,
    FontBBox: [-200, -300, 1200, 1000],
    ItalicAngle: 0,
    Ascent: 900,
    Descent: -200,
    CapHeight: 700,
    StemV: 80,
    FontFile3: context.register(context.flateStream(cff, { Subtype: 'CIDFontType0C' })),
  });
  const cidFont = context.obj({
    Type: 'Font',
    Subtype: 'CIDFontType0',
    BaseFont: 'NimbusSans-Regular',
    CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
    FontDescriptor: context.register(descriptor),
    W: glyphs.flatMap((g) => [g.id, [Math.round(g.advanceWidth * scale)]]),
  });
  const type0 = context.obj({ Type: 'Font', Subtype: 'Type0', BaseFont: 'NimbusSans-Regular', Encoding: 'Identity-H', DescendantFonts: [context.register(cidFont)] });
  const page = document.addPage([595, 842]);
  page.node.set(PDFName.of('Resources'), context.obj({ Font: { F1: context.register(type0) } }));
  const hex = glyphs.map((g) => g.id.toString(16).padStart(4, '0')).join('');
  page.node.set(PDFName.of('Contents'), context.register(context.flateStream(`BT /F1 24 Tf 50 760 Td <${hex}> Tj ET`)));
  return Buffer.from(await document.save());
}
