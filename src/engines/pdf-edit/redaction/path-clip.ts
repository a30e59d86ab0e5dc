import { formatNumber } from './content-lexer.js';
import { boundsOf, overlapsStrictly, type Rect } from './geometry.js';
import { apply, type Matrix } from '../matrix.js';

/**
 * Vector paths under redaction areas (`redactPaths`): the parts inside the areas are cut away
 * geometrically, so the path data in the file no longer describes them (a covering box alone would
 * leave them in the content stream).
 *
 * Fills: each closed contour that touches an area is flattened to a polygon and intersected with the
 * four strips around the area (left, right, below, above), which together are the plane minus the
 * area. Clipping every contour of a path against the same convex strip keeps the winding number of
 * every point in that strip, so nonzero and even-odd fills paint exactly the original minus the area.
 * Strokes: each segment keeps only its parameter intervals outside the areas (Liang–Barsky). Curves of
 * affected contours are flattened; untouched contours keep their exact curves.
 */

export type Point = readonly [number, number];

export type Segment = { kind: 'l'; to: Point } | { kind: 'c'; c1: Point; c2: Point; to: Point };

export interface Subpath {
  start: Point;
  segments: Segment[];
  closed: boolean;
}

/** Builds subpaths from path-construction operators (user space), as the interpreter meets them. */
export class PathBuilder {
  readonly subpaths: Subpath[] = [];
  private current: Subpath | undefined;
  private point: Point = [0, 0];

  moveTo(x: number, y: number): void {
    this.current = { start: [x, y], segments: [], closed: false };
    this.subpaths.push(this.current);
    this.point = [x, y];
  }

  lineTo(x: number, y: number): void {
    this.ensure().segments.push({ kind: 'l', to: [x, y] });
    this.point = [x, y];
  }

  curveTo(c1: Point, c2: Point, to: Point): void {
    this.ensure().segments.push({ kind: 'c', c1, c2, to });
    this.point = to;
  }

  /** `v`: the first control point is the current point. */
  curveFromCurrent(c2: Point, to: Point): void {
    this.curveTo(this.point, c2, to);
  }

  close(): void {
    if (!this.current) return;
    this.current.closed = true;
    this.point = this.current.start;
    this.current = undefined;
  }

  rect(x: number, y: number, w: number, h: number): void {
    this.moveTo(x, y);
    this.lineTo(x + w, y);
    this.lineTo(x + w, y + h);
    this.lineTo(x, y + h);
    this.close();
  }

  get currentPoint(): Point {
    return this.point;
  }

  private ensure(): Subpath {
    // A segment after `h` (or without any `m`) starts a new subpath at the current point.
    if (!this.current) {
      this.current = { start: this.point, segments: [], closed: false };
      this.subpaths.push(this.current);
    }
    return this.current;
  }
}

function mapSubpath(subpath: Subpath, m: Matrix): Subpath {
  const map = (p: Point): Point => apply(m, p[0], p[1]);
  return {
    start: map(subpath.start),
    closed: subpath.closed,
    segments: subpath.segments.map((s) => (s.kind === 'l' ? { kind: 'l', to: map(s.to) } : { kind: 'c', c1: map(s.c1), c2: map(s.c2), to: map(s.to) })),
  };
}

function subpathBounds(subpath: Subpath): Rect | undefined {
  const points: Point[] = [subpath.start];
  for (const s of subpath.segments) {
    if (s.kind === 'c') points.push(s.c1, s.c2);
    points.push(s.to);
  }
  return boundsOf(points);
}

/** Points along the subpath, curves subdivided by their size. */
function flatten(subpath: Subpath): Point[] {
  const out: Point[] = [subpath.start];
  let from = subpath.start;
  for (const s of subpath.segments) {
    if (s.kind === 'l') out.push(s.to);
    else {
      const hull = Math.hypot(s.c1[0] - from[0], s.c1[1] - from[1]) + Math.hypot(s.c2[0] - s.c1[0], s.c2[1] - s.c1[1]) + Math.hypot(s.to[0] - s.c2[0], s.to[1] - s.c2[1]);
      const steps = Math.max(4, Math.min(96, Math.ceil(hull / 2)));
      for (let i = 1; i <= steps; i++) {
        const t = i / steps;
        const u = 1 - t;
        const a = u * u * u;
        const b = 3 * u * u * t;
        const c = 3 * u * t * t;
        const d = t * t * t;
        out.push([a * from[0] + b * s.c1[0] + c * s.c2[0] + d * s.to[0], a * from[1] + b * s.c1[1] + c * s.c2[1] + d * s.to[1]]);
      }
    }
    from = s.to;
  }
  return out;
}

type HalfPlane = (p: Point) => number; // ≥ 0 inside

function clipByHalfPlane(polygon: Point[], plane: HalfPlane): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < polygon.length; i++) {
    const p = polygon[i]!;
    const q = polygon[(i + 1) % polygon.length]!;
    const dp = plane(p);
    const dq = plane(q);
    if (dp >= 0) out.push(p);
    if (dp >= 0 !== dq >= 0) {
      const t = dp / (dp - dq);
      out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
    }
  }
  return out;
}

/** The polygon minus the rectangle, as pieces in the four strips around it. */
function subtractRect(polygon: Point[], r: Rect): Point[][] {
  const left: HalfPlane = (p) => r.x0 - p[0];
  const right: HalfPlane = (p) => p[0] - r.x1;
  const withinX: HalfPlane[] = [(p) => p[0] - r.x0, (p) => r.x1 - p[0]];
  const below: HalfPlane = (p) => r.y0 - p[1];
  const above: HalfPlane = (p) => p[1] - r.y1;
  const regions: HalfPlane[][] = [[left], [right], [...withinX, below], [...withinX, above]];
  const pieces: Point[][] = [];
  for (const region of regions) {
    let piece = polygon;
    for (const plane of region) {
      if (piece.length < 3) break;
      piece = clipByHalfPlane(piece, plane);
    }
    if (piece.length >= 3) pieces.push(piece);
  }
  return pieces;
}

/** The parts of segment p→q outside every area, as parameter intervals of [0, 1]. */
function outsideIntervals(p: Point, q: Point, areas: readonly Rect[]): [number, number][] {
  const inside: [number, number][] = [];
  const dx = q[0] - p[0];
  const dy = q[1] - p[1];
  for (const r of areas) {
    let t0 = 0;
    let t1 = 1;
    const checks: [number, number][] = [
      [-dx, p[0] - r.x0],
      [dx, r.x1 - p[0]],
      [-dy, p[1] - r.y0],
      [dy, r.y1 - p[1]],
    ];
    let hit = true;
    for (const [pp, qq] of checks) {
      if (Math.abs(pp) < 1e-12) {
        if (qq < 0) {
          hit = false;
          break;
        }
      } else {
        const t = qq / pp;
        if (pp < 0) t0 = Math.max(t0, t);
        else t1 = Math.min(t1, t);
      }
    }
    if (hit && t0 <= t1) inside.push([t0, t1]);
  }
  inside.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let from = 0;
  for (const [a, b] of inside) {
    if (a > from) out.push([from, a]);
    from = Math.max(from, b);
  }
  if (from < 1) out.push([from, 1]);
  // A zero-length segment (a dot) survives only outside all areas.
  if (dx === 0 && dy === 0) return inside.length > 0 ? [] : [[0, 1]];
  return out.filter(([a, b]) => b - a > 1e-9 || (dx === 0 && dy === 0));
}

export interface ClippedPath {
  /** Path-construction operators in user space (empty: nothing is left). */
  text: string;
}

/**
 * The path (user space, painted under `ctm`) minus the areas (page space), for filling or stroking.
 * Returns undefined when no contour reaches into an area (the path stays as written).
 */
export function clipPath(subpaths: readonly Subpath[], ctm: Matrix, inverse: Matrix, areas: readonly Rect[], mode: 'fill' | 'stroke'): ClippedPath | undefined {
  const mapped = subpaths.map((s) => mapSubpath(s, ctm));
  const touched = mapped.map((s) => {
    const box = subpathBounds(s);
    return box !== undefined && overlapsStrictly(inflate(box), areas);
  });
  if (!touched.some(Boolean)) return undefined;
  const parts: string[] = [];
  const back = (p: Point): string => {
    const [x, y] = apply(inverse, p[0], p[1]);
    return `${formatNumber(x)} ${formatNumber(y)}`;
  };
  for (const [index, subpath] of subpaths.entries()) {
    if (!touched[index]) {
      parts.push(writeSubpath(subpath));
      continue;
    }
    const points = flatten(mapped[index]!);
    if (mode === 'fill') {
      let pieces: Point[][] = [points];
      for (const area of areas) {
        pieces = pieces.flatMap((piece) => {
          const box = boundsOf(piece);
          return box && overlapsStrictly(box, [area]) ? subtractRect(piece, area) : [piece];
        });
      }
      for (const piece of pieces)
        parts.push(
          `${back(piece[0]!)} m ${piece
            .slice(1)
            .map((p) => `${back(p)} l`)
            .join(' ')} h`,
        );
    } else {
      const line = mapped[index]!.closed ? [...points, points[0]!] : points;
      let open: Point[] = [];
      const flush = (): void => {
        if (open.length >= 2)
          parts.push(
            `${back(open[0]!)} m ${open
              .slice(1)
              .map((p) => `${back(p)} l`)
              .join(' ')}`,
          );
        open = [];
      };
      if (line.length === 1) line.push(line[0]!);
      for (let i = 0; i + 1 < line.length; i++) {
        const p = line[i]!;
        const q = line[i + 1]!;
        for (const [a, b] of outsideIntervals(p, q, areas)) {
          const from: Point = [p[0] + a * (q[0] - p[0]), p[1] + a * (q[1] - p[1])];
          const to: Point = [p[0] + b * (q[0] - p[0]), p[1] + b * (q[1] - p[1])];
          if (a > 1e-9 || open.length === 0) {
            flush();
            open.push(from);
          }
          open.push(to);
          if (b < 1 - 1e-9) flush();
        }
      }
      flush();
    }
  }
  return { text: parts.join('\n') };
}

/** Hairlines and zero-width boxes still count as touching. */
function inflate(box: Rect): Rect {
  const e = 1e-6;
  return { x0: box.x0 - e, y0: box.y0 - e, x1: box.x1 + e, y1: box.y1 + e };
}

function writeSubpath(subpath: Subpath): string {
  const pt = (p: Point): string => `${formatNumber(p[0])} ${formatNumber(p[1])}`;
  const out = [`${pt(subpath.start)} m`];
  for (const s of subpath.segments) out.push(s.kind === 'l' ? `${pt(s.to)} l` : `${pt(s.c1)} ${pt(s.c2)} ${pt(s.to)} c`);
  if (subpath.closed) out.push('h');
  return out.join(' ');
}
