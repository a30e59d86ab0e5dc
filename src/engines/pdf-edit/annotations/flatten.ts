import { PDFArray, PDFDict, PDFName, PDFRef, PDFStream, type PDFDocument, type PDFPage } from '@cantoo/pdf-lib';
import { boundsOf, boxOf } from './geometry.js';
import { dictOf, n, nameIn, numberOf } from './pdf-values.js';

const FLAG_HIDDEN = 1 << 1;
const FLAG_NO_VIEW = 1 << 5;

/**
 * Burns annotation appearances into page content ("flatten"): the normal appearance stream is drawn
 * where the viewer would draw it (ISO 32000-1 12.5.5: the BBox transformed by /Matrix is mapped onto
 * /Rect), as a form XObject of the page. Hidden and NoView annotations, pop-ups and annotations
 * without an appearance draw nothing, as in a viewer. All drawing for a page goes into one new
 * content stream, after the existing content, which pdf-lib wraps in q … Q so its state cannot leak.
 */
export class AppearanceBurner {
  private readonly pending = new Map<PDFPage, string[]>();

  constructor(private readonly document: PDFDocument) {}

  /** Queues the annotation's appearance for its page; false when there is nothing to draw. */
  burn(page: PDFPage, annotation: PDFDict): boolean {
    const { context } = this.document;
    const flags = numberOf(annotation.lookup(PDFName.of('F'))) ?? 0;
    if (flags & (FLAG_HIDDEN | FLAG_NO_VIEW)) return false;
    if (nameIn(annotation, 'Subtype') === 'Popup') return false;
    const appearances = dictOf(context, annotation.get(PDFName.of('AP')));
    if (!appearances) return false;
    let normal = appearances.get(PDFName.of('N'));
    let resolved = normal instanceof PDFRef ? context.lookup(normal) : normal;
    if (resolved instanceof PDFDict && !(resolved instanceof PDFStream)) {
      // Appearance states (check boxes, radio buttons): the one /AS names.
      const state = nameIn(annotation, 'AS');
      if (state === undefined) return false;
      normal = resolved.get(PDFName.of(state));
      resolved = normal instanceof PDFRef ? context.lookup(normal) : normal;
    }
    if (!(resolved instanceof PDFStream)) return false;
    const rect = boxOf(annotation.lookup(PDFName.of('Rect')));
    const bbox = boxOf(resolved.dict.lookup(PDFName.of('BBox')));
    if (!rect || !bbox) return false;
    const matrix = matrixOf(resolved.dict.lookup(PDFName.of('Matrix')));
    const transformed = boundsOf([apply(matrix, bbox[0], bbox[1]), apply(matrix, bbox[2], bbox[1]), apply(matrix, bbox[0], bbox[3]), apply(matrix, bbox[2], bbox[3])]);
    const width = transformed[2] - transformed[0];
    const height = transformed[3] - transformed[1];
    if (width <= 0 || height <= 0 || rect[2] - rect[0] <= 0 || rect[3] - rect[1] <= 0) return false;
    const sx = (rect[2] - rect[0]) / width;
    const sy = (rect[3] - rect[1]) / height;
    const tx = rect[0] - transformed[0] * sx;
    const ty = rect[1] - transformed[1] * sy;
    // Widget appearances often lack /Type and /Subtype; Do needs a form XObject.
    resolved.dict.set(PDFName.of('Type'), PDFName.of('XObject'));
    resolved.dict.set(PDFName.of('Subtype'), PDFName.of('Form'));
    const ref = normal instanceof PDFRef ? normal : context.register(resolved);
    const name = page.node.newXObject('Flat', ref);
    const list = this.pending.get(page) ?? [];
    list.push(`q ${n(sx)} 0 0 ${n(sy)} ${n(tx)} ${n(ty)} cm ${name.toString()} Do Q`);
    this.pending.set(page, list);
    return true;
  }

  /** Writes the queued drawing, one content stream per page. */
  finish(): void {
    const { context } = this.document;
    for (const [page, operations] of this.pending) {
      const ref = context.register(context.flateStream(`${operations.join('\n')}\n`));
      page.node.addContentStream(ref);
    }
    this.pending.clear();
  }
}

type Matrix = [number, number, number, number, number, number];

function matrixOf(value: unknown): Matrix {
  if (value instanceof PDFArray && value.size() === 6) {
    const numbers = value.asArray().map((v) => numberOf(v) ?? NaN);
    if (numbers.every(Number.isFinite)) return numbers as Matrix;
  }
  return [1, 0, 0, 1, 0, 0];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}
