/**
 * A font of a document that is to be PDF/A-u or -a, for which no Unicode mapping can be derived (no
 * ToUnicode, glyph names outside the Adobe Glyph List, no usable cmap): the level cannot be reached
 * without guessing. Apart from to-unicode.ts so the caller can test for it without loading pdf-lib.
 */
export class MissingUnicodeError extends Error {
  constructor(readonly fonts: string[]) {
    super(`no Unicode mapping can be derived for ${fonts.length === 1 ? 'the font' : 'the fonts'} ${fonts.slice(0, 10).join(', ')}${fonts.length > 10 ? ', …' : ''}`);
  }
}
