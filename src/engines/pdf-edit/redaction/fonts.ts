import { PDFArray, PDFDict, PDFName, PDFStream, type PDFContext } from '@cantoo/pdf-lib';
import { latin1 } from './content-lexer.js';
import { arrayValue, dictValue, get, nameValue, numbersOf, numberValue, resolve } from '../pdf-objects.js';
import { decodeStream } from './stream-codec.js';
import { namedEncoding, standardFontFor, standardMetrics, type EncodingTable } from './standard-metrics.js';

/**
 * What the redactor needs to know of a font to place each glyph (§9.2.4, §9.4.4): how a string
 * splits into character codes, each code's horizontal displacement, and the glyph box height. Fonts
 * for which this cannot be known reliably carry `unsupported`; pages that show such text under a
 * redaction area are rasterised instead (see blacken.ts).
 */
export interface CharCode {
  code: number;
  /** Offset and length of the code's bytes in the string. */
  offset: number;
  length: number;
}

export interface FontInfo {
  unsupported?: string;
  split(bytes: Uint8Array): CharCode[];
  /** Horizontal displacement w0 in text space units for a font size of 1. */
  width(code: number): number;
  /** Glyph box top and bottom in text space units for a font size of 1. */
  ascent: number;
  descent: number;
  /** Word spacing (Tw) applies to this code: the single-byte code 32 (§9.3.3). */
  isWordSpace(code: CharCode): boolean;
}

const DEFAULT_ASCENT = 0.9;
const DEFAULT_DESCENT = -0.25;

const cache = new WeakMap<PDFDict, FontInfo>();

/** A font unknown to the resources (or not a dictionary): text in it cannot be placed. */
export const MISSING_FONT: FontInfo = unsupportedFont('a font missing from the page resources');

export function fontInfo(context: PDFContext, font: PDFDict): FontInfo {
  let info = cache.get(font);
  if (!info) {
    try {
      info = readFont(context, font);
    } catch (error) {
      info = unsupportedFont(`a font that cannot be read (${(error as Error).message})`);
    }
    cache.set(font, info);
  }
  return info;
}

function unsupportedFont(reason: string): FontInfo {
  return { unsupported: reason, split: singleBytes, width: () => 0, ascent: DEFAULT_ASCENT, descent: DEFAULT_DESCENT, isWordSpace: () => false };
}

function singleBytes(bytes: Uint8Array): CharCode[] {
  return Array.from(bytes, (code, offset) => ({ code, offset, length: 1 }));
}

function readFont(context: PDFContext, font: PDFDict): FontInfo {
  const subtype = nameValue(context, font.get(PDFName.of('Subtype')));
  if (subtype === 'Type0') return readCompositeFont(context, font);
  if (subtype === 'Type3') return readType3Font(context, font);
  return readSimpleFont(context, font);
}

function verticalExtent(context: PDFContext, descriptor: PDFDict | undefined, fallback?: { ascent: number; descent: number }): { ascent: number; descent: number } {
  let ascent = numberValue(context, get(context, descriptor, 'Ascent'));
  let descent = numberValue(context, get(context, descriptor, 'Descent'));
  if (!ascent && !descent) {
    const bbox = numbersOf(context, get(context, descriptor, 'FontBBox'));
    if (bbox && bbox.length === 4 && bbox.every(Number.isFinite) && bbox[3]! > bbox[1]!) {
      ascent = bbox[3];
      descent = bbox[1];
    } else if (fallback) {
      ascent = fallback.ascent;
      descent = fallback.descent;
    }
  }
  return saneExtent((ascent ?? 0) / 1000, (descent ?? 0) / 1000);
}

function saneExtent(ascent: number, descent: number): { ascent: number; descent: number } {
  // Broken descriptors (0/0, ascent below descent, absurd sizes) fall back to typical Latin values.
  return {
    ascent: ascent > 0.2 && ascent <= 3 ? ascent : DEFAULT_ASCENT,
    descent: descent <= 0 && descent >= -2 ? descent : DEFAULT_DESCENT,
  };
}

/** Type1, MMType1, TrueType: one byte per code, widths from /Widths or the standard 14 metrics. */
function readSimpleFont(context: PDFContext, font: PDFDict): FontInfo {
  const descriptor = dictValue(context, font.get(PDFName.of('FontDescriptor')));
  const missingWidth = (numberValue(context, get(context, descriptor, 'MissingWidth')) ?? 0) / 1000;
  const baseFont = nameValue(context, font.get(PDFName.of('BaseFont'))) ?? '';
  const standard = standardFontFor(baseFont);
  const standardInfo = standard ? standardMetrics(standard) : undefined;
  const extent = verticalExtent(context, descriptor, standardInfo);
  const widthsArray = numbersOf(context, font.get(PDFName.of('Widths')));
  const firstChar = numberValue(context, font.get(PDFName.of('FirstChar'))) ?? 0;

  let width: (code: number) => number;
  if (widthsArray && widthsArray.length > 0) {
    width = (code) => {
      const w = widthsArray[code - firstChar];
      return w !== undefined && Number.isFinite(w) ? w / 1000 : missingWidth;
    };
  } else if (standardInfo) {
    const encoding = encodingOf(context, font, standardInfo.builtinEncoding);
    width = (code) => {
      const glyph = encoding[code];
      return glyph === undefined ? missingWidth : (standardInfo.width(glyph) ?? 0) / 1000;
    };
  } else {
    return unsupportedFont(`the font ${baseFont || '(unnamed)'} without glyph widths`);
  }
  return { split: singleBytes, width, ...extent, isWordSpace: (c) => c.length === 1 && c.code === 32 };
}

/** The code → glyph name table of a simple font: base encoding plus /Differences. */
function encodingOf(context: PDFContext, font: PDFDict, builtin: EncodingTable): EncodingTable {
  const encoding = resolve(context, font.get(PDFName.of('Encoding')));
  if (encoding instanceof PDFName) return namedEncoding(encoding.decodeText()) ?? builtin;
  if (!(encoding instanceof PDFDict)) return builtin;
  const base = nameValue(context, encoding.get(PDFName.of('BaseEncoding')));
  const table = [...((base && namedEncoding(base)) || builtin)];
  const differences = arrayValue(context, encoding.get(PDFName.of('Differences')));
  if (differences) {
    let code = 0;
    for (let i = 0; i < differences.size(); i++) {
      const item = resolve(context, differences.get(i));
      const number = numberValue(context, item);
      if (number !== undefined) code = number;
      else if (item instanceof PDFName) {
        if (code >= 0 && code < 256) table[code] = item.decodeText();
        code++;
      }
    }
  }
  return table;
}

/** Type3: widths in glyph space, mapped to text space by /FontMatrix (§9.6.5). */
function readType3Font(context: PDFContext, font: PDFDict): FontInfo {
  const matrix = numbersOf(context, font.get(PDFName.of('FontMatrix'))) ?? [0.001, 0, 0, 0.001, 0, 0];
  if (matrix.length !== 6 || !matrix.every(Number.isFinite) || Math.abs(matrix[1]!) > 1e-9 || Math.abs(matrix[2]!) > 1e-9) {
    return unsupportedFont('a Type3 font with a rotated or skewed FontMatrix');
  }
  const [a, , , d, , f] = matrix as [number, number, number, number, number, number];
  const widths = numbersOf(context, font.get(PDFName.of('Widths'))) ?? [];
  const firstChar = numberValue(context, font.get(PDFName.of('FirstChar'))) ?? 0;
  const bbox = numbersOf(context, font.get(PDFName.of('FontBBox')));
  let ascent = DEFAULT_ASCENT;
  let descent = DEFAULT_DESCENT;
  if (bbox && bbox.length === 4 && bbox.every(Number.isFinite) && bbox[3] !== bbox[1]) {
    const y0 = bbox[1]! * d + f;
    const y1 = bbox[3]! * d + f;
    ascent = Math.max(y0, y1);
    descent = Math.min(y0, y1, 0);
  }
  return {
    split: singleBytes,
    width: (code) => {
      const w = widths[code - firstChar];
      return w !== undefined && Number.isFinite(w) ? w * a : 0;
    },
    ascent,
    descent,
    isWordSpace: (c) => c.code === 32,
  };
}

interface CodespaceRange {
  length: number;
  low: number[];
  high: number[];
}

interface CMapData {
  vertical: boolean;
  ranges: CodespaceRange[];
  /** code → CID; undefined: CID = code (Identity). */
  cid?: (code: number) => number;
}

const IDENTITY_CMAP: CMapData = { vertical: false, ranges: [{ length: 2, low: [0, 0], high: [255, 255] }] };

/** Type0 (composite) fonts: codes per the CMap's codespace ranges, widths by CID from /W and /DW. */
function readCompositeFont(context: PDFContext, font: PDFDict): FontInfo {
  const encoding = resolve(context, font.get(PDFName.of('Encoding')));
  let cmap: CMapData;
  if (encoding instanceof PDFName) {
    const name = encoding.decodeText();
    if (name === 'Identity-H') cmap = IDENTITY_CMAP;
    else if (name === 'Identity-V' || name.endsWith('-V')) return unsupportedFont(`a vertical-writing CMap (${name})`);
    else return unsupportedFont(`the predefined CMap ${name}`);
  } else if (encoding instanceof PDFStream) {
    const parsed = parseCMap(latin1(decodeStream(encoding).data, 0, Number.MAX_SAFE_INTEGER));
    if (typeof parsed === 'string') return unsupportedFont(parsed);
    cmap = parsed;
  } else return unsupportedFont('a composite font without a CMap');
  if (cmap.vertical) return unsupportedFont('a vertical-writing CMap');

  const descendants = arrayValue(context, font.get(PDFName.of('DescendantFonts')));
  const cidFont = descendants ? dictValue(context, descendants.get(0)) : undefined;
  if (!cidFont) return unsupportedFont('a composite font without its CIDFont');
  const defaultWidth = (numberValue(context, cidFont.get(PDFName.of('DW'))) ?? 1000) / 1000;
  const widths = cidWidths(context, arrayValue(context, cidFont.get(PDFName.of('W'))));
  const extent = verticalExtent(context, dictValue(context, cidFont.get(PDFName.of('FontDescriptor'))));
  const toCid = cmap.cid ?? ((code: number) => code);
  return {
    split: (bytes) => splitCodes(bytes, cmap.ranges),
    width: (code) => {
      const w = widths.get(toCid(code));
      return w === undefined ? defaultWidth : w / 1000;
    },
    ...extent,
    isWordSpace: (c) => c.length === 1 && c.code === 32,
  };
}

function cidWidths(context: PDFContext, w: PDFArray | undefined): Map<number, number> {
  const out = new Map<number, number>();
  if (!w) return out;
  let i = 0;
  while (i < w.size()) {
    const first = numberValue(context, w.get(i));
    const next = resolve(context, w.get(i + 1));
    if (first === undefined) break;
    if (next instanceof PDFArray) {
      for (let k = 0; k < next.size(); k++) {
        const value = numberValue(context, next.get(k));
        if (value !== undefined) out.set(first + k, value);
      }
      i += 2;
    } else {
      const last = numberValue(context, next);
      const value = numberValue(context, w.get(i + 2));
      if (last === undefined || value === undefined) break;
      // Guard against absurd ranges: CIDs stop at 65535.
      for (let cid = first; cid <= Math.min(last, first + 65535); cid++) out.set(cid, value);
      i += 3;
    }
  }
  return out;
}

export function splitCodes(bytes: Uint8Array, ranges: readonly CodespaceRange[]): CharCode[] {
  const out: CharCode[] = [];
  // reduce, not Math.min(...): a CMap may list more codespace ranges than a call takes arguments.
  const shortest = Math.max(
    1,
    ranges.reduce((a, r) => Math.min(a, r.length), Number.POSITIVE_INFINITY),
  );
  let p = 0;
  while (p < bytes.length) {
    let matched = 0;
    for (let n = 1; n <= 4 && p + n <= bytes.length && matched === 0; n++) {
      for (const range of ranges) {
        if (range.length !== n) continue;
        let fits = true;
        for (let k = 0; k < n && fits; k++) fits = bytes[p + k]! >= range.low[k]! && bytes[p + k]! <= range.high[k]!;
        if (fits) {
          matched = n;
          break;
        }
      }
    }
    const length = Math.min(matched || shortest, bytes.length - p);
    let code = 0;
    for (let k = 0; k < length; k++) code = code * 256 + bytes[p + k]!;
    out.push({ code, offset: p, length });
    p += length;
  }
  return out;
}

const HEX = /<([0-9a-fA-F\s]*)>/g;

function hexBytes(text: string): number[] {
  const digits = text.replace(/\s+/g, '');
  const out: number[] = [];
  for (let i = 0; i < digits.length; i += 2) out.push(Number.parseInt(digits.slice(i, i + 2).padEnd(2, '0'), 16));
  return out;
}

/** An embedded CMap (§9.7.5): codespace ranges and CID mappings; a reason string when it cannot be used. */
export function parseCMap(text: string): CMapData | string {
  const vertical = /\/WMode\s+1\b/.test(text);
  const used = /\/([^\s/]+)\s+usecmap/.exec(text)?.[1];
  if (used !== undefined && used !== 'Identity-H') return `a CMap based on ${used}`;
  const ranges: CodespaceRange[] = [];
  for (const block of text.matchAll(/begincodespacerange([\s\S]*?)endcodespacerange/g)) {
    const hexes = [...block[1]!.matchAll(HEX)].map((m) => hexBytes(m[1]!));
    for (let i = 0; i + 1 < hexes.length; i += 2) {
      const low = hexes[i]!;
      const high = hexes[i + 1]!;
      if (low.length === high.length && low.length >= 1 && low.length <= 4) ranges.push({ length: low.length, low, high });
    }
  }
  if (ranges.length === 0) {
    if (used === 'Identity-H') ranges.push(...IDENTITY_CMAP.ranges);
    else return 'a CMap without codespace ranges';
  }
  const single = new Map<number, number>();
  const spans: { length: number; low: number; high: number; cid: number }[] = [];
  for (const block of text.matchAll(/begincidrange([\s\S]*?)endcidrange/g)) {
    for (const m of block[1]!.matchAll(/<([0-9a-fA-F\s]*)>\s*<([0-9a-fA-F\s]*)>\s*(\d+)/g)) {
      const low = hexBytes(m[1]!);
      spans.push({ length: low.length, low: toNumber(low), high: toNumber(hexBytes(m[2]!)), cid: Number(m[3]) });
    }
  }
  for (const block of text.matchAll(/begincidchar([\s\S]*?)endcidchar/g)) {
    for (const m of block[1]!.matchAll(/<([0-9a-fA-F\s]*)>\s*(\d+)/g)) {
      const code = hexBytes(m[1]!);
      single.set(toNumber(code), Number(m[2]));
    }
  }
  const identity = used === 'Identity-H' && spans.length === 0 && single.size === 0;
  return {
    vertical,
    ranges,
    ...(identity
      ? {}
      : {
          cid: (code: number) => {
            const cid = single.get(code);
            if (cid !== undefined) return cid;
            for (const span of spans) if (code >= span.low && code <= span.high) return span.cid + (code - span.low);
            return 0;
          },
        }),
  };
}

function toNumber(bytes: number[]): number {
  return bytes.reduce((value, byte) => value * 256 + byte, 0);
}
