import { Encodings, Font, type IFontNames } from '@cantoo/pdf-lib/standard-fonts';

/**
 * Glyph widths of the 14 standard fonts (their AFM metrics ship with pdf-lib), for simple fonts that
 * name one of them without a /Widths array — the one case where a PDF may leave widths out
 * (§9.6.2.2). Codes become glyph names through the font's encoding (§9.6.6, Annex D).
 */

export type EncodingTable = (string | undefined)[];

const fonts = new Map<string, Font>();

function load(name: IFontNames): Font {
  let font = fonts.get(name);
  if (!font) {
    font = Font.load(name);
    fonts.set(name, font);
  }
  return font;
}

/** The standard font a BaseFont stands for (aliases such as Arial and TimesNewRoman included), if any. */
export function standardFontFor(baseFont: string): IFontNames | undefined {
  const name = baseFont.replace(/^[A-Z]{6}\+/, '');
  const compact = name.replace(/[-,\s]/g, '').toLowerCase();
  const bold = /bold|black|heavy|semibold|demi/.test(compact);
  const italic = /italic|oblique/.test(compact);
  if (compact.startsWith('symbol')) return 'Symbol';
  if (compact.startsWith('zapfdingbats') || compact.startsWith('dingbats')) return 'ZapfDingbats';
  if (compact.startsWith('courier')) return bold ? (italic ? 'Courier-BoldOblique' : 'Courier-Bold') : italic ? 'Courier-Oblique' : 'Courier';
  if (compact.startsWith('helvetica') || compact.startsWith('arial')) {
    return bold ? (italic ? 'Helvetica-BoldOblique' : 'Helvetica-Bold') : italic ? 'Helvetica-Oblique' : 'Helvetica';
  }
  if (compact.startsWith('times')) return bold ? (italic ? 'Times-BoldItalic' : 'Times-Bold') : italic ? 'Times-Italic' : 'Times-Roman';
  return undefined;
}

export interface StandardMetrics {
  /** Width in glyph units (1/1000 em) of a glyph name; undefined when the font has no such glyph. */
  width(glyphName: string): number | undefined;
  /** The font's own encoding: StandardEncoding for the Latin fonts, the built-in one for Symbol and ZapfDingbats. */
  builtinEncoding: EncodingTable;
  ascent: number;
  descent: number;
}

export function standardMetrics(name: IFontNames): StandardMetrics {
  const font = load(name);
  const builtin = name === 'Symbol' ? tableOf(Encodings.Symbol) : name === 'ZapfDingbats' ? tableOf(Encodings.ZapfDingbats) : standardEncoding();
  const bbox = font.FontBBox;
  return {
    width: (glyph) => {
      const width = font.getWidthOfGlyph(glyph);
      return typeof width === 'number' ? width : undefined;
    },
    builtinEncoding: builtin,
    ascent: typeof font.Ascender === 'number' ? font.Ascender : bbox[3],
    descent: typeof font.Descender === 'number' ? font.Descender : bbox[1],
  };
}

let winAnsi: EncodingTable | undefined;
let standard: EncodingTable | undefined;
let macRoman: EncodingTable | undefined;

type PdfLibEncoding = (typeof Encodings)['WinAnsi'];

/** Code → glyph name from one of pdf-lib's encodings (which map Unicode → [code, name]). */
function tableOf(encoding: PdfLibEncoding): EncodingTable {
  const table: EncodingTable = new Array(256).fill(undefined);
  for (const codePoint of encoding.supportedCodePoints) {
    const { code, name } = encoding.encodeUnicodeCodePoint(codePoint);
    if (code >= 0 && code < 256 && table[code] === undefined) table[code] = name;
  }
  return table;
}

export function winAnsiEncoding(): EncodingTable {
  winAnsi ??= tableOf(Encodings.WinAnsi);
  return winAnsi;
}

/** StandardEncoding (Annex D): ASCII with typographic quotes, and its own upper half (octal codes). */
const STANDARD_UPPER: Record<number, string> = {
  0o241: 'exclamdown',
  0o242: 'cent',
  0o243: 'sterling',
  0o244: 'fraction',
  0o245: 'yen',
  0o246: 'florin',
  0o247: 'section',
  0o250: 'currency',
  0o251: 'quotesingle',
  0o252: 'quotedblleft',
  0o253: 'guillemotleft',
  0o254: 'guilsinglleft',
  0o255: 'guilsinglright',
  0o256: 'fi',
  0o257: 'fl',
  0o261: 'endash',
  0o262: 'dagger',
  0o263: 'daggerdbl',
  0o264: 'periodcentered',
  0o266: 'paragraph',
  0o267: 'bullet',
  0o270: 'quotesinglbase',
  0o271: 'quotedblbase',
  0o272: 'quotedblright',
  0o273: 'guillemotright',
  0o274: 'ellipsis',
  0o275: 'perthousand',
  0o277: 'questiondown',
  0o301: 'grave',
  0o302: 'acute',
  0o303: 'circumflex',
  0o304: 'tilde',
  0o305: 'macron',
  0o306: 'breve',
  0o307: 'dotaccent',
  0o310: 'dieresis',
  0o312: 'ring',
  0o313: 'cedilla',
  0o315: 'hungarumlaut',
  0o316: 'ogonek',
  0o317: 'caron',
  0o320: 'emdash',
  0o341: 'AE',
  0o343: 'ordfeminine',
  0o350: 'Lslash',
  0o351: 'Oslash',
  0o352: 'OE',
  0o353: 'ordmasculine',
  0o361: 'ae',
  0o365: 'dotlessi',
  0o370: 'lslash',
  0o371: 'oslash',
  0o372: 'oe',
  0o373: 'germandbls',
};

export function standardEncoding(): EncodingTable {
  if (!standard) {
    const ansi = winAnsiEncoding();
    const table: EncodingTable = new Array(256).fill(undefined);
    for (let code = 32; code < 127; code++) table[code] = ansi[code];
    table[0x27] = 'quoteright';
    table[0x60] = 'quoteleft';
    for (const [code, name] of Object.entries(STANDARD_UPPER)) table[Number(code)] = name;
    standard = table;
  }
  return standard;
}

/** MacRomanEncoding: StandardEncoding's ASCII part (but for two quotes) and the Mac Roman upper half. */
export function macRomanEncoding(): EncodingTable {
  if (!macRoman) {
    const table = standardEncoding().slice(0, 128);
    table[0x27] = 'quotesingle';
    table[0x60] = 'grave';
    const upper =
      'Adieresis Aring Ccedilla Eacute Ntilde Odieresis Udieresis aacute agrave acircumflex adieresis atilde aring ccedilla eacute egrave ' +
      'ecircumflex edieresis iacute igrave icircumflex idieresis ntilde oacute ograve ocircumflex odieresis otilde uacute ugrave ucircumflex udieresis ' +
      'dagger degree cent sterling section bullet paragraph germandbls registered copyright trademark acute dieresis notequal AE Oslash ' +
      'infinity plusminus lessequal greaterequal yen mu partialdiff summation product pi integral ordfeminine ordmasculine Omega ae oslash ' +
      'questiondown exclamdown logicalnot radical florin approxequal Delta guillemotleft guillemotright ellipsis space Agrave Atilde Otilde OE oe ' +
      'endash emdash quotedblleft quotedblright quoteleft quoteright divide lozenge ydieresis Ydieresis fraction currency guilsinglleft guilsinglright fi fl ' +
      'daggerdbl periodcentered quotesinglbase quotedblbase perthousand Acircumflex Ecircumflex Aacute Edieresis Egrave Iacute Icircumflex Idieresis Igrave Oacute Ocircumflex ' +
      'apple Ograve Uacute Ucircumflex Ugrave dotlessi circumflex tilde macron breve dotaccent ring cedilla hungarumlaut ogonek caron';
    macRoman = [...table, ...upper.split(' ')];
  }
  return macRoman;
}

export function namedEncoding(name: string): EncodingTable | undefined {
  if (name === 'WinAnsiEncoding') return winAnsiEncoding();
  if (name === 'MacRomanEncoding') return macRomanEncoding();
  if (name === 'StandardEncoding') return standardEncoding();
  return undefined;
}
