import { PDFArray, PDFNumber, type PDFPage } from '@cantoo/pdf-lib';

/**
 * Positions as webPDF gives them (`Operation_Point`, `Operation_Rectangle`: a unit and an origin)
 * turned into PDF user space of one page. This is the one place that knows the conventions:
 *
 * - `coordinates: "user"`: origin at the top-left corner of the page as the reader sees it (the
 *   page's /Rotate applied), x to the right, y downwards;
 * - `coordinates: "pdf"`: origin at the bottom-left corner of the unrotated page, y upwards;
 * - both measured from the visible area (CropBox, else MediaBox), in `metrics` units.
 */

export type Metrics = 'pt' | 'pc' | 'px' | 'mm' | 'in';
export type CoordinateSystem = 'pdf' | 'user';

export interface PointSpec {
  coordinates?: CoordinateSystem;
  metrics?: Metrics;
  x?: number;
  y?: number;
}

export interface RectangleSpec extends PointSpec {
  width?: number;
  height?: number;
}

/** [left, bottom, right, top] in PDF user space. */
export type Box = [number, number, number, number];

const POINTS_PER: Record<Metrics, number> = { pt: 1, pc: 12, px: 0.75, mm: 72 / 25.4, in: 72 };

/** A length in points; unknown units count as the reference's default, mm. */
export function toPoints(value: number | undefined, metrics: Metrics | undefined): number {
  return (value ?? 0) * (POINTS_PER[metrics ?? 'mm'] ?? POINTS_PER.mm);
}

/** The page's visible box and rotation, read once per page. */
export class PageGeometry {
  readonly left: number;
  readonly bottom: number;
  readonly width: number;
  readonly height: number;
  /** 0, 90, 180 or 270 (clockwise, as /Rotate). */
  readonly rotation: number;

  constructor(page: PDFPage) {
    const box = visibleBox(page);
    this.left = box[0];
    this.bottom = box[1];
    this.width = box[2] - box[0];
    this.height = box[3] - box[1];
    const rotate = page.node.Rotate();
    const angle = rotate instanceof PDFNumber ? rotate.asNumber() : 0;
    this.rotation = (((Math.round(angle / 90) * 90) % 360) + 360) % 360;
  }

  /** The page's visible box. */
  get box(): Box {
    return [this.left, this.bottom, this.left + this.width, this.bottom + this.height];
  }

  /** A point in PDF user space. */
  point(spec: PointSpec): [number, number] {
    const u = toPoints(spec.x, spec.metrics);
    const v = toPoints(spec.y, spec.metrics);
    if ((spec.coordinates ?? 'user') === 'pdf') return [this.left + u, this.bottom + v];
    return this.fromDisplay(u, v);
  }

  /** A rectangle in PDF user space, normalised. */
  rectangle(spec: RectangleSpec): Box {
    const u = toPoints(spec.x, spec.metrics);
    const v = toPoints(spec.y, spec.metrics);
    const w = toPoints(spec.width, spec.metrics);
    const h = toPoints(spec.height, spec.metrics);
    if ((spec.coordinates ?? 'user') === 'pdf') return normalise([this.left + u, this.bottom + v, this.left + u + w, this.bottom + v + h]);
    const [x1, y1] = this.fromDisplay(u, v);
    const [x2, y2] = this.fromDisplay(u + w, v + h);
    return normalise([x1, y1, x2, y2]);
  }

  /** Display coordinates (top-left origin, y down, rotation applied) → unrotated user space. */
  private fromDisplay(u: number, v: number): [number, number] {
    const { left, bottom, width, height } = this;
    switch (this.rotation) {
      case 90:
        return [left + v, bottom + u];
      case 180:
        return [left + width - u, bottom + v];
      case 270:
        return [left + width - v, bottom + height - u];
      default:
        return [left + u, bottom + height - v];
    }
  }
}

export function normalise(box: Box): Box {
  return [Math.min(box[0], box[2]), Math.min(box[1], box[3]), Math.max(box[0], box[2]), Math.max(box[1], box[3])];
}

/** The smallest box holding all points. */
export function boundsOf(points: readonly (readonly [number, number])[]): Box {
  // A loop, not Math.min(...xs): spreading a long point list as arguments overflows the stack.
  let [x0, y0, x1, y1] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const [x, y] of points) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return [x0, y0, x1, y1];
}

export function grow(box: Box, by: number): Box {
  return [box[0] - by, box[1] - by, box[2] + by, box[3] + by];
}

export function overlaps(a: Box, b: Box): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/** A PDF rectangle array as a normalised box, or undefined when it is not four numbers. */
export function boxOf(value: unknown): Box | undefined {
  if (!(value instanceof PDFArray) || value.size() !== 4) return undefined;
  const numbers = value.asArray().map((item) => (item instanceof PDFNumber ? item.asNumber() : NaN));
  if (numbers.some((n) => !Number.isFinite(n))) return undefined;
  return normalise(numbers as Box);
}

function visibleBox(page: PDFPage): Box {
  const crop = boxOf(page.node.CropBox());
  const media = boxOf(page.node.MediaBox()) ?? [0, 0, 612, 792];
  if (!crop) return media;
  // The visible area is the crop box clipped to the media box.
  const clipped: Box = [Math.max(crop[0], media[0]), Math.max(crop[1], media[1]), Math.min(crop[2], media[2]), Math.min(crop[3], media[3])];
  return clipped[2] > clipped[0] && clipped[3] > clipped[1] ? clipped : media;
}
