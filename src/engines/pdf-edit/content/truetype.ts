import type { Font, FontCollection } from 'fontkit';
import { PdfContentError } from './errors.js';

/**
 * A TrueType font (glyf outlines) read far enough to lay out text and embed a subset of it in a
 * PDF. fontkit reads the tables and writes the subset; this file only picks the metrics a PDF font
 * descriptor wants and enforces what we embed (TrueType outlines, a licence that allows embedding).
 */
export interface TrueTypeFont {
  postScriptName: string;
  unitsPerEm: number;
  numGlyphs: number;
  /** Font units. */
  ascent: number;
  descent: number;
  capHeight: number;
  bbox: [number, number, number, number];
  italicAngle: number;
  fixedPitch: boolean;
  underlinePosition: number;
  underlineThickness: number;
  /** The glyph for a Unicode code point; 0 (.notdef) if the font has none. */
  glyphFor(codePoint: number): number;
  /** Advance width of a glyph, font units. */
  advance(glyph: number): number;
  /**
   * A font program holding just these glyphs (plus .notdef and composite parts). The subset numbers
   * its glyphs anew: `ids` maps each given glyph id to its id in the program.
   */
  subset(glyphs: Iterable<number>): { program: Buffer; ids: Map<number, number> };
}

/** fontkit on first use: importing it costs ~0.5 s and ~19 MB, which a server that never draws text should not pay at start. */
let fontkit: Promise<typeof import('fontkit')> | undefined;

/** Parses a .ttf, or face `index` of a .ttc. */
export async function parseTrueType(data: Buffer, index = 0, label = 'font'): Promise<TrueTypeFont> {
  fontkit ??= import('fontkit');
  const { create } = await fontkit;
  try {
    return parse(create, data, index);
  } catch (error) {
    if (error instanceof PdfContentError) throw error;
    throw new PdfContentError('unsupported', `The font ${label} cannot be read: ${(error as Error).message}`, { cause: error });
  }
}

function parse(create: typeof import('fontkit').create, data: Buffer, index: number): TrueTypeFont {
  const opened = create(data) as Font | FontCollection;
  let font: Font;
  if ('fonts' in opened) {
    if (index >= opened.fonts.length) throw new Error(`the collection has ${opened.fonts.length} faces`);
    font = opened.fonts[index]!;
  } else {
    font = opened;
  }
  const tables = (font as unknown as { directory: { tables: Record<string, unknown> } }).directory.tables;
  if (tables['CFF '] || tables.CFF2) throw new Error('it has CFF outlines, not TrueType');
  for (const tag of ['head', 'hhea', 'maxp', 'hmtx', 'loca', 'glyf', 'cmap']) if (!tables[tag]) throw new Error(`it has no ${tag} table`);

  const unitsPerEm = font.unitsPerEm;
  const numGlyphs = font.numGlyphs;
  let ascent = font.hhea.ascent;
  let descent = font.hhea.descent;
  let capHeight = Math.round(ascent * 0.7);
  const os2 = tables['OS/2'] ? font['OS/2'] : undefined;
  if (os2) {
    // Restricted-licence or bitmap-only fonts may not be embedded as outlines.
    const { noEmbedding, viewOnly, editable, bitmapOnly } = os2.fsType;
    if ((noEmbedding && !viewOnly && !editable) || bitmapOnly) throw new PdfContentError('unsupported', "the font's licence does not allow embedding it");
    ascent = os2.typoAscender;
    descent = os2.typoDescender;
    if (os2.version >= 2) capHeight = os2.capHeight;
  }
  const post = tables.post ? (font as unknown as { post: { italicAngle: number; underlinePosition: number; underlineThickness: number; isFixedPitch: number } }).post : undefined;
  const { minX, minY, maxX, maxY } = font.bbox;
  const glyphFor = (codePoint: number) => {
    try {
      const glyph = font.glyphForCodePoint(codePoint).id;
      return glyph < numGlyphs ? glyph : 0;
    } catch {
      return 0; // a malformed subtable: treated as not covering the character
    }
  };
  const cmaps = (font as unknown as { cmap: { tables: { platformID: number; encodingID: number }[] } }).cmap.tables;
  if (!cmaps.some((t) => t.platformID === 0 || (t.platformID === 3 && (t.encodingID === 1 || t.encodingID === 10)))) throw new Error('it has no Unicode character map');

  return {
    postScriptName: (font.postscriptName ?? '').replace(/[^\x21-\x7e]|[()<>[\]{}/%#]/g, '').slice(0, 63) || 'EmbeddedFont',
    unitsPerEm,
    numGlyphs,
    ascent,
    descent,
    capHeight,
    bbox: [minX, minY, maxX, maxY],
    italicAngle: post?.italicAngle ?? 0,
    fixedPitch: (post?.isFixedPitch ?? 0) !== 0,
    underlinePosition: post?.underlinePosition ?? -Math.round(unitsPerEm * 0.1),
    underlineThickness: post?.underlineThickness || Math.round(unitsPerEm * 0.05),
    glyphFor,
    advance: (glyph) => font.getGlyph(glyph).advanceWidth,
    subset: (glyphs) => {
      const subset = font.createSubset();
      const ids = new Map<number, number>();
      for (const glyph of glyphs) if (glyph >= 0 && glyph < numGlyphs) ids.set(glyph, subset.includeGlyph(font.getGlyph(glyph)) as unknown as number);
      return { program: Buffer.from(subset.encode()), ids };
    },
  };
}
