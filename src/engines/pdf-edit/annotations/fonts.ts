import { StandardFonts, type PDFDocument, type PDFFont } from '@cantoo/pdf-lib';

/**
 * The fonts appearance streams are drawn with: the standard 14 (no embedding, WinAnsi). Characters
 * outside their set are drawn as "?" in the appearance; the annotation's /Contents keeps the real
 * text, so a viewer that draws its own appearance shows it.
 */

export type FontFamily = 'Helvetica' | 'Times' | 'Courier';

const FAMILY_ALIASES: Record<string, FontFamily> = {
  '': 'Helvetica',
  helvetica: 'Helvetica',
  helv: 'Helvetica',
  arial: 'Helvetica',
  'sans-serif': 'Helvetica',
  sans: 'Helvetica',
  times: 'Times',
  'times new roman': 'Times',
  'times-roman': 'Times',
  timesroman: 'Times',
  serif: 'Times',
  courier: 'Courier',
  'courier new': 'Courier',
  monospace: 'Courier',
  mono: 'Courier',
};

/** The family a client's font name stands for, or undefined when the server has no such font. */
export function fontFamily(name: string | undefined): FontFamily | undefined {
  return FAMILY_ALIASES[(name ?? '').trim().toLowerCase()];
}

const VARIANTS: Record<FontFamily, [StandardFonts, StandardFonts, StandardFonts, StandardFonts]> = {
  Helvetica: [StandardFonts.Helvetica, StandardFonts.HelveticaBold, StandardFonts.HelveticaOblique, StandardFonts.HelveticaBoldOblique],
  Times: [StandardFonts.TimesRoman, StandardFonts.TimesRomanBold, StandardFonts.TimesRomanItalic, StandardFonts.TimesRomanBoldItalic],
  Courier: [StandardFonts.Courier, StandardFonts.CourierBold, StandardFonts.CourierOblique, StandardFonts.CourierBoldOblique],
};

export function standardFont(family: FontFamily, bold: boolean, italic: boolean): StandardFonts {
  return VARIANTS[family][(bold ? 1 : 0) + (italic ? 2 : 0)]!;
}

/** One embedded font object per standard font and document. */
export class FontCache {
  private readonly fonts = new Map<StandardFonts, Promise<PDFFont>>();
  private readonly charsets = new Map<PDFFont, Set<number>>();

  constructor(private readonly document: PDFDocument) {}

  get(name: StandardFonts): Promise<PDFFont> {
    let font = this.fonts.get(name);
    if (!font) {
      font = this.document.embedFont(name);
      this.fonts.set(name, font);
    }
    return font;
  }

  /** The text with every character the font cannot encode replaced by "?". */
  drawable(font: PDFFont, text: string): string {
    let charset = this.charsets.get(font);
    if (!charset) {
      charset = new Set(font.getCharacterSet());
      this.charsets.set(font, charset);
    }
    let out = '';
    for (const char of text) out += charset.has(char.codePointAt(0)!) ? char : char === '\t' ? ' ' : '?';
    return out;
  }
}

/** `<hex> Tj` for already drawable text. */
export function showText(font: PDFFont, text: string): string {
  return `${font.encodeText(text).toString()} Tj`;
}

/**
 * Lines of at most `maxWidth` points: explicit line breaks are kept, words wrap, a word longer than
 * a line is broken between characters.
 */
export function wrapText(font: PDFFont, size: number, text: string, maxWidth: number): string[] {
  const width = (s: string) => font.widthOfTextAtSize(s, size);
  const lines: string[] = [];
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    let line = '';
    for (const word of paragraph.split(/(\s+)/).filter((w) => w !== '')) {
      if (width(line + word) <= maxWidth) {
        line += word;
        continue;
      }
      if (line.trim() !== '') lines.push(line.trimEnd());
      line = '';
      if (/^\s+$/.test(word)) continue;
      if (width(word) <= maxWidth) {
        line = word;
        continue;
      }
      // A single word wider than the line: break it between characters.
      for (const char of word) {
        if (line !== '' && width(line + char) > maxWidth) {
          lines.push(line);
          line = '';
        }
        line += char;
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}
