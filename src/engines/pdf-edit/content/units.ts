import { PdfContentError } from './errors.js';

/** `Operation_Metrics`: the units lengths are given in (px is the CSS pixel, 1/96 in). */
export type Metrics = 'pt' | 'pc' | 'px' | 'mm' | 'in';

const POINTS_PER_UNIT: Record<Metrics, number> = { pt: 1, pc: 12, px: 72 / 96, mm: 72 / 25.4, in: 72 };

/** A length in the given unit as PDF points (1/72 in). */
export function toPoints(value: number, metrics: Metrics | undefined): number {
  return value * POINTS_PER_UNIT[metrics ?? 'mm'];
}

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** `#RRGGBB` as PDF colour components (0-1). */
export function parseColor(value: string, member: string): Rgb {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(value.trim());
  if (!match) throw new PdfContentError('invalidOptions', `"${value}" is not a colour of the form #RRGGBB.`, { member });
  return { r: parseInt(match[1]!, 16) / 255, g: parseInt(match[2]!, 16) / 255, b: parseInt(match[3]!, 16) / 255 };
}

/** A number as content-stream syntax: no exponent, at most 4 decimals, no "-0". */
export function num(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  const rounded = Math.round(value * 10000) / 10000;
  return Object.is(rounded, -0) || rounded === 0 ? '0' : String(rounded);
}

export function rgbOperands(color: Rgb): string {
  return `${num(color.r)} ${num(color.g)} ${num(color.b)}`;
}
