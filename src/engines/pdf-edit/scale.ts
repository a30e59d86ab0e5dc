import { PDFArray, PDFDict, PDFName, PDFNumber, concatTransformationMatrix, popGraphicsState, pushGraphicsState } from '@cantoo/pdf-lib';
import type { PDFPage } from '@cantoo/pdf-lib';
import { loadPdf, PdfLibError, savePdf } from './pdf-lib-io.js';
import { StructureError } from '../pdf/structure/errors.js';
import { normalisedRotation } from '../pdf/structure/geometry.js';

/**
 * Scales pages to a target size (webPDF `scale.scalePages`): the page's visible area (crop box) is
 * mapped into the target rectangle less its padding, keeping the aspect ratio or stretching, and
 * placed by the alignment where the ratio leaves room. With `scaleBoxes` the page boxes become the
 * target rectangle; without it the boxes stay and only the content (and annotations) shrink or grow,
 * anchored at the page's top left corner.
 *
 * Sizes, paddings and alignment are meant as a reader sees the page: on pages with /Rotate the
 * target is turned back into the page's own coordinates. The content gets one `q a 0 0 d e f cm … Q`
 * around its streams; annotation rectangles and point lists move the same way. pdf-lib holds the
 * document in memory (content edits need it); the size limit of pdf-lib-io applies.
 */
export interface ScaleTarget {
  /** Target size in points as displayed; 0 = follow the page's aspect ratio from the other side. */
  width: number;
  height: number;
  padding: { left: number; right: number; top: number; bottom: number };
  preserveAspectRatio: boolean;
  scaleBoxes: boolean;
  horizontal: 'left' | 'center' | 'right';
  vertical: 'top' | 'center' | 'bottom';
}

/** a b c d e f of a PDF transformation matrix, here without rotation or shear (b = c = 0). */
interface Affine {
  a: number;
  d: number;
  e: number;
  f: number;
}

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export async function scalePages(input: string, output: string, pages: readonly number[], target: ScaleTarget): Promise<void> {
  const document = await loadPdf(input);
  // The pages were chosen by qpdf's count; pdf-lib reads the same tree (see pdf-edit/page-tree.ts), so
  // a page it lacks means damage it could not read past.
  const count = document.getPageCount();
  const missing = pages.find((number) => number > count);
  if (missing !== undefined) throw new PdfLibError('unreadable', `The PDF cannot be read: page ${missing} cannot be read (pdf-lib finds ${count} page${count === 1 ? '' : 's'}).`);
  for (const number of pages) scalePage(document.getPage(number - 1), target, number);
  await savePdf(document, output);
}

function scalePage(page: PDFPage, target: ScaleTarget, number: number): void {
  const rotation = normalisedRotation(page.getRotation().angle);
  const turned = rotation === 90 || rotation === 270;
  const crop = page.getCropBox();
  if (crop.width <= 0 || crop.height <= 0) return;
  // The page as displayed.
  const shownWidth = turned ? crop.height : crop.width;
  const shownHeight = turned ? crop.width : crop.height;
  const width = target.width > 0 ? target.width : (target.height * shownWidth) / shownHeight;
  const height = target.height > 0 ? target.height : (target.width * shownHeight) / shownWidth;
  const { left, right, top, bottom } = target.padding;
  const areaWidth = width - left - right;
  const areaHeight = height - top - bottom;
  if (areaWidth <= 0 || areaHeight <= 0) {
    throw new StructureError(
      'invalidOption',
      `the padding leaves no room on page ${number}: the target is ${round(width)} × ${round(height)} pt, the paddings take ${round(left + right)} × ${round(top + bottom)} pt`,
    );
  }
  let contentWidth = areaWidth;
  let contentHeight = areaHeight;
  if (target.preserveAspectRatio) {
    const factor = Math.min(areaWidth / shownWidth, areaHeight / shownHeight);
    contentWidth = shownWidth * factor;
    contentHeight = shownHeight * factor;
  }
  const share = { left: 0, center: 0.5, right: 1, top: 0, bottom: 1 } as const;
  const shown: Rect = {
    x: left + (areaWidth - contentWidth) * share[target.horizontal],
    y: top + (areaHeight - contentHeight) * share[target.vertical],
    width: contentWidth,
    height: contentHeight,
  };
  // The frame the rectangle is placed in: the new page, or (boxes kept) the old one at its own origin.
  const frame = target.scaleBoxes ? { x: 0, y: 0, width, height } : { x: crop.x, y: crop.y, width: shownWidth, height: shownHeight };
  const placed = unrotate(shown, rotation, frame.width, frame.height);
  const sx = placed.width / crop.width;
  const sy = placed.height / crop.height;
  const affine: Affine = { a: sx, d: sy, e: frame.x + placed.x - crop.x * sx, f: frame.y + placed.y - crop.y * sy };

  const context = page.doc.context;
  page.node.normalize();
  const start = context.register(context.contentStream([pushGraphicsState(), concatTransformationMatrix(affine.a, 0, 0, affine.d, affine.e, affine.f)]));
  const end = context.register(context.contentStream([popGraphicsState()]));
  page.node.wrapContentStreams(start, end);
  moveAnnotations(page, affine);

  if (target.scaleBoxes) {
    const pageWidth = turned ? height : width;
    const pageHeight = turned ? width : height;
    const media: Rect = { x: 0, y: 0, width: pageWidth, height: pageHeight };
    for (const key of ['BleedBox', 'TrimBox', 'ArtBox']) {
      const box = page.node.lookupMaybe(PDFName.of(key), PDFArray);
      const rect = box ? rectOf(box) : undefined;
      if (rect) setBox(page, key, clip(transformRect(rect, affine), media));
    }
    page.setMediaBox(media.x, media.y, media.width, media.height);
    page.setCropBox(media.x, media.y, media.width, media.height);
  }
}

/**
 * A rectangle given as displayed (origin top left, y down) in a frame of `width` × `height` as
 * displayed, in the page's own coordinates (origin bottom left, y up) for its /Rotate.
 */
function unrotate(shown: Rect, rotation: number, width: number, height: number): Rect {
  switch (rotation) {
    case 90:
      return { x: shown.y, y: shown.x, width: shown.height, height: shown.width };
    case 180:
      return { x: width - shown.x - shown.width, y: shown.y, width: shown.width, height: shown.height };
    case 270:
      return { x: height - shown.y - shown.height, y: width - shown.x - shown.width, width: shown.height, height: shown.width };
    default:
      return { x: shown.x, y: height - shown.y - shown.height, width: shown.width, height: shown.height };
  }
}

/** Annotation geometry: rectangles and point lists move with the content; /RD (a difference) only scales. */
function moveAnnotations(page: PDFPage, m: Affine): void {
  const annots = page.node.Annots();
  if (!annots) return;
  for (let i = 0; i < annots.size(); i++) {
    const annot = annots.lookup(i);
    if (!(annot instanceof PDFDict)) continue;
    for (const key of ['Rect', 'QuadPoints', 'Vertices', 'L', 'CL']) {
      const list = annot.lookup(PDFName.of(key));
      if (list instanceof PDFArray) transformPoints(list, m);
    }
    const rect = annot.lookup(PDFName.of('Rect'));
    if (rect instanceof PDFArray) normaliseRect(rect);
    const ink = annot.lookup(PDFName.of('InkList'));
    if (ink instanceof PDFArray) {
      for (let j = 0; j < ink.size(); j++) {
        const path = ink.lookup(j);
        if (path instanceof PDFArray) transformPoints(path, m);
      }
    }
    const difference = annot.lookup(PDFName.of('RD'));
    if (difference instanceof PDFArray) difference.scalePDFNumbers(m.a, m.d);
  }
}

function transformPoints(list: PDFArray, m: Affine): void {
  for (let i = 0; i + 1 < list.size(); i += 2) {
    const x = list.lookup(i);
    const y = list.lookup(i + 1);
    if (x instanceof PDFNumber && y instanceof PDFNumber) {
      list.set(i, PDFNumber.of(m.a * x.asNumber() + m.e));
      list.set(i + 1, PDFNumber.of(m.d * y.asNumber() + m.f));
    }
  }
}

function normaliseRect(list: PDFArray): void {
  const rect = rectOf(list);
  if (!rect) return;
  [rect.x, rect.y, rect.x + rect.width, rect.y + rect.height].forEach((value, i) => list.set(i, PDFNumber.of(value)));
}

function rectOf(list: PDFArray): Rect | undefined {
  const values = [0, 1, 2, 3].map((i) => list.lookup(i));
  if (!values.every((v): v is PDFNumber => v instanceof PDFNumber)) return undefined;
  const [x1, y1, x2, y2] = values.map((v) => v.asNumber()) as [number, number, number, number];
  return { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}

function transformRect(rect: Rect, m: Affine): Rect {
  const x1 = m.a * rect.x + m.e;
  const y1 = m.d * rect.y + m.f;
  const x2 = m.a * (rect.x + rect.width) + m.e;
  const y2 = m.d * (rect.y + rect.height) + m.f;
  return { x: Math.min(x1, x2), y: Math.min(y1, y2), width: Math.abs(x2 - x1), height: Math.abs(y2 - y1) };
}

function clip(rect: Rect, bounds: Rect): Rect {
  const x = Math.max(rect.x, bounds.x);
  const y = Math.max(rect.y, bounds.y);
  const x2 = Math.min(rect.x + rect.width, bounds.x + bounds.width);
  const y2 = Math.min(rect.y + rect.height, bounds.y + bounds.height);
  return { x, y, width: Math.max(0, x2 - x), height: Math.max(0, y2 - y) };
}

function setBox(page: PDFPage, key: string, rect: Rect): void {
  const { x, y, width, height } = rect;
  if (key === 'BleedBox') page.setBleedBox(x, y, width, height);
  else if (key === 'TrimBox') page.setTrimBox(x, y, width, height);
  else page.setArtBox(x, y, width, height);
}

function round(value: number): string {
  return value.toFixed(1).replace(/\.0$/, '');
}
