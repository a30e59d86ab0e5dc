import type { TextRun, Unit } from './page-units.js';

/**
 * A page's text units grouped as a reader sees them: runs on one baseline make a line, lines of one
 * size at the block's own line spacing make a block (a paragraph, a heading, a list item). Stream
 * order is reading order: writers emit text in it almost always, and the tagger never reorders
 * content. A line that starts with a bullet or an enumeration ("1.", "a)", "(2)") starts a list item;
 * the lines after it that are indented past its marker continue it.
 */

export type MarkerKind = 'bullet' | 'enumeration';

export interface Block {
  /** Indexes into the page's units, in stream order. */
  units: number[];
  /** The size most of the block's characters have. */
  size: number;
  text: string;
  /** A list item's marker: its kind, and the unit that shows nothing but the marker (its label), if one does. */
  marker?: { kind: MarkerKind; labelUnit?: number };
}

export interface Line {
  units: number[];
  runs: TextRun[];
  x: number;
  y: number;
  endX: number;
  text: string;
}

/** A baseline within this share of the size is the same line. */
const SAME_LINE = 0.5;
/** Without a spacing of its own yet, a block takes the next line within this many sizes. */
const FIRST_GAP = 1.6;
/** A block's later lines may be this much farther apart than its first two. */
const GAP_TOLERANCE = 1.3;
/** Sizes within this ratio are one size. */
const SIZE_RATIO = 1.1;

// Bullets, dashes and the private-use bullets of Symbol and Wingdings that Office writes.
const BULLET = /^\s*([\u2022\u2023\u2043\u2219\u25aa\u25ab\u25cf\u25cb\u25a0\u25a1\u25e6\u00b7\u2013\u2014*\-\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf0a8])(\s+|$)/u;
const ENUMERATION = /^\s*(\(?\d{1,3}(\.\d{1,3})*[.)]|\(?[a-z][.)]|\([ivx]{1,5}\))(\s+|$)/u;

export function listMarker(text: string): { kind: MarkerKind; marker: string } | undefined {
  const bullet = BULLET.exec(text);
  if (bullet) return { kind: 'bullet', marker: bullet[1]! };
  const enumeration = ENUMERATION.exec(text);
  if (enumeration) return { kind: 'enumeration', marker: enumeration[1]! };
  return undefined;
}

/** `skip`: units that belong elsewhere (a table's cells); the lines they start are left out. */
export function textBlocks(units: readonly Unit[], skip: ReadonlySet<number> = new Set()): Block[] {
  const blocks: Block[] = [];
  let current: (Block & { x: number; lastY: number; spacing?: number; markerX?: number }) | undefined;
  for (const line of textLines(units)) {
    if (skip.has(line.units[0]!)) {
      current = undefined; // text after a table starts a block of its own
      continue;
    }
    const size = dominantSize(line.runs);
    const found = listMarker(line.text);
    const gap = current ? current.lastY - line.y : 0;
    const joins =
      current !== undefined &&
      found === undefined &&
      sameSize(current.size, size) &&
      gap > 0 &&
      gap <= (current.spacing !== undefined ? current.spacing * GAP_TOLERANCE : FIRST_GAP * size) &&
      (current.markerX === undefined || line.x > current.markerX + 0.3 * size);
    if (current && joins) {
      current.units.push(...line.units);
      current.text += ` ${line.text}`;
      current.spacing ??= gap;
      current.lastY = line.y;
      continue;
    }
    current = { units: [...line.units], size, text: line.text, x: line.x, lastY: line.y };
    if (found) {
      const first = line.runs[0]!.text.trim();
      current.marker = { kind: found.kind, ...(first === found.marker.trim() && line.units.length > 1 ? { labelUnit: line.units[0]! } : {}) };
      current.markerX = line.x;
    }
    blocks.push(current);
  }
  // Only what the caller needs leaves (the grouping's working fields stay here).
  return blocks.map(({ units: u, size, text, marker }) => ({ units: u, size, text: text.trim(), ...(marker ? { marker } : {}) }));
}

export function textLines(units: readonly Unit[]): Line[] {
  const lines: Line[] = [];
  let line: Line | undefined;
  units.forEach((unit, index) => {
    if (unit.kind !== 'text') return;
    const run = unit.run;
    const blank = run.text.trim() === '';
    if (line && (blank || Math.abs(run.y - line.y) <= SAME_LINE * Math.max(run.size, dominantSize(line.runs)))) {
      // A gap between runs on a line is a word space the writer left out of the strings.
      const spaced = run.x - line.endX > 0.15 * run.size && !line.text.endsWith(' ') && !run.text.startsWith(' ');
      line.text += (spaced ? ' ' : '') + run.text;
      line.units.push(index);
      if (!blank) line.runs.push(run);
      line.endX = Math.max(line.endX, run.endX);
      return;
    }
    if (blank) return; // nothing shown before the first line: unmarked text is neutral
    line = { units: [index], runs: [run], x: run.x, y: run.y, endX: run.endX, text: run.text };
    lines.push(line);
  });
  return lines;
}

/** The size the most characters of the runs have. */
export function dominantSize(runs: readonly TextRun[]): number {
  const weight = new Map<number, number>();
  for (const run of runs) {
    const size = roundSize(run.size);
    weight.set(size, (weight.get(size) ?? 0) + Math.max(1, run.text.length));
  }
  let best = 0;
  let bestWeight = -1;
  for (const [size, w] of weight) {
    if (w > bestWeight) {
      best = size;
      bestWeight = w;
    }
  }
  return best;
}

/** Sizes to the half point: what "the same size" means for headings and body text. */
export function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}

/** Sizes within SIZE_RATIO of each other (two zero sizes are the same too). */
export function sameSize(a: number, b: number): boolean {
  return a > 0 && b > 0 ? Math.max(a, b) / Math.min(a, b) <= SIZE_RATIO : a === b;
}
