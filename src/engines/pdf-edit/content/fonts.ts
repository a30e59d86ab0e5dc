import { PDFHexString, type PDFDocument, type PDFRef } from '@cantoo/pdf-lib';
import { Encodings, Font, FontNames } from '@cantoo/pdf-lib/standard-fonts';
import { PdfContentError } from './errors.js';
import { locateFont, type LocateOptions } from './font-locator.js';
import { embedTrueType } from './type0-font.js';
import type { TrueTypeFont } from './truetype.js';

/**
 * A font ready to draw text with: the font dictionary in the document and the metrics to lay text
 * out. Standard 14 fonts are referenced by name (nothing embedded); anything else, and any text a
 * standard font's encoding cannot show, uses an embedded TrueType subset.
 */
export interface TextFont {
  ref: PDFRef;
  /** The text as a `Tj` operand (hex string). */
  encode(text: string): string;
  widthOf(text: string, size: number): number;
  /** Above the baseline, per size unit (positive). */
  ascent: number;
  /** Below the baseline, per size unit (negative). */
  descent: number;
  underlinePosition: number;
  underlineThickness: number;
  /** The face lacks the weight or slant asked for: draw it (stroke / skew). */
  syntheticBold: boolean;
  syntheticItalic: boolean;
  /** What is used, for logs and tests ("Helvetica-Bold", "DejaVu Sans"). */
  name: string;
}

export interface FontChoice {
  /** Font name as given; "" = Helvetica (the reference's default). */
  name: string;
  bold: boolean;
  italic: boolean;
}

const STANDARD: Record<string, { regular: FontNames; bold?: FontNames; italic?: FontNames; boldItalic?: FontNames; encoding: keyof typeof Encodings }> = {
  helvetica: { regular: FontNames.Helvetica, bold: FontNames.HelveticaBold, italic: FontNames.HelveticaOblique, boldItalic: FontNames.HelveticaBoldOblique, encoding: 'WinAnsi' },
  times: { regular: FontNames.TimesRoman, bold: FontNames.TimesRomanBold, italic: FontNames.TimesRomanItalic, boldItalic: FontNames.TimesRomanBoldItalic, encoding: 'WinAnsi' },
  courier: { regular: FontNames.Courier, bold: FontNames.CourierBold, italic: FontNames.CourierOblique, boldItalic: FontNames.CourierBoldOblique, encoding: 'WinAnsi' },
  symbol: { regular: FontNames.Symbol, encoding: 'Symbol' },
  zapfdingbats: { regular: FontNames.ZapfDingbats, encoding: 'ZapfDingbats' },
};

/** Family and style of a standard 14 font name ("Times-BoldItalic" → times, bold, italic); undefined for other names. */
function standardFamily(name: string): { family: string; bold: boolean; italic: boolean } | undefined {
  const match = /^(helvetica|times|times-roman|courier|symbol|zapfdingbats)(?:-(bold|oblique|italic|boldoblique|bolditalic|roman))?$/.exec(name.trim().toLowerCase().replace(/\s+/g, ''));
  if (!match) return undefined;
  const family = match[1] === 'times-roman' ? 'times' : match[1]!;
  const style = match[2] ?? '';
  return { family, bold: style.startsWith('bold'), italic: /oblique|italic/.test(style) };
}

/**
 * The lines of a text as they are drawn: composed (NFC, so that "e" + combining accent is one
 * character a standard font can show), tabs as spaces, other control and zero-width format
 * characters dropped (right-to-left marks stay, to be refused with the script).
 */
export function drawableLines(text: string): string[] {
  return text
    .normalize('NFC')
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/\t/g, ' ').replace(/[\u0000-\u001f\u007f\u200b-\u200e\u2060\ufeff]/g, ''));
}

/**
 * The font for `texts` (every string that will be drawn with it, so that an embedded subset has all
 * glyphs). Unicode text in scripts that need shaping or right-to-left layout is refused: drawing
 * their characters one by one would be wrong, not just ugly.
 */
export async function loadTextFont(document: PDFDocument, choice: FontChoice, texts: readonly string[], options: LocateOptions = {}): Promise<TextFont> {
  const codePoints = new Set<number>();
  for (const text of texts) for (const char of text) codePoints.add(char.codePointAt(0)!);
  for (const cp of codePoints) {
    if (needsShaping(cp)) {
      throw new PdfContentError(
        'unsupported',
        `the text contains U+${cp.toString(16).toUpperCase().padStart(4, '0')}, a script that needs text shaping or right-to-left layout, which this server does not do.`,
      );
    }
  }
  const requested = choice.name.trim() || 'Helvetica';
  const standard = standardFamily(requested);
  if (standard) {
    const spec = STANDARD[standard.family]!;
    const encoding = Encodings[spec.encoding];
    if ([...codePoints].every((cp) => encoding.canEncodeUnicodeCodePoint(cp))) {
      const bold = choice.bold || standard.bold;
      const italic = choice.italic || standard.italic;
      const face = (bold && italic ? spec.boldItalic : bold ? spec.bold : italic ? spec.italic : spec.regular) ?? spec.regular;
      return standardFont(document, face, { bold: bold && face === spec.regular, italic: italic && (face === spec.regular || face === spec.bold) });
    }
  }
  // Not a standard font, or text its encoding lacks: the closest installed TrueType face.
  const family = standard ? { helvetica: 'Helvetica', times: 'Times', courier: 'Courier', symbol: 'Symbol', zapfdingbats: 'Dingbats' }[standard.family]! : requested;
  const wantBold = choice.bold || (standard?.bold ?? false);
  const wantItalic = choice.italic || (standard?.italic ?? false);
  const located = await locateFont({ family, bold: wantBold, italic: wantItalic }, codePoints, options);
  return embeddedFont(document, located.font, located.family, { bold: wantBold && !located.bold, italic: wantItalic && !located.italic }, codePoints);
}

function standardFont(document: PDFDocument, face: FontNames, synthetic: { bold: boolean; italic: boolean }): TextFont {
  const metrics = Font.load(face);
  const encoding = face === FontNames.Symbol ? Encodings.Symbol : face === FontNames.ZapfDingbats ? Encodings.ZapfDingbats : Encodings.WinAnsi;
  const ref = document.context.register(document.context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: face, ...(encoding === Encodings.WinAnsi ? { Encoding: 'WinAnsiEncoding' } : {}) }));
  const codes = (text: string) => [...text].map((char) => encoding.encodeUnicodeCodePoint(char.codePointAt(0)!));
  const [, bboxBottom, , bboxTop] = metrics.FontBBox;
  return {
    ref,
    name: face,
    encode: (text) =>
      PDFHexString.of(
        codes(text)
          .map((c) => c.code.toString(16).padStart(2, '0'))
          .join(''),
      ).toString(),
    widthOf: (text, size) => (codes(text).reduce((sum, c) => sum + (metrics.getWidthOfGlyph(c.name) ?? 0), 0) * size) / 1000,
    ascent: (metrics.Ascender ?? bboxTop) / 1000,
    descent: (metrics.Descender ?? bboxBottom) / 1000,
    underlinePosition: metrics.UnderlinePosition / 1000,
    underlineThickness: metrics.UnderlineThickness / 1000,
    syntheticBold: synthetic.bold,
    syntheticItalic: synthetic.italic,
  };
}

function embeddedFont(document: PDFDocument, font: TrueTypeFont, family: string, synthetic: { bold: boolean; italic: boolean }, codePoints: ReadonlySet<number>): TextFont {
  const glyphs = new Map<number, number>();
  for (const cp of codePoints) glyphs.set(cp, font.glyphFor(cp));
  const { ref, codes } = embedTrueType(document.context, font, glyphs);
  const scale = 1 / font.unitsPerEm;
  const glyphsOf = (text: string) => [...text].map((char) => glyphs.get(char.codePointAt(0)!) ?? font.glyphFor(char.codePointAt(0)!));
  return {
    ref,
    name: family,
    // A glyph outside the subset (text not announced to loadTextFont) shows as .notdef.
    encode: (text) =>
      `<${glyphsOf(text)
        .map((g) => (codes.get(g) ?? 0).toString(16).padStart(4, '0'))
        .join('')}>`,
    widthOf: (text, size) => glyphsOf(text).reduce((sum, g) => sum + font.advance(g), 0) * scale * size,
    ascent: font.ascent * scale,
    descent: Math.min(font.descent, 0) * scale,
    underlinePosition: font.underlinePosition * scale,
    underlineThickness: font.underlineThickness * scale,
    syntheticBold: synthetic.bold,
    syntheticItalic: synthetic.italic,
  };
}

/** Scripts drawn wrongly without shaping (joining, reordering, mark positioning) or bidi reordering. */
function needsShaping(cp: number): boolean {
  return (
    (cp >= 0x0590 && cp <= 0x08ff) || // Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic Extended
    (cp >= 0x0900 && cp <= 0x0dff) || // Indic scripts
    (cp >= 0x0e00 && cp <= 0x0fff) || // Thai, Lao, Tibetan
    (cp >= 0x1000 && cp <= 0x109f) || // Myanmar
    (cp >= 0x1780 && cp <= 0x18af) || // Khmer, Mongolian
    (cp >= 0xa8e0 && cp <= 0xa8ff) ||
    (cp >= 0xfb1d && cp <= 0xfdff) || // Hebrew and Arabic presentation forms
    (cp >= 0xfe70 && cp <= 0xfefe) ||
    cp === 0x200f || // right-to-left mark and embeddings/overrides/isolates
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    (cp >= 0x10800 && cp <= 0x10fff) || // historic RTL scripts
    (cp >= 0x1e800 && cp <= 0x1efff)
  );
}
