import { PDFName, type PDFDocument } from '@cantoo/pdf-lib';
import { PdfContentError } from './errors.js';
import { readBox } from './geometry.js';
import { num } from './units.js';

export type PageBox = 'media_box' | 'crop_box' | 'bleed_box' | 'trim_box' | 'art_box';

const KEYS: Record<PageBox, string> = { media_box: 'MediaBox', crop_box: 'CropBox', bleed_box: 'BleedBox', trim_box: 'TrimBox', art_box: 'ArtBox' };

/**
 * Removes a page box from the selected pages. The MediaBox is required (PDF 32000-1, 14.11.2):
 * removing it is refused. A CropBox inherited from the page tree is overridden by one equal to the
 * MediaBox, which is what having none means.
 */
export function removeBox(document: PDFDocument, pageNumbers: readonly number[], box: PageBox, member: string): void {
  if (box === 'media_box') throw new PdfContentError('unsupported', 'the MediaBox cannot be removed: every page must have one (PDF 32000-1, 14.11.2).', { member });
  const pages = document.getPages();
  const key = PDFName.of(KEYS[box]);
  for (const number of pageNumbers) {
    const node = pages[number - 1]!.node;
    node.delete(key);
    if (box === 'crop_box' && node.getInheritableAttribute(key) !== undefined) node.set(key, node.context.obj(readBox(node.MediaBox()) ?? [0, 0, 612, 792]));
  }
}

/**
 * Sets a page box of the selected pages to a rectangle given from the lower-left corner of the
 * page's MediaBox (points). A new MediaBox moves the page's origin with it.
 */
export function resizeBox(document: PDFDocument, pageNumbers: readonly number[], box: PageBox, rect: { x: number; y: number; width: number; height: number }, member: string): void {
  if (!(rect.width > 0 && rect.height > 0)) throw new PdfContentError('invalidOptions', 'width and height must be greater than 0.', { member });
  const pages = document.getPages();
  const key = PDFName.of(KEYS[box]);
  for (const number of pageNumbers) {
    const node = pages[number - 1]!.node;
    const [mx, my] = readBox(node.MediaBox()) ?? [0, 0];
    const values = [mx + rect.x, my + rect.y, mx + rect.x + rect.width, my + rect.y + rect.height].map((v) => Number(num(v)));
    node.set(key, node.context.obj(values));
  }
}
