import { PDFDict, PDFName, PDFNumber, PDFRawStream, type PDFContext } from '@cantoo/pdf-lib';
import { increment, parseCMapBytes, type Mapping } from '../../../pdfa-validator/model/pd/cmap.js';
import { DEFAULT_COS_LIMITS } from '../../../pdfa-validator/cos/index.js';
import { newParseEnv } from '../../../pdfa-validator/cos/parser.js';
import { resolve } from '../../pdf-objects.js';
import { fontInfo, type CharCode, type FontInfo } from '../../redaction/fonts.js';
import { decodeBounded } from '../../stream-bounds.js';

/**
 * The Unicode text a string shows in a font, as far as the tagger needs it (list markers, captions,
 * the share of the page's text each size has): codes as the redactor splits them (fonts.ts), their
 * text from the font's ToUnicode CMap read with the validator's CMap reader. The a-level fix-ups add
 * a ToUnicode map to every font before the tagger runs (to-unicode.ts), so the fallback — one
 * Latin-1 character per code — only serves fonts whose encoding is Unicode already.
 */
export interface FontText {
  info: FontInfo;
  /** A bold face by its name or weight: what sets a table's header row apart from its body. */
  bold: boolean;
  /** The text of a string's codes (as `info.split` cut them). */
  text(codes: readonly CharCode[]): string;
}

/** A ToUnicode CMap larger than this is not read (a real one is a few KB). */
const MAX_CMAP_BYTES = 4 * 1024 * 1024;

const cache = new WeakMap<PDFDict, FontText>();

export function fontText(context: PDFContext, font: PDFDict): FontText {
  let known = cache.get(font);
  if (!known) {
    const info = fontInfo(context, font);
    const lookup = toUnicode(context, font);
    known = {
      info,
      bold: isBold(context, font),
      text: (codes) => {
        let out = '';
        for (const code of codes) out += lookup?.(code.code) ?? String.fromCharCode(code.code & 0xff);
        return out;
      },
    };
    cache.set(font, known);
  }
  return known;
}

const BOLD_NAME = /bold|black|heavy|demi|semibd/i;

function isBold(context: PDFContext, font: PDFDict): boolean {
  const name = resolve(context, font.get(PDFName.of('BaseFont')));
  if (name instanceof PDFName && BOLD_NAME.test(name.decodeText())) return true;
  const descriptor = resolve(context, font.get(PDFName.of('FontDescriptor')));
  const weight = descriptor instanceof PDFDict ? resolve(context, descriptor.get(PDFName.of('FontWeight'))) : undefined;
  return weight instanceof PDFNumber && weight.asNumber() >= 600;
}

function toUnicode(context: PDFContext, font: PDFDict): ((code: number) => string | undefined) | undefined {
  const stream = resolve(context, font.get(PDFName.of('ToUnicode')));
  if (!(stream instanceof PDFRawStream)) return undefined;
  let mappings: Mapping[];
  try {
    const parsed = parseCMapBytes(Buffer.from(decodeBounded(stream, MAX_CMAP_BYTES)), newParseEnv(DEFAULT_COS_LIMITS));
    if (parsed === null) return undefined;
    mappings = parsed.mappings;
  } catch {
    return undefined; // an unreadable map: the fallback
  }
  // Single codes in a table; ranges searched last to first (a later definition wins).
  const single = new Map<number, string>();
  const ranges: Mapping[] = [];
  for (const m of mappings) {
    if (m.lo === m.hi && m.text !== undefined) single.set(m.lo, m.text);
    else ranges.push(m);
  }
  return (code) => {
    const hit = single.get(code);
    if (hit !== undefined) return hit;
    for (let i = ranges.length - 1; i >= 0; i--) {
      const m = ranges[i]!;
      if (code < m.lo || code > m.hi) continue;
      if (m.texts !== undefined) return m.texts[code - m.lo];
      if (m.text !== undefined) return increment(m.text, code - m.lo);
    }
    return undefined;
  };
}
