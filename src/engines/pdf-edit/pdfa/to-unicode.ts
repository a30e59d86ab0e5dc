import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFStream, PDFString, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import type { Font } from 'fontkit';
import { namedEncoding, standardFontFor, standardMetrics, standardEncoding, type EncodingTable } from '../redaction/standard-metrics.js';
import { adobeGlyphList } from '../../fonts/adobe-glyph-list.js';
import { adobeUcs2 } from '../../pdfa-validator/model/pd/adobe-ucs2.js';
import { readCff } from '../../pdfa-validator/model/pd/font-program/cff.js';
import type { FontProgram } from '../../pdfa-validator/model/pd/font-program/program.js';
import { decodeBounded } from '../stream-bounds.js';
import { toUnicodeCMap } from '../to-unicode-cmap.js';
import { MissingUnicodeError } from './errors.js';

/**
 * The `u` (and `a`) levels' promise that text can be extracted: every font used has a usable map of
 * its character codes to Unicode (ISO 19005-2 §6.2.11.7.2, 19005-1 §6.3.8). Ghostscript's PDF/A
 * output writes no ToUnicode for simple fonts (it relies on the encoding) and keeps what the input
 * had; this adds an explicit ToUnicode CMap wherever the font allows one to be derived:
 *
 * - simple fonts (Type1, TrueType, Type3): code → glyph name through the encoding (a standard
 *   encoding, the standard 14 fonts' own, /Differences), glyph name → Unicode through the Adobe Glyph
 *   List (Ghostscript ships it: Resource/Init/gs_agl.ps) and its `uniXXXX`/`uXXXXX` forms; for an
 *   embedded TrueType program, its own Unicode cmap where the name says nothing;
 * - Type0 fonts with Identity-H/V over an embedded TrueType program (CIDFontType2, CIDs = glyph ids):
 *   glyph id → Unicode from the program's cmap; over an embedded CFF program (CIDFontType0): see cffUnicode.
 *
 * A font where a code that is used (non-zero width) maps to nothing is not guessed at: the caller
 * refuses the level and names the font (MissingUnicodeError).
 */

/** Fonts (and form XObjects) looked at in one document at most: a bound against hostile resource graphs. */
const MAX_VISITS = 20_000;
const MAX_FORM_DEPTH = 12;

/**
 * Adds the ToUnicode maps that can be derived; returns the fonts that got one. Throws
 * MissingUnicodeError for fonts that cannot (after adding the others), unless `partial`.
 */
export async function addMissingToUnicode(document: PDFDocument, options: { partial?: boolean } = {}): Promise<string[]> {
  const fonts = collectFonts(document);
  const added: string[] = [];
  const failed: string[] = [];
  for (const font of fonts) {
    if (font.lookup(PDFName.of('ToUnicode')) instanceof PDFStream) continue;
    const name = fontName(font);
    const codes = await unicodeOf(font);
    if (codes === undefined) {
      failed.push(name);
      continue;
    }
    if (codes === 'implicit' || codes.size === 0) continue;
    const twoByte = font.get(PDFName.of('Subtype')) === PDFName.of('Type0');
    const context = document.context;
    font.set(PDFName.of('ToUnicode'), context.register(context.flateStream(toUnicodeCMap(codes, twoByte ? 2 : 1))));
    added.push(name);
  }
  if (failed.length > 0 && !options.partial) throw new MissingUnicodeError(failed);
  return added;
}

function fontName(font: PDFDict): string {
  const base = font.get(PDFName.of('BaseFont'));
  const subtype = font.get(PDFName.of('Subtype'));
  const name = base instanceof PDFName ? base.decodeText() : '(unnamed)';
  return `"${name}"${subtype instanceof PDFName ? ` (${subtype.decodeText()})` : ''}`;
}

/** Every font dictionary the pages, their form XObjects, Type3 glyphs and annotation appearances use. */
function collectFonts(document: PDFDocument): PDFDict[] {
  const fonts = new Set<PDFDict>();
  const seen = new Set<PDFObject>();
  let visits = 0;
  const visitResources = (resources: PDFObject | undefined, depth: number): void => {
    const dict = lookup(document, resources);
    if (!(dict instanceof PDFDict) || seen.has(dict) || ++visits > MAX_VISITS || depth > MAX_FORM_DEPTH) return;
    seen.add(dict);
    const fontDict = lookup(document, dict.get(PDFName.of('Font')));
    if (fontDict instanceof PDFDict) {
      for (const [, value] of fontDict.entries()) {
        const font = lookup(document, value);
        if (!(font instanceof PDFDict) || fonts.has(font)) continue;
        fonts.add(font);
        if (font.get(PDFName.of('Subtype')) === PDFName.of('Type3')) visitResources(font.get(PDFName.of('Resources')), depth + 1);
      }
    }
    const xobjects = lookup(document, dict.get(PDFName.of('XObject')));
    if (xobjects instanceof PDFDict) {
      for (const [, value] of xobjects.entries()) {
        const xobject = lookup(document, value);
        if (xobject instanceof PDFStream && xobject.dict.get(PDFName.of('Subtype')) === PDFName.of('Form')) visitResources(xobject.dict.get(PDFName.of('Resources')), depth + 1);
      }
    }
  };
  for (const page of document.getPages()) {
    visitResources(page.node.Resources(), 0);
    const annots = lookup(document, page.node.get(PDFName.of('Annots')));
    if (!(annots instanceof PDFArray)) continue;
    for (const entry of annots.asArray()) {
      const annotation = lookup(document, entry);
      const appearances = annotation instanceof PDFDict ? lookup(document, annotation.get(PDFName.of('AP'))) : undefined;
      if (!(appearances instanceof PDFDict)) continue;
      for (const [, value] of appearances.entries()) {
        const appearance = lookup(document, value);
        const streams = appearance instanceof PDFStream ? [appearance] : appearance instanceof PDFDict ? appearance.entries().map(([, v]) => lookup(document, v)) : [];
        for (const stream of streams) if (stream instanceof PDFStream) visitResources(stream.dict.get(PDFName.of('Resources')), 1);
      }
    }
  }
  return [...fonts];
}

function lookup(document: PDFDocument, value: PDFObject | undefined): PDFObject | undefined {
  return value instanceof PDFRef ? document.context.lookup(value) : value;
}

/**
 * Code → text for a font without ToUnicode: a map, `implicit` (a Type0 font whose predefined CMap is
 * Unicode already: UCS-2/UTF-16 CMaps), or undefined when a used code cannot be mapped.
 */
async function unicodeOf(font: PDFDict): Promise<Map<number, string> | 'implicit' | undefined> {
  const subtype = font.get(PDFName.of('Subtype'));
  if (subtype === PDFName.of('Type0')) return type0Unicode(font);
  if (subtype === PDFName.of('Type1') || subtype === PDFName.of('MMType1') || subtype === PDFName.of('TrueType') || subtype === PDFName.of('Type3')) return simpleUnicode(font);
  return undefined;
}

async function type0Unicode(font: PDFDict): Promise<Map<number, string> | 'implicit' | undefined> {
  const encoding = font.get(PDFName.of('Encoding'));
  const encodingName = encoding instanceof PDFName ? encoding.decodeText() : '';
  if (/UCS2|UTF16/.test(encodingName)) return 'implicit';
  if (encodingName !== 'Identity-H' && encodingName !== 'Identity-V') return undefined;
  const descendants = font.lookup(PDFName.of('DescendantFonts'));
  const cidFont = descendants instanceof PDFArray ? descendants.lookup(0) : undefined;
  if (cidFont instanceof PDFDict && cidFont.get(PDFName.of('Subtype')) === PDFName.of('CIDFontType0')) return cffUnicode(cidFont);
  if (!(cidFont instanceof PDFDict) || cidFont.get(PDFName.of('Subtype')) !== PDFName.of('CIDFontType2')) return undefined;
  const map = cidFont.get(PDFName.of('CIDToGIDMap'));
  if (map !== undefined && map !== PDFName.of('Identity')) return undefined;
  const program = await trueTypeProgram(cidFont);
  if (!program) return undefined;
  const byGlyph = unicodeByGlyph(program);
  // CIDs are glyph ids; every glyph with a Unicode value in the program's cmap is mapped. A glyph the
  // text uses that has none (a ligature or alternate reached only through GSUB) stays unmapped:
  // the /W array says which CIDs the text uses.
  const codes = new Map<number, string>();
  for (const cid of usedCids(cidFont)) {
    const text = byGlyph.get(cid);
    if (text === undefined) return undefined;
    codes.set(cid, text);
  }
  return codes;
}

/**
 * A CIDFontType0 over an embedded CFF program (FontFile3 /CIDFontType0C), read with the validator's
 * bounded CFF reader: a name-keyed program (CIDs are its glyph indexes) by the charset's glyph names
 * through the Adobe Glyph List; a CID-keyed one by its collection's Adobe UCS2 map (Adobe-GB1, CNS1,
 * Japan1, Korea1; the glyphs have no names). Anything else (Adobe-Identity, an OpenType program) is
 * not guessed at.
 */
function cffUnicode(cidFont: PDFDict): Map<number, string> | undefined {
  const descriptor = cidFont.lookup(PDFName.of('FontDescriptor'));
  const file = descriptor instanceof PDFDict ? descriptor.lookup(PDFName.of('FontFile3')) : undefined;
  if (!(file instanceof PDFRawStream) || file.dict.get(PDFName.of('Subtype')) !== PDFName.of('CIDFontType0C')) return undefined;
  let program: FontProgram;
  try {
    program = readCff(Buffer.from(decodeBounded(file)));
  } catch {
    return undefined;
  }
  let textOf: (cid: number) => string | undefined;
  if (program.cidToGid) {
    const info = cidFont.lookup(PDFName.of('CIDSystemInfo'));
    const field = (key: string) => {
      const value = info instanceof PDFDict ? info.lookup(PDFName.of(key)) : undefined;
      return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : '';
    };
    const ucs2 = field('Registry') === 'Adobe' ? adobeUcs2(field('Ordering')) : undefined;
    if (!ucs2) return undefined;
    textOf = (cid) => ucs2.get(cid);
  } else {
    const nameOf = new Map<number, string>();
    for (const name of program.glyphNames ?? []) {
      const gid = program.gidOfName(name);
      if (gid !== undefined && !nameOf.has(gid)) nameOf.set(gid, name);
    }
    textOf = (cid) => {
      const name = nameOf.get(cid);
      return name === undefined ? undefined : unicodeOfGlyphName(name);
    };
  }
  const codes = new Map<number, string>();
  for (const cid of usedCids(cidFont)) {
    const text = textOf(cid);
    if (text === undefined) return undefined;
    codes.set(cid, text);
  }
  return codes;
}

/** The CIDs the /W array gives a width to (what a subset's text uses); without /W, every glyph of the program is taken as used. */
function usedCids(cidFont: PDFDict): number[] {
  const widths = cidFont.lookup(PDFName.of('W'));
  const cids: number[] = [];
  if (!(widths instanceof PDFArray)) return cids;
  const items = widths.asArray().map((item) => (item instanceof PDFRef ? cidFont.context.lookup(item) : item));
  for (let i = 0; i < items.length && cids.length < 65536; ) {
    const first = items[i];
    const next = items[i + 1];
    if (!(first instanceof PDFNumber)) break;
    if (next instanceof PDFArray) {
      for (let k = 0; k < next.size() && cids.length < 65536; k++) cids.push(first.asNumber() + k);
      i += 2;
    } else if (next instanceof PDFNumber && items[i + 2] instanceof PDFNumber) {
      for (let c = first.asNumber(); c <= next.asNumber() && cids.length < 65536; c++) cids.push(c);
      i += 3;
    } else break;
  }
  return cids.filter((cid) => cid !== 0);
}

async function simpleUnicode(font: PDFDict): Promise<Map<number, string> | undefined> {
  const names = glyphNames(font);
  const descriptor = font.lookup(PDFName.of('FontDescriptor'));
  const program = descriptor instanceof PDFDict && font.get(PDFName.of('Subtype')) === PDFName.of('TrueType') ? await trueTypeProgram(font) : undefined;
  const programUnicode = program ? unicodeByGlyph(program) : undefined;
  const codes = new Map<number, string>();
  const used = usedCodes(font);
  if (used === undefined) {
    // No /Widths (a standard 14 font): which codes the text uses is not said; every named code that maps is mapped.
    names.forEach((name, code) => {
      const text = name === undefined ? undefined : unicodeOfGlyphName(name);
      if (text !== undefined) codes.set(code, text);
    });
    return codes;
  }
  for (const code of used) {
    const name = names[code] === '.notdef' ? undefined : names[code];
    let text = name !== undefined ? unicodeOfGlyphName(name) : undefined;
    if (text === undefined && program && programUnicode) {
      // A TrueType program's own cmap: the glyph the code selects (§9.6.6.4), then its Unicode value.
      const glyph = name !== undefined ? glyphIdByName(program, name) : symbolicGlyph(program, code);
      // A code that selects no glyph draws .notdef: there is nothing to map.
      if (glyph === undefined && name === undefined) continue;
      if (glyph !== undefined) text = programUnicode.get(glyph);
    }
    if (text === undefined) {
      // A code the encoding leaves unnamed, in a font without a program to ask, draws .notdef; a named glyph that maps to nothing is a failure.
      if (name === undefined && !program) continue;
      return undefined;
    }
    codes.set(code, text);
  }
  // Codes in use of which none could be mapped (a symbolic font's built-in encoding): nothing says what they mean.
  return codes.size === 0 && used.length > 0 ? undefined : codes;
}

/** The codes a simple font's text uses, as far as the font says: those with a non-zero /Widths entry (undefined without /Widths). */
function usedCodes(font: PDFDict): number[] | undefined {
  const first = font.lookup(PDFName.of('FirstChar'));
  const widths = font.lookup(PDFName.of('Widths'));
  if (!(first instanceof PDFNumber) || !(widths instanceof PDFArray)) return undefined;
  const codes: number[] = [];
  for (let i = 0; i < widths.size() && i < 256; i++) {
    const width = widths.lookup(i);
    const code = first.asNumber() + i;
    if (code >= 0 && code < 256 && width instanceof PDFNumber && width.asNumber() !== 0) codes.push(code);
  }
  return codes;
}

/** Code → glyph name: the base encoding (named, or the font's own for the standard 14 and non-symbolic fonts), then /Differences. */
function glyphNames(font: PDFDict): EncodingTable {
  const encoding = font.lookup(PDFName.of('Encoding'));
  const baseFont = font.get(PDFName.of('BaseFont'));
  const standard = baseFont instanceof PDFName ? standardFontFor(baseFont.decodeText()) : undefined;
  const descriptor = font.lookup(PDFName.of('FontDescriptor'));
  const flags = descriptor instanceof PDFDict ? descriptor.lookup(PDFName.of('Flags')) : undefined;
  const symbolic = flags instanceof PDFNumber && (flags.asNumber() & 4) !== 0;
  const isType3 = font.get(PDFName.of('Subtype')) === PDFName.of('Type3');
  const implicit = (): EncodingTable => (isType3 ? [] : standard ? standardMetrics(standard).builtinEncoding : symbolic ? [] : standardEncoding());
  let table: EncodingTable;
  if (encoding instanceof PDFName) table = [...(namedEncoding(encoding.decodeText()) ?? implicit())];
  else if (encoding instanceof PDFDict) {
    const base = encoding.lookup(PDFName.of('BaseEncoding'));
    table = [...((base instanceof PDFName ? namedEncoding(base.decodeText()) : undefined) ?? implicit())];
    const differences = encoding.lookup(PDFName.of('Differences'));
    if (differences instanceof PDFArray) {
      let code = 0;
      for (const item of differences.asArray()) {
        if (item instanceof PDFNumber) code = item.asNumber();
        else if (item instanceof PDFName && code >= 0 && code < 256) table[code++] = item.decodeText();
      }
    }
  } else table = [...implicit()];
  return table;
}

/** The embedded TrueType program of a font (FontFile2), parsed by fontkit; undefined when there is none or it does not parse. */
async function trueTypeProgram(font: PDFDict): Promise<Font | undefined> {
  const descriptor = font.lookup(PDFName.of('FontDescriptor'));
  const file = descriptor instanceof PDFDict ? descriptor.lookup(PDFName.of('FontFile2')) : undefined;
  if (!(file instanceof PDFRawStream)) return undefined;
  try {
    const fontkit = await import('fontkit');
    const parsed = fontkit.create(Buffer.from(decodeBounded(file)));
    return 'fonts' in parsed ? undefined : (parsed as Font);
  } catch {
    return undefined;
  }
}

/** Glyph id → the text its Unicode cmap maps to it (the lowest code point when several do). */
function unicodeByGlyph(font: Font): Map<number, string> {
  const map = new Map<number, string>();
  for (const cp of font.characterSet) {
    if (cp === 0 || (cp >= 0xe000 && cp <= 0xf8ff) || cp === 0xfeff || cp === 0xfffe) continue; // private use is no usable mapping
    const id = font.glyphForCodePoint(cp).id;
    if (id !== 0 && !map.has(id)) map.set(id, String.fromCodePoint(cp));
  }
  return map;
}

function glyphIdByName(font: Font, name: string): number | undefined {
  for (let id = 0; id < font.numGlyphs && id < 65536; id++) if (font.getGlyph(id).name === name) return id;
  return undefined;
}

/** A symbolic TrueType font's code → glyph: the (3,0) cmap at 0xF000 + code (fontkit reads it as code points). */
function symbolicGlyph(font: Font, code: number): number | undefined {
  for (const cp of [0xf000 + code, code]) {
    const id = font.glyphForCodePoint(cp).id;
    if (id !== 0) return id;
  }
  return undefined;
}

/**
 * A glyph name's Unicode text by the AGL specification: the part before the first period, its
 * underscore-separated components each by the list, `uniXXXX…` (groups of four hex digits) or
 * `uXXXX`–`uXXXXXX`. Undefined when any component maps to nothing.
 */
export function unicodeOfGlyphName(name: string): string | undefined {
  const base = name.split('.')[0]!;
  if (base === '' || base === '.notdef') return undefined;
  let text = '';
  for (const component of base.split('_')) {
    const known = adobeGlyphList().get(component);
    if (known !== undefined) {
      text += String.fromCodePoint(known);
      continue;
    }
    const uni = /^uni((?:[0-9A-F]{4})+)$/.exec(component);
    if (uni) {
      const values = uni[1]!.match(/.{4}/g)!.map((h) => Number.parseInt(h, 16));
      if (values.some((v) => v >= 0xd800 && v <= 0xdfff)) return undefined;
      text += String.fromCodePoint(...values);
      continue;
    }
    const u = /^u([0-9A-F]{4,6})$/.exec(component);
    if (u) {
      const value = Number.parseInt(u[1]!, 16);
      if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return undefined;
      text += String.fromCodePoint(value);
      continue;
    }
    return undefined;
  }
  return text === '' ? undefined : text;
}
