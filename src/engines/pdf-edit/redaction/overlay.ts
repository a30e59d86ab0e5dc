import { Encodings } from '@cantoo/pdf-lib/standard-fonts';
import { PDFName, type PDFContext, type PDFDict, type PDFRef } from '@cantoo/pdf-lib';
import { formatHexString, formatNumber } from './content-lexer.js';
import type { RedactionMark } from './redaction-areas.js';
import { dictValue, N } from '../pdf-objects.js';
import { standardMetrics } from './standard-metrics.js';

/**
 * What is painted where content was removed (§12.5.6.23): each area filled with the annotation's
 * interior colour /IC (absent: left empty), and its /OverlayText, if any, written into each area with
 * Helvetica in the size and colour of /DA, aligned by /Q. The text is written once per area (/Repeat
 * is not followed) and an /RO overlay form is not drawn.
 */
export interface Overlay {
  content: string;
  /** The content uses the font resource OVERLAY_FONT. */
  usesFont: boolean;
}

export const OVERLAY_FONT = 'QrOverlayHelv';

export function overlayOf(marks: readonly RedactionMark[]): Overlay {
  const out: string[] = [];
  let usesFont = false;
  for (const mark of marks) {
    if (mark.fill) {
      const rects = mark.areas.map((a) => `${formatNumber(a.x0)} ${formatNumber(a.y0)} ${formatNumber(a.x1 - a.x0)} ${formatNumber(a.y1 - a.y0)} re`).join(' ');
      out.push(`q ${colour(mark.fill, false)} ${rects} f Q`);
    }
    const text = mark.overlayText ? winAnsi(mark.overlayText) : undefined;
    if (!text || text.length === 0) continue;
    usesFont = true;
    const da = parseDa(mark.da);
    for (const area of mark.areas) {
      const width = area.x1 - area.x0;
      const height = area.y1 - area.y0;
      const em = textWidth(text);
      let size = da.size > 0 ? da.size : Math.min(12, height * 0.8);
      if (em * size > width - 4 && em > 0) size = Math.max(1, (width - 4) / em);
      const textWidthPt = em * size;
      const x = mark.quadding === 1 ? area.x0 + (width - textWidthPt) / 2 : mark.quadding === 2 ? area.x1 - 2 - textWidthPt : area.x0 + 2;
      const y = area.y0 + (height - size * 0.718) / 2;
      out.push(
        `q ${formatNumber(area.x0)} ${formatNumber(area.y0)} ${formatNumber(width)} ${formatNumber(height)} re W n BT ${da.colour} /${OVERLAY_FONT} ${formatNumber(size)} Tf ${formatNumber(x)} ${formatNumber(y)} Td ${formatHexString(text)} Tj ET Q`,
      );
    }
  }
  return { content: out.join('\n'), usesFont };
}

function colour(values: readonly number[], stroke: boolean): string {
  const op = values.length === 1 ? 'g' : values.length === 3 ? 'rg' : 'k';
  return `${values.map(formatNumber).join(' ')} ${stroke ? op.toUpperCase() : op}`;
}

/** Font size and fill colour from a default-appearance string such as "/Helv 12 Tf 1 0 0 rg". */
function parseDa(da: string | undefined): { size: number; colour: string } {
  const text = da ?? '';
  const size = Number(/(-?[\d.]+)\s+Tf/.exec(text)?.[1] ?? 0);
  const colourOp = /((?:-?[\d.]+\s+){1,4})(rg|g|k)\b/.exec(text);
  const values = colourOp ? colourOp[1]!.trim().split(/\s+/).map(Number) : [0];
  const expected = colourOp?.[2] === 'rg' ? 3 : colourOp?.[2] === 'k' ? 4 : 1;
  const ok = values.length === expected && values.every(Number.isFinite);
  return { size: Number.isFinite(size) && size > 0 ? size : 0, colour: colour(ok ? values : [0], false) };
}

/** The text as WinAnsi codes (Helvetica's encoding here); characters it lacks become '?'. */
function winAnsi(text: string): Uint8Array {
  const out: number[] = [];
  for (const char of text) {
    const point = char.codePointAt(0)!;
    out.push(Encodings.WinAnsi.canEncodeUnicodeCodePoint(point) ? Encodings.WinAnsi.encodeUnicodeCodePoint(point).code : 0x3f);
  }
  return Uint8Array.from(out);
}

function textWidth(codes: Uint8Array): number {
  const metrics = standardMetrics('Helvetica');
  const names = winAnsiNames();
  let width = 0;
  for (const code of codes) width += (metrics.width(names[code] ?? 'question') ?? 556) / 1000;
  return width;
}

let names: (string | undefined)[] | undefined;
function winAnsiNames(): (string | undefined)[] {
  if (!names) {
    names = new Array(256).fill(undefined);
    for (const point of Encodings.WinAnsi.supportedCodePoints) {
      const { code, name } = Encodings.WinAnsi.encodeUnicodeCodePoint(point);
      names[code] ??= name;
    }
  }
  return names;
}

/** A Helvetica font dictionary for overlay texts, one per document. */
const fonts = new WeakMap<PDFContext, PDFRef>();
export function overlayFont(context: PDFContext): PDFRef {
  let ref = fonts.get(context);
  if (!ref) {
    ref = context.register(context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica', Encoding: 'WinAnsiEncoding' }));
    fonts.set(context, ref);
  }
  return ref;
}

/** `resources` (a copy, or a new dictionary) with the overlay font added. */
export function withOverlayFont(context: PDFContext, resources: PDFDict | undefined): PDFDict {
  const copy = resources ? resources.clone(context) : context.obj({});
  const fontCopy = dictValue(context, copy.get(N('Font')))?.clone(context) ?? context.obj({});
  fontCopy.set(PDFName.of(OVERLAY_FONT), overlayFont(context));
  copy.set(N('Font'), fontCopy);
  return copy;
}
