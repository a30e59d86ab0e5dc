import { StandardFontEmbedder, StandardFonts } from '@cantoo/pdf-lib';
import type { CodeShape } from './encode.js';
import type { Symbology } from './symbologies.js';
import type { CodeStamp } from './stamp.js';

/**
 * The human-readable text under a linear code (`showText`, a Quire extension: docs/barcode.md), as
 * real PDF text in the standard font Helvetica (not embedded: every reader has its metrics), so that
 * text extraction finds it. Laid out by the symbologies' convention:
 *   - EAN-13: the first digit left of the bars, then two groups of six digits between the guard bars,
 *     which reach down between the groups (GS1 General Specifications §5.2.5);
 *   - EAN-8: two groups of four;
 *   - UPC-A: the number system and check digits smaller, outside the bars; two groups of five inside,
 *     the guard bars and the bars of the first and last digit reaching down;
 *   - Code 128, Code 39, Codabar, ITF: the text bwip-js prints (Code 39 with its * start and stop
 *     characters), centred under the bars.
 * The digits and their positions come from bwip-js (`includetext`: it computes check digits and marks
 * which bars reach down). The text keeps its proportions at any box size: a code with text is laid out
 * anew for the aspect of its box (`fitText`), the bars taking the height the text leaves.
 */

export interface HumanText {
  /** The bars: x, width (modules, the quiet zone included) and whether it reaches down into the text (guard bars). */
  bars: [number, number, boolean][];
  /** What is printed: each item's text (PDF literal string syntax), the x of its centre, its size relative to `size`, its width at size 1. */
  items: { text: string; centre: number; scale: number; em: number }[];
  /** Font size in modules. */
  size: number;
  margin: number;
}

/** Text placed in the code's space (a form XObject's text operators, font /F1). */
export interface PlacedText {
  text: string;
  x: number;
  y: number;
  size: number;
}

/**
 * The text's measures: Helvetica's digit and cap height (`ascent`) and the room kept under the baseline
 * for descenders (`descent`), and the gap between the text's top and the bars, per unit of font size;
 * the font size in modules (Helvetica digits 7.2 modules tall, 2.4 mm at EAN's nominal 0.33 mm module,
 * and 5.6 wide, within a digit's 7); the room left (and for UPC-A right) of the bars for a digit
 * printed outside them, in modules.
 */
const TEXT = { ascent: 0.72, descent: 0.22, gap: 0.25, size: 10, outside: 8 } as const;

/** The form resources a code with text needs: the font /F1. */
export const TEXT_FONT_RESOURCES = '<</Font <</F1 <</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>>>>>';
export const TEXT_FONT = { Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica', Encoding: 'WinAnsiEncoding' } as const;

let helvetica: StandardFontEmbedder | undefined;
function em(text: string): number {
  helvetica ??= StandardFontEmbedder.for(StandardFonts.Helvetica as unknown as Parameters<typeof StandardFontEmbedder.for>[0]);
  return helvetica.widthOfTextAtSize(text, 1);
}

/** bwip-js's linear encoding with `includetext`: spaces and bars (`sbs`), bar bottoms (`bbs`, negative: reaching down), the text (`txt`). */
export interface LinearTextRaw {
  sbs: number[];
  bbs: number[];
  txt?: [string, number, number | null, string, number][];
}

/** The code with its text at its natural size: bars `barHeight` modules tall above the text. */
export function textShape(symbology: Symbology, raw: LinearTextRaw, margin: number, barHeight: number): CodeShape {
  const digitsOutside = symbology === 'ean13' || symbology === 'upca';
  const left = margin + (digitsOutside ? TEXT.outside : 0);
  const bars: HumanText['bars'] = [];
  let x = 0;
  raw.sbs.forEach((width, i) => {
    // Even entries are bars, odd ones spaces; only EAN/UPC bars reach down into the text.
    if (i % 2 === 0 && width > 0) bars.push([left + x, width, (symbology === 'ean13' || symbology === 'ean8' || symbology === 'upca') && (raw.bbs[i / 2] ?? 0) < 0]);
    x += width;
  });
  const barsWidth = x;
  const texts = (raw.txt ?? []).map((entry) => printable(entry[0]));
  const digit = (text: string, centre: number, scale = 1) => ({ text: literal(text), centre: left + centre, scale, em: em(text) });
  let items: HumanText['items'];
  if (symbology === 'ean13' && texts.length === 13) {
    items = texts.map((text, i) => (i === 0 ? digit(text, -TEXT.outside / 2) : digit(text, (i <= 6 ? 3 + 7 * (i - 1) : 50 + 7 * (i - 7)) + 3.5)));
  } else if (symbology === 'ean8' && texts.length === 8) {
    items = texts.map((text, i) => digit(text, (i < 4 ? 3 + 7 * i : 36 + 7 * (i - 4)) + 3.5));
  } else if (symbology === 'upca' && texts.length === 12) {
    items = texts.map((text, i) =>
      i === 0 ? digit(text, -TEXT.outside / 2, 0.8) : i === 11 ? digit(text, barsWidth + TEXT.outside / 2, 0.8) : digit(text, (i <= 5 ? 10 + 7 * (i - 1) : 50 + 7 * (i - 6)) + 3.5),
    );
  } else {
    const text = texts.join('');
    const width = em(text) * TEXT.size;
    items = text === '' ? [] : [{ ...digit(text, barsWidth / 2), scale: width > barsWidth ? barsWidth / width : 1 }];
  }
  const human: HumanText = { bars, items, size: TEXT.size, margin };
  const width = left + barsWidth + (symbology === 'upca' ? TEXT.outside : 0) + margin;
  return layOut(human, width, 2 * margin + band(TEXT.size) + barHeight);
}

function band(size: number): number {
  return size * (TEXT.ascent + TEXT.descent + TEXT.gap);
}

/**
 * The code laid out `height` modules tall: the text at the bottom, the bars above it up to the quiet
 * zone. A box too flat for the text at its size gets smaller text: the bars keep two thirds of the height.
 */
export function layOut(human: HumanText, width: number, height: number): CodeShape {
  const { margin } = human;
  const room = height - 2 * margin;
  const size = Math.min(human.size, room / 3 / (TEXT.ascent + TEXT.descent + TEXT.gap));
  const baseline = margin + size * TEXT.descent;
  const barsBottom = margin + band(size);
  const longBottom = baseline + (size * TEXT.ascent) / 2;
  const top = height - margin;
  const rects: CodeShape['rects'] = human.bars.map(([x, w, long]) => {
    const bottom = long ? longBottom : barsBottom;
    return [x, bottom, w, top - bottom];
  });
  const labels = human.items.map((item) => ({ text: item.text, x: item.centre - (item.em * size * item.scale) / 2, y: baseline, size: size * item.scale }));
  return { matrix: false, width, height, rects, human, labels };
}

const fitted = new WeakMap<CodeShape, Map<number, CodeShape>>();

/**
 * The stamp with its code laid out for the aspect of its box, when the code has text and is turned by
 * a quarter turn (other angles keep the natural aspect: codeMatrix fits it into the box): the result
 * keeps square modules (`matrix`), so the text is not stretched. One shape per code and aspect, so
 * that pages with the same box share one form.
 */
export function fitText(stamp: CodeStamp): CodeStamp {
  const { shape, position, rotation } = stamp;
  const turn = ((rotation % 360) + 360) % 360;
  if (!shape.human || turn % 90 !== 0 || position.width <= 0 || position.height <= 0) return stamp;
  const sideways = turn === 90 || turn === 270;
  const aspect = Math.round((sideways ? position.width / position.height : position.height / position.width) * 1e6) / 1e6;
  let byAspect = fitted.get(shape);
  if (!byAspect) fitted.set(shape, (byAspect = new Map()));
  let laidOut = byAspect.get(aspect);
  if (!laidOut) byAspect.set(aspect, (laidOut = { ...layOut(shape.human, shape.width, shape.width * aspect), matrix: true }));
  return { ...stamp, shape: laidOut };
}

/** What Helvetica with WinAnsiEncoding can show: printable ASCII and Latin-1; anything else becomes "?". */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}

/** A PDF literal string's content: \ ( ) escaped, bytes above 127 as octal escapes (the content stream stays ASCII). */
function literal(text: string): string {
  return text.replace(/[\\()]|[^\x20-\x7e]/g, (c) => (c === '\\' || c === '(' || c === ')' ? `\\${c}` : `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`));
}
