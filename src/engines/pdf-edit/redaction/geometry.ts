import { apply, type Matrix } from '../matrix.js';

/** An axis-parallel rectangle in default user space (points), normalised: x0 ≤ x1, y0 ≤ y1. */
export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export function rectOf(a: number, b: number, c: number, d: number): Rect {
  return { x0: Math.min(a, c), y0: Math.min(b, d), x1: Math.max(a, c), y1: Math.max(b, d) };
}

export function boundsOf(points: readonly (readonly [number, number])[]): Rect | undefined {
  if (points.length === 0) return undefined;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of points) {
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return x0 <= x1 ? { x0, y0, x1, y1 } : undefined;
}

/** The box of a local rectangle [lx0,lx1]×[ly0,ly1] after `m`. */
export function transformedBounds(m: Matrix, lx0: number, ly0: number, lx1: number, ly1: number): Rect {
  return boundsOf([apply(m, lx0, ly0), apply(m, lx1, ly0), apply(m, lx0, ly1), apply(m, lx1, ly1)])!;
}

/** Whether the rectangles share interior or touch (closed intersection). */
export function overlaps(a: Rect, b: Rect): boolean {
  return a.x0 <= b.x1 && b.x0 <= a.x1 && a.y0 <= b.y1 && b.y0 <= a.y1;
}

export function overlapsAny(box: Rect, areas: readonly Rect[]): boolean {
  return areas.some((area) => overlaps(box, area));
}

export function inside(areas: readonly Rect[], x: number, y: number): boolean {
  for (const a of areas) if (x >= a.x0 && x <= a.x1 && y >= a.y0 && y <= a.y1) return true;
  return false;
}

const SAMPLES = 10;

/**
 * The share (0…1) of a local box [lx0,lx1]×[ly0,ly1], mapped by `m` into page space, that lies in
 * the union of `areas`, measured on a 10×10 grid of sample points (cell centres). Sampling handles
 * rotated and skewed glyphs and overlapping areas alike; its 1 % resolution is plenty for a
 * threshold given in whole percent. A degenerate box (zero width or height) still samples its line
 * or point, so zero-width glyphs and zero-size text are judged by where they stand.
 */
export function coveredShare(m: Matrix, lx0: number, ly0: number, lx1: number, ly1: number, areas: readonly Rect[]): number {
  let hits = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const lx = lx0 + ((i + 0.5) / SAMPLES) * (lx1 - lx0);
    for (let j = 0; j < SAMPLES; j++) {
      const ly = ly0 + ((j + 0.5) / SAMPLES) * (ly1 - ly0);
      const [x, y] = apply(m, lx, ly);
      if (inside(areas, x, y)) hits++;
    }
  }
  return hits / (SAMPLES * SAMPLES);
}

/**
 * Whether content covering that share of its box is redacted: `collisionRatio` is the percentage a
 * glyph must be covered (webPDF `Operation_Blacken.collisionRatio`); 0 takes any overlap at all.
 */
export function meetsRatio(share: number, collisionRatio: number, touches: boolean): boolean {
  if (collisionRatio <= 0) return touches || share > 0;
  return share * 100 >= collisionRatio - 1e-9;
}

/** Whether the boxes overlap with positive area (a shared edge is not enough). */
export function overlapsStrictly(box: Rect, areas: readonly Rect[]): boolean {
  return areas.some((a) => box.x0 < a.x1 && a.x0 < box.x1 && box.y0 < a.y1 && a.y0 < box.y1);
}
