import { randomBytes } from 'node:crypto';
import { PDFString, type PDFContext, type PDFRef } from '@cantoo/pdf-lib';
import { toUnicodeCMap } from '../to-unicode-cmap.js';
import type { TrueTypeFont } from './truetype.js';

/**
 * Embeds a TrueType subset as a Type0 font with Identity-H encoding (2-byte glyph ids of the subset
 * as character codes, CIDToGIDMap /Identity), the widths of the used glyphs and a ToUnicode map, so
 * that text extraction and search give back the original characters (PDF 32000-1, 9.7 and 9.10).
 *
 * @param glyphs Unicode code point → glyph id in `font`, for every character drawn with the font.
 * @returns the font dictionary, and the character code (the subset's glyph id) of each glyph of `glyphs`.
 */
export function embedTrueType(context: PDFContext, font: TrueTypeFont, glyphs: ReadonlyMap<number, number>): { ref: PDFRef; codes: Map<number, number> } {
  const { program, ids: codes } = font.subset([...new Set(glyphs.values())].sort((a, b) => a - b));
  const advances = new Map([...codes].map(([glyph, code]) => [code, font.advance(glyph)]));
  const used = [...advances.keys()].sort((a, b) => a - b);
  const scale = 1000 / font.unitsPerEm;
  const s = (value: number) => Math.round(value * scale);
  // Subset fonts carry a tag of six capital letters (9.6.4).
  const tag = [...randomBytes(6)].map((byte) => String.fromCharCode(65 + (byte % 26))).join('');
  const baseFont = `${tag}+${font.postScriptName}`;

  const fontFile = context.register(context.flateStream(program, { Length1: program.length }));
  const descriptor = context.register(
    context.obj({
      Type: 'FontDescriptor',
      FontName: baseFont,
      // Symbolic (4): the glyphs are addressed by id, not through a standard encoding.
      Flags: 4 | (font.fixedPitch ? 1 : 0) | (font.italicAngle !== 0 ? 64 : 0),
      FontBBox: font.bbox.map(s),
      ItalicAngle: font.italicAngle,
      Ascent: s(font.ascent),
      Descent: s(font.descent),
      CapHeight: s(font.capHeight),
      StemV: 80,
      FontFile2: fontFile,
    }),
  );
  const cidFont = context.register(
    context.obj({
      Type: 'Font',
      Subtype: 'CIDFontType2',
      BaseFont: baseFont,
      CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
      FontDescriptor: descriptor,
      DW: 1000,
      W: widthsArray(used, (code) => s(advances.get(code)!)),
      CIDToGIDMap: 'Identity',
    }),
  );
  const toUnicode = context.register(context.flateStream(toUnicodeCMap(textOfCodes(new Map([...glyphs].map(([cp, glyph]) => [cp, codes.get(glyph) ?? 0]))), 2)));
  const ref = context.register(
    context.obj({
      Type: 'Font',
      Subtype: 'Type0',
      BaseFont: baseFont,
      Encoding: 'Identity-H',
      DescendantFonts: [cidFont],
      ToUnicode: toUnicode,
    }),
  );
  return { ref, codes };
}

/** `/W` in its compact form: `[first [w1 w2 ...] ...]` for runs of consecutive glyph ids. */
function widthsArray(glyphs: readonly number[], width: (glyph: number) => number): (number | number[])[] {
  const result: (number | number[])[] = [];
  let run: number[] = [];
  let runStart = -1;
  let previous = -2;
  for (const glyph of glyphs) {
    if (glyph !== previous + 1) {
      if (run.length > 0) result.push(runStart, run);
      run = [];
      runStart = glyph;
    }
    run.push(width(glyph));
    previous = glyph;
  }
  if (run.length > 0) result.push(runStart, run);
  return result;
}

/** Character code → text for the ToUnicode map: each glyph (code) stands for the first code point drawn with it. */
function textOfCodes(glyphs: ReadonlyMap<number, number>): Map<number, string> {
  const byGlyph = new Map<number, string>();
  for (const [cp, glyph] of glyphs) if (glyph !== 0 && !byGlyph.has(glyph)) byGlyph.set(glyph, String.fromCodePoint(cp));
  return byGlyph;
}
