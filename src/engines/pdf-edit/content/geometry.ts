import { PDFArray, PDFNumber, type PDFPage } from '@cantoo/pdf-lib';
import { multiply as concat, type Matrix } from '../matrix.js';

// The one affine-matrix module of the editing engines; `concat` is its `multiply` under this module's name.
export { IDENTITY, apply, multiply as concat, type Matrix } from '../matrix.js';

export type Box = [llx: number, lly: number, urx: number, ury: number];

/**
 * A page as a reader shows it: the visible area (CropBox, else MediaBox) turned by /Rotate. Content
 * is placed in "displayed" coordinates (origin bottom-left of the page as seen, y up, points), and
 * `toUser` maps them into the page's own coordinate system, so that a watermark at "top left" is at
 * the top left of a landscape page stored as a rotated portrait page, too.
 */
export interface PageFrame {
  width: number;
  height: number;
  rotation: 0 | 90 | 180 | 270;
  visible: Box;
  toUser: Matrix;
}

export function pageFrame(page: PDFPage): PageFrame {
  const rotateObject = page.node.Rotate();
  return frameOf(readBox(page.node.MediaBox()) ?? [0, 0, 612, 792], readBox(page.node.CropBox()), rotateObject instanceof PDFNumber ? rotateObject.asNumber() : 0);
}

/** The frame of a page from its (inherited) MediaBox, CropBox and /Rotate value, however they were read. */
export function frameOf(media: Box, crop: Box | undefined, raw: number): PageFrame {
  const visible = crop ? intersect(crop, media) : media;
  const rotation = ((((Math.round(raw / 90) * 90) % 360) + 360) % 360) as 0 | 90 | 180 | 270;
  const [llx, lly, urx, ury] = visible;
  const w = urx - llx;
  const h = ury - lly;
  // Derived from turning the unrotated page clockwise by /Rotate and moving it back to the origin.
  const toUser: Matrix = rotation === 0 ? [1, 0, 0, 1, llx, lly] : rotation === 90 ? [0, 1, -1, 0, llx + w, lly] : rotation === 180 ? [-1, 0, 0, -1, llx + w, lly + h] : [0, -1, 1, 0, llx, lly + h];
  const turned = rotation === 90 || rotation === 270;
  return { width: turned ? h : w, height: turned ? w : h, rotation, visible, toUser };
}

/** A box array (`[llx lly urx ury]`, any corner order) as numbers; undefined if absent or malformed. */
export function readBox(array: PDFArray | undefined): Box | undefined {
  if (!(array instanceof PDFArray) || array.size() !== 4) return undefined;
  const values: number[] = [];
  for (let i = 0; i < 4; i++) {
    const item = array.lookup(i);
    if (!(item instanceof PDFNumber)) return undefined;
    values.push(item.asNumber());
  }
  const [x1, y1, x2, y2] = values as [number, number, number, number];
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

function intersect(a: Box, b: Box): Box {
  const box: Box = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  return box[2] > box[0] && box[3] > box[1] ? box : b;
}

/** `Operation_WatermarkPositionMode` / `Operation_BackgroundPositionMode`. */
export type Anchor = 'custom' | 'top_left' | 'top_center' | 'top_right' | 'center_left' | 'center_center' | 'center_right' | 'bottom_left' | 'bottom_center' | 'bottom_right';

export interface Placement {
  /** Size of the content in its own space (a form's BBox from 0,0). */
  naturalWidth: number;
  naturalHeight: number;
  /** Size it is drawn at, before rotation. */
  width: number;
  height: number;
  /** Degrees, clockwise as seen. */
  angle: number;
  anchor: Anchor;
  /** Points. `custom`: the top-left corner of the (rotated) content's bounding box from the top-left
   * of the area; otherwise the distance from the anchor, inwards from the edge it sticks to
   * (rightwards/downwards for centred axes). */
  x: number;
  y: number;
  areaWidth: number;
  areaHeight: number;
}

/** Where content goes: a matrix from its own space into displayed page coordinates. */
export function placementMatrix(p: Placement): Matrix {
  const radians = (p.angle * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  // The bounding box of the rotated content is what is aligned with the page's edges.
  const boundsW = Math.abs(p.width * cos) + Math.abs(p.height * sin);
  const boundsH = Math.abs(p.width * sin) + Math.abs(p.height * cos);
  const [horizontal, vertical] = anchorParts(p.anchor);
  const cx = horizontal === 'left' ? p.x + boundsW / 2 : horizontal === 'right' ? p.areaWidth - p.x - boundsW / 2 : p.areaWidth / 2 + p.x;
  const cy = vertical === 'top' ? p.areaHeight - p.y - boundsH / 2 : vertical === 'bottom' ? p.y + boundsH / 2 : p.areaHeight / 2 - p.y;
  const sx = p.naturalWidth > 0 ? p.width / p.naturalWidth : 1;
  const sy = p.naturalHeight > 0 ? p.height / p.naturalHeight : 1;
  // Centre the content on the origin, scale, turn clockwise (negative in PDF's y-up space), move.
  const centre: Matrix = [1, 0, 0, 1, -p.naturalWidth / 2, -p.naturalHeight / 2];
  const scale: Matrix = [sx, 0, 0, sy, 0, 0];
  const turn: Matrix = [cos, -sin, sin, cos, 0, 0];
  const move: Matrix = [1, 0, 0, 1, cx, cy];
  return concat(concat(concat(centre, scale), turn), move);
}

function anchorParts(anchor: Anchor): ['left' | 'center' | 'right', 'top' | 'center' | 'bottom'] {
  if (anchor === 'custom') return ['left', 'top'];
  const [vertical, horizontal] = anchor.split('_') as ['top' | 'center' | 'bottom', 'left' | 'center' | 'right'];
  return [horizontal, vertical];
}

/**
 * The drawn size of content whose natural size is known, given forced width/height (0 = not forced)
 * and a scale in percent (0 = 100): forcing one side scales the other along; forcing both keeps the
 * aspect ratio inside that area when `aspectRatio`, else stretches.
 */
export function drawnSize(natural: { width: number; height: number }, forced: { width: number; height: number; aspectRatio: boolean }, scalePercent: number): { width: number; height: number } {
  const { width: nw, height: nh } = natural;
  if (forced.width > 0 && forced.height > 0) {
    if (!forced.aspectRatio) return { width: forced.width, height: forced.height };
    const factor = Math.min(forced.width / nw, forced.height / nh);
    return { width: nw * factor, height: nh * factor };
  }
  if (forced.width > 0) return { width: forced.width, height: (nh * forced.width) / nw };
  if (forced.height > 0) return { width: (nw * forced.height) / nh, height: forced.height };
  const factor = (scalePercent > 0 ? scalePercent : 100) / 100;
  return { width: nw * factor, height: nh * factor };
}
