/**
 * What the glyph checks read from an embedded font program (ISO 19005-2 6.2.11.4/6.2.11.5), whatever its format.
 * Readers (truetype.ts, cff.ts, type1.ts) are bounded and throw FontProgramError on anything they cannot read;
 * the caller (readFontProgram) turns that into "no program facts": the glyph rules are then not-checked.
 */
export interface FontProgram {
  readonly format: 'truetype' | 'cff' | 'type1';
  readonly numGlyphs: number;
  /** The glyph index of a glyph name (Type 1 and name-keyed CFF; TrueType through its 'post' names), or undefined. */
  gidOfName(name: string): number | undefined;
  /** The advance width of a glyph in thousandths of text space (the font matrix applied), null when unknown. */
  widthOf(gid: number): number | null;
  /** Every glyph name the program has (Type 1, name-keyed CFF), for CharSet. */
  readonly glyphNames?: ReadonlySet<string>;
  /** The program's own encoding, code → glyph name (Type 1 and CFF), for simple fonts without another. */
  readonly builtinEncoding?: ReadonlyMap<number, string>;
  /** TrueType: the glyph index of a code in the (platform, encoding) cmap subtable; undefined when there is no such subtable. */
  cmapLookup?(platform: number, encoding: number, code: number): number | undefined;
  /** TrueType: whether a glyph has outline data ('loca' gives it a non-empty 'glyf' range); a subset keeps the glyph count but empties the glyphs it drops. Undefined when unknown. */
  hasOutline?(gid: number): boolean | undefined;
  /** CID-keyed CFF: CID → glyph index (from its charset). */
  readonly cidToGid?: ReadonlyMap<number, number>;
}

export class FontProgramError extends Error {}

/** Glyphs a program may have (the formats cap at 65,535). */
export const MAX_GLYPHS = 65_536;

export function need(condition: boolean, what: string): asserts condition {
  if (!condition) throw new FontProgramError(what);
}
