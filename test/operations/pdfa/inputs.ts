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
