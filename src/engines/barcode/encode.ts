import bwipjs from 'bwip-js';
import { num } from '../pdf-edit/content/units.js';
import { BarcodeError } from './errors.js';
import { type HumanText, type LinearTextRaw, type PlacedText, TEXT_FONT_RESOURCES, textShape } from './human-readable.js';
import { bwipOptions, type CodeSpec, MATRIX_SYMBOLOGIES } from './symbologies.js';

/**
 * A code as vector shapes: filled rectangles in the code's own space (origin bottom-left, y up, one
 * unit = one module horizontally), the quiet zone included in `width`/`height`.
 */
export interface CodeShape {
  matrix: boolean;
  width: number;
  height: number;
  /** [x, y, width, height] of each dark area. */
  rects: [number, number, number, number][];
  /** Instead of rectangles: a one-page PDF of `width` × `height` points drawn as it is (the Swiss QR bill, swiss-bill.ts). */
  page?: Uint8Array;
  /** A linear code with its human-readable text (human-readable.ts): what it is laid out from, and the text placed. */
  human?: HumanText;
  labels?: PlacedText[];
}

/** bwip-js's linear encoding: spaces and bars alternating (`sbs`), bar heights and bottoms in inches. */
interface LinearRaw {
  sbs: number[];
  bhs: number[];
  bbs: number[];
}
/** Its matrix encoding: `pixx` × `pixy` modules, row by row from the top; `width`/`height` give the aspect. */
interface MatrixRaw {
  pixs: number[];
  pixx: number;
  pixy: number;
  width: number;
  height: number;
}

/** Modules per inch of bwip-js's linear bar heights (its module is 1/72 in at scale 1). */
const MODULES_PER_INCH = 72;

/**
 * Encodes a code with bwip-js (the Barcode Writer in Pure PostScript, ported), as module data
 * turned into rectangles: the page gets vector paths, never a bitmap. Runs of dark modules in a row
 * become one rectangle, so a QR code costs a few hundred operators.
 */
export function encodeCode(spec: CodeSpec): CodeShape {
  const { bcid, options } = bwipOptions(spec);
  const withText = spec.text === true && !MATRIX_SYMBOLOGIES.has(spec.symbology);
  let raw: unknown;
  try {
    raw = (bwipjs.raw as (bcid: string, text: string, options: object) => unknown)(bcid, spec.value, withText ? { ...options, includetext: true } : options);
  } catch (error) {
    throw new BarcodeError('invalidValue', bwipMessage(error), { cause: error });
  }
  const first = (raw as unknown[])[0] as Partial<LinearRaw & MatrixRaw> | undefined;
  if (!first) throw new BarcodeError('failed', `the ${spec.symbology} encoder produced nothing.`);
  const margin = spec.margin;
  if (first.pixs && first.pixx && first.pixy) return matrixShape(first as MatrixRaw, margin);
  if (first.sbs && first.bhs && withText) {
    const heights = first.bhs.map((h) => h * MODULES_PER_INCH);
    return textShape(spec.symbology, first as LinearRaw & LinearTextRaw, margin, heights.length > 0 ? Math.min(...heights) : MODULES_PER_INCH);
  }
  if (first.sbs && first.bhs) return linearShape(first as LinearRaw, margin, MATRIX_SYMBOLOGIES.has(spec.symbology));
  throw new BarcodeError('failed', `the ${spec.symbology} encoder returned an unknown structure.`);
}

function matrixShape(raw: MatrixRaw, margin: number): CodeShape {
  const { pixs, pixx, pixy } = raw;
  // PDF417 rows are several modules tall: bwip-js's width/height carry the aspect of the symbol.
  const cell = raw.width > 0 && raw.height > 0 ? (raw.height / raw.width) * (pixx / pixy) : 1;
  const rects: CodeShape['rects'] = [];
  for (let row = 0; row < pixy; row++) {
    const y = margin + (pixy - 1 - row) * cell;
    let start = -1;
    for (let col = 0; col <= pixx; col++) {
      const dark = col < pixx && pixs[row * pixx + col] === 1;
      if (dark && start < 0) start = col;
      if (!dark && start >= 0) {
        rects.push([margin + start, y, col - start, cell]);
        start = -1;
      }
    }
  }
  return { matrix: true, width: pixx + 2 * margin, height: pixy * cell + 2 * margin, rects };
}

function linearShape(raw: LinearRaw, margin: number, matrix: boolean): CodeShape {
  const heights = raw.bhs.map((h) => h * MODULES_PER_INCH);
  const tallest = heights.reduce((a, b) => Math.max(a, b), 1);
  const rects: CodeShape['rects'] = [];
  let x = margin;
  raw.sbs.forEach((width, i) => {
    // Even entries are bars, odd ones spaces.
    if (i % 2 === 0 && width > 0) {
      const bar = i / 2;
      const bottom = (raw.bbs[bar] ?? 0) * MODULES_PER_INCH;
      rects.push([x, margin + bottom, width, heights[bar] ?? tallest]);
    }
    x += width;
  });
  return { matrix, width: x + margin, height: tallest + 2 * margin, rects };
}

/** bwip-js's errors read "bwipp.ean13badCheckDigit#6915: Incorrect EAN-13 check digit provided": the sentence is for the client. */
function bwipMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const sentence = text.replace(/^bwipp?\.[A-Za-z0-9]+#\d+:\s*/, '').trim();
  return sentence === '' ? 'the value cannot be encoded' : sentence;
}

/** The content of a code's form XObject: a white ground over its whole size (quiet zone included), then its dark rectangles. */
export function formContent(shape: CodeShape): string {
  const parts = [`1 g 0 0 ${num(shape.width)} ${num(shape.height)} re f 0 g`];
  for (const [x, y, w, h] of shape.rects) parts.push(`${num(x)} ${num(y)} ${num(w)} ${num(h)} re`);
  parts.push('f');
  for (const label of shape.labels ?? []) parts.push(`BT /F1 ${num(label.size)} Tf ${num(label.x)} ${num(label.y)} Td (${label.text}) Tj ET`);
  return parts.join('\n');
}

/** The resources of a code's form XObject (PDF syntax): the font of its text, if it has any. */
export function formResources(shape: CodeShape): string {
  return shape.labels?.length ? TEXT_FONT_RESOURCES : '<<>>';
}
