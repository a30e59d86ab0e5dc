import type { PageBox } from '../../engines/barcode/index.js';

/**
 * Positions between the rendered image and the caller's units. A page image shows the page as
 * displayed (its /Rotate applied), so pixels map to "user" coordinates (top-left origin, y down);
 * "pdf" coordinates start at the bottom-left of the unrotated crop box, y up — the conventions of
 * `Operation_Rectangle` in add (engines/pdf-edit/annotations/geometry.ts).
 */

export type Metrics = 'pt' | 'pc' | 'px' | 'mm' | 'in';
const POINTS_PER: Record<Metrics, number> = { pt: 1, pc: 12, px: 0.75, mm: 72 / 25.4, in: 72 };

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Units {
  metrics: Metrics;
  coordinates: 'user' | 'pdf';
}

/** Size of the page as displayed, in points. */
export function displayedSize(page: Pick<PageBox, 'cropBox' | 'rotation'>): { width: number; height: number } {
  const width = page.cropBox[2] - page.cropBox[0];
  const height = page.cropBox[3] - page.cropBox[1];
  return page.rotation === 90 || page.rotation === 270 ? { width: height, height: width } : { width, height };
}

/** A point of the unrotated page (from the crop box's bottom-left, y up) → displayed (top-left, y down). */
function pdfToDisplay(x: number, y: number, page: Pick<PageBox, 'cropBox' | 'rotation'>): [number, number] {
  const w = page.cropBox[2] - page.cropBox[0];
  const h = page.cropBox[3] - page.cropBox[1];
  switch (page.rotation) {
    case 90:
      return [y, x];
    case 180:
      return [w - x, y];
    case 270:
      return [h - y, w - x];
    default:
      return [x, h - y];
  }
}

/** A displayed point → the unrotated page (the inverse of pdfToDisplay). */
function displayToPdf(u: number, v: number, page: Pick<PageBox, 'cropBox' | 'rotation'>): [number, number] {
  const w = page.cropBox[2] - page.cropBox[0];
  const h = page.cropBox[3] - page.cropBox[1];
  switch (page.rotation) {
    case 90:
      return [v, u];
    case 180:
      return [w - u, v];
    case 270:
      return [w - v, h - u];
    default:
      return [u, h - v];
  }
}

function bounds(points: [number, number][]): Rect {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** A caller's rectangle (scanArea) as a displayed rectangle in points. */
export function toDisplayPoints(rect: Rect, units: Units, page: Pick<PageBox, 'cropBox' | 'rotation'>): Rect {
  const k = POINTS_PER[units.metrics];
  const r = { x: rect.x * k, y: rect.y * k, width: rect.width * k, height: rect.height * k };
  if (units.coordinates === 'user') return r;
  return bounds([pdfToDisplay(r.x, r.y, page), pdfToDisplay(r.x + r.width, r.y + r.height, page)]);
}

/** Displayed corners in points → the caller's rectangle (their bounding box) in its units. */
export function fromDisplayPoints(corners: [number, number][], units: Units, page: Pick<PageBox, 'cropBox' | 'rotation'>): Rect {
  const points = units.coordinates === 'user' ? corners : corners.map(([u, v]) => displayToPdf(u, v, page));
  const box = bounds(points);
  const k = POINTS_PER[units.metrics];
  const round = (n: number) => Math.round((n / k) * 100) / 100;
  return { x: round(box.x), y: round(box.y), width: round(box.width), height: round(box.height) };
}
