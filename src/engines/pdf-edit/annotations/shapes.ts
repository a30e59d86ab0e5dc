import { dashPattern, ellipsePath, fillColor, rectPath, strokeColor } from './content.js';
import type { Box } from './geometry.js';
import { n } from './pdf-values.js';

/**
 * Appearance content of the geometric kinds, in page space. Viewers regenerate appearances
 * differently (or not at all); drawing them here makes every viewer and a later flatten show the same.
 */

export type Color = [number, number, number];
export type Point = [number, number];
/** Top-left, top-right, bottom-left, bottom-right (the order of /QuadPoints as Acrobat writes it). */
export type Quad = [Point, Point, Point, Point];

export interface StrokeStyle {
  width: number;
  style: 'solid' | 'dashed';
  dash: number;
  gap: number;
}

export type DrawMode = 'fill' | 'stroke' | 'fillAndStroke';

/** Square or circle inside `rect`, the border drawn inside the rectangle. */
export function shapeContent(shape: 'square' | 'circle', rect: Box, mode: DrawMode, stroke: Color, fill: Color, border: StrokeStyle): string {
  const strokes = mode !== 'fill' && border.width > 0;
  const fills = mode !== 'stroke';
  if (!strokes && !fills) return '';
  const inset = strokes ? border.width / 2 : 0;
  const box: Box = [rect[0] + inset, rect[1] + inset, rect[2] - inset, rect[3] - inset];
  if (box[2] <= box[0] || box[3] <= box[1]) return '';
  const path = shape === 'square' ? rectPath(box) : ellipsePath(box);
  const ops = [fillColor(fill), strokeColor(stroke), `${n(border.width)} w`, dashPattern(border.style, border.dash, border.gap), path];
  ops.push(strokes && fills ? 'B' : strokes ? 'S' : 'f');
  return `${ops.join('\n')}\n`;
}

export function lineContent(start: Point, end: Point, stroke: Color, border: StrokeStyle): string {
  if (border.width <= 0) return '';
  return [strokeColor(stroke), `${n(border.width)} w`, '1 J', dashPattern(border.style, border.dash, border.gap), `${n(start[0])} ${n(start[1])} m ${n(end[0])} ${n(end[1])} l S`].join('\n') + '\n';
}

const sub = (a: Point, b: Point): Point => [a[0] - b[0], a[1] - b[1]];
const add = (a: Point, b: Point): Point => [a[0] + b[0], a[1] + b[1]];
const scale = (a: Point, f: number): Point => [a[0] * f, a[1] * f];
const length = (a: Point): number => Math.hypot(a[0], a[1]);
const move = (p: Point) => `${n(p[0])} ${n(p[1])} m`;
const line = (p: Point) => `${n(p[0])} ${n(p[1])} l`;

export type MarkupType = 'highlight' | 'underline' | 'strikeOut' | 'squiggly';

/** Text markup over each quadrilateral: a filled area, or a line under, through or waving under it. */
export function markupContent(type: MarkupType, quads: readonly Quad[], color: Color): string {
  const ops: string[] = [];
  for (const [tl, tr, bl, br] of quads) {
    const up = sub(tl, bl);
    const height = length(up);
    if (height <= 0) continue;
    const unitUp = scale(up, 1 / height);
    const along = sub(br, bl);
    const width = length(along);
    if (type === 'highlight') {
      ops.push(fillColor(color), move(tl), line(tr), line(br), line(bl), 'h f');
      continue;
    }
    const thickness = Math.max(0.5, height / 14);
    if (type === 'underline' || type === 'strikeOut') {
      const lift = type === 'underline' ? height * 0.08 : height * 0.45;
      const a = add(bl, scale(unitUp, lift));
      const b = add(br, scale(unitUp, lift));
      ops.push(strokeColor(color), `${n(thickness)} w`, '[] 0 d', move(a), line(b), 'S');
      continue;
    }
    // squiggly: a zigzag along the bottom edge
    if (width <= 0) continue;
    const unitAlong = scale(along, 1 / width);
    const step = Math.max(1, height / 6);
    const amplitude = height / 12;
    const base = add(bl, scale(unitUp, amplitude + thickness / 2));
    const points: Point[] = [];
    for (let t = 0, i = 0; t <= width + 0.001; t += step, i++) {
      points.push(add(add(base, scale(unitAlong, Math.min(t, width))), scale(unitUp, i % 2 === 0 ? -amplitude : amplitude)));
    }
    if (points.length < 2) continue;
    ops.push(strokeColor(color), `${n(thickness)} w`, '[] 0 d', move(points[0]!), ...points.slice(1).map(line), 'S');
  }
  return ops.length === 0 ? '' : `${ops.join('\n')}\n`;
}

/** A redaction mark: the areas outlined. */
export function redactOutline(quads: readonly Quad[], color: Color): string {
  const ops: string[] = [strokeColor(color), '1 w', '[] 0 d'];
  for (const [tl, tr, bl, br] of quads) ops.push(move(tl), line(tr), line(br), line(bl), 'h S');
  return `${ops.join('\n')}\n`;
}

/** The redaction's overlay (/RO): the areas filled as they will look once applied. */
export function redactOverlay(quads: readonly Quad[], fill: Color): string {
  const ops: string[] = [fillColor(fill)];
  for (const [tl, tr, bl, br] of quads) ops.push(move(tl), line(tr), line(br), line(bl), 'h f');
  return `${ops.join('\n')}\n`;
}
