/**
 * Glyph objects (ISO 19005-1 6.3.5/6.3.6/6.3.8, ISO 19005-2 6.2.11.4.1/6.2.11.5/6.2.11.7/6.2.11.8): one per
 * character code a content stream shows with a font (`Tj TJ ' "`), with
 * - `name`: the glyph name the code selects (simple fonts: /Differences, /BaseEncoding, the program's own
 *   encoding, else StandardEncoding; a code mapped to glyph 0 or no name: `.notdef`); CID fonts: `.notdef` for
 *   glyph 0, else null;
 * - `isGlyphPresent`: the font program has that glyph (null without an embedded program); TrueType codes are
 *   looked up as ISO 32000-1 9.6.6.4 says (symbolic: (3,0) at code and 0xF000+code…, or (1,0); non-symbolic:
 *   name → Unicode → (3,1), or (1,0), or the 'post' names); CID fonts through the CMap and CIDToGIDMap or the
 *   CFF charset;
 * - `widthFromDictionary` (/Widths, /MissingWidth; /W, /DW) and `widthFromFontProgram` (the program's advance
 *   in thousandths of text space; null when the glyph is missing or there is no program);
 * - `toUnicode`: the ToUnicode CMap's text, else (simple fonts) the glyph name's Unicode value; `unicodePUA`,
 *   `actualTextPresent` (every showing of the code was inside marked content with /ActualText);
 * - `renderingMode`: 3 when the code was only shown invisibly, else the first other mode.
 * Type 0 fonts of the Adobe CJK collections without ToUnicode: the text of Adobe's UCS2 CMap for the CID (adobe-ucs2.ts).
 * A property this model cannot decide (a program it cannot read, a predefined CMap it has no table for, a glyph
 * name when no Adobe Glyph List is found on the machine) is left out, so the rules reading it are not-checked.
 */
import type { CosDict, CosDocument, CosValue } from '../../cos/index.js';
import { contentTokens } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import { ADOBE_CJK_ORDERINGS, adobeUcs2 } from './adobe-ucs2.js';
import { type ToUnicodeMap, type TypeZeroCMap, toUnicodeMap, typeZeroCMap } from './cmap.js';
import { adobeGlyphList } from '../../../fonts/adobe-glyph-list.js';
import { GLYPH_UNICODE, MAC_ROMAN_ENCODING, STANDARD_ENCODING, WIN_ANSI_ENCODING } from './font-data.js';
import { type FontProgram, fontProgramOf, type ProgramRead } from './font-program/index.js';
import { dictIn, entry, intOf, nameOf, numberOf, streamOf } from './values.js';

const T = { glyph: ['Glyph'] } as const;

/** Distinct codes recorded per font (a 2-byte CMap has at most 65,536). */
const MAX_CODES = 65_536;

export interface GlyphUse {
  /** 3 while only shown invisibly, then the first other rendering mode. */
  mode: number;
  /** Shown at least once outside marked content with /ActualText. */
  outsideActualText: boolean;
  /** The page (1-based) it was first shown on, when known. */
  page: number | undefined;
}

export interface ShownCodes {
  readonly codes: Map<number, GlyphUse>;
  /** Strings were shown that this model cannot split into codes (a predefined CMap it has no table for). */
  undecodable: boolean;
  /** More distinct codes than MAX_CODES. */
  truncated: boolean;
  /** How the font's strings split into codes: one byte each (`bytes`), a Type 0 font's CMap, or unknown (null). */
  readonly split: ((bytes: Buffer) => number[]) | 'bytes' | null;
}

export function newShownCodes(doc: CosDocument, font: CosDict): ShownCodes {
  let split: ShownCodes['split'];
  if (nameOf(doc, font, 'Subtype') === 'Type0') {
    const cmap = typeZeroCMap(doc, entry(doc, font, 'Encoding'));
    split = cmap === null ? null : (bytes) => cmap.codes(bytes);
  } else split = 'bytes';
  return { codes: new Map(), undecodable: false, truncated: false, split };
}

/** Records the codes of one shown string. */
export function recordShown(shown: ShownCodes, bytes: Buffer, mode: number, inActualText: boolean, page: number | undefined): void {
  if (shown.split === null) {
    if (bytes.length > 0) shown.undecodable = true;
    return;
  }
  // A simple font's codes are its bytes: read in place (a shown string is met once per Tj, thousands per document).
  if (shown.split === 'bytes') for (let i = 0; i < bytes.length; i++) recordCode(shown, bytes[i] as number, mode, inActualText, page);
  else for (const code of shown.split(bytes)) recordCode(shown, code, mode, inActualText, page);
}

function recordCode(shown: ShownCodes, code: number, mode: number, inActualText: boolean, page: number | undefined): void {
  const known = shown.codes.get(code);
  if (known === undefined) {
    if (shown.codes.size >= MAX_CODES) shown.truncated = true;
    else shown.codes.set(code, { mode, outsideActualText: !inActualText, page });
    return;
  }
  if (known.mode === 3 && mode !== 3) known.mode = mode;
  if (!inActualText) known.outsideActualText = true;
}

/** What a glyph's properties are computed from, per font. */
interface FontFacts {
  readonly doc: CosDocument;
  readonly font: CosDict;
  readonly program: ProgramRead;
  readonly toUnicode: ToUnicodeMap | null;
  /** Without a ToUnicode CMap, Unicode comes from the glyph name (simple fonts) or is unknown (CID fonts of the Adobe character collections, which need their UCS2 CMaps). */
  readonly unicodeFromName: boolean;
  readonly unicodeUnknown: boolean;
}

type Props = Record<string, string | number | boolean | null>;

export function* glyphObjects(doc: CosDocument, font: CosDict, shown: ShownCodes, path: string, renderingModeOfFont: number | null): Generator<LocatedObject> {
  if (shown.undecodable || shown.truncated) {
    // Codes we cannot enumerate: one Glyph with no properties stands for them, so every glyph rule is not-checked.
    yield modelObject(T.glyph, `${path} (glyphs not decoded)`, { renderingMode: renderingModeOfFont });
  }
  const subtype = nameOf(doc, font, 'Subtype');
  if (subtype === 'Type0') {
    yield* typeZeroGlyphs(doc, font, shown, path);
    return;
  }
  const descriptor = dictIn(doc, font.entries.get('FontDescriptor'));
  const facts: FontFacts = {
    doc,
    font,
    program: subtype === 'Type3' ? { kind: 'absent' } : fontProgramOf(doc, descriptor),
    toUnicode: toUnicodeMap(doc, font.entries.get('ToUnicode')),
    unicodeFromName: true,
    unicodeUnknown: false,
  };
  const names = simpleEncoding(doc, font, facts.program.kind === 'read' ? facts.program.program : undefined);
  const widths = simpleWidths(doc, font, descriptor);
  const symbolic = ((intOf(doc, descriptor, 'Flags') ?? 0) & 4) !== 0;
  const procs = subtype === 'Type3' ? dictIn(doc, font.entries.get('CharProcs')) : undefined;
  for (const [code, use] of shown.codes) {
    const name = names(code);
    const props: Props = { renderingMode: use.mode, widthFromDictionary: widths(code), ...unicodeProps(facts, code, name, use) };
    if (subtype === 'Type3') {
      const proc = name === null ? undefined : procs?.entries.get(name);
      const scale = type3Scale(doc, font);
      const dictWidth = props.widthFromDictionary;
      Object.assign(props, {
        name: name ?? '.notdef',
        isGlyphPresent: proc !== undefined,
        // Both widths are in glyph space: compared in thousandths of text space through the font matrix.
        widthFromDictionary: typeof dictWidth === 'number' && scale !== null ? dictWidth * scale : null,
        ...type3Width(doc, proc, scale),
      });
    } else if (facts.program.kind === 'absent') {
      Object.assign(props, { name: name ?? '.notdef', isGlyphPresent: null, widthFromFontProgram: null });
    } else if (facts.program.kind === 'read') {
      const p = facts.program.program;
      Object.assign(
        props,
        guarded(() => {
          const gid = p.format === 'truetype' || p.cmapLookup !== undefined ? trueTypeGid(p, code, name, symbolic, nameOf(doc, font, 'Encoding')) : name === null ? 0 : p.gidOfName(name);
          if (gid === null) return {};
          // .notdef is glyph 0 in TrueType and CFF; a Type 1 program's glyphs are in CharStrings order, .notdef anywhere (2u 6-2-11-7-2-t01-pass-d has /H first).
          const notdef = p.format === 'type1' ? p.gidOfName('.notdef') : 0;
          const present = gid !== undefined && gid < p.numGlyphs && (gid !== notdef || name === '.notdef');
          return { name: gid === notdef || gid === undefined ? (name ?? '.notdef') : (name ?? null), isGlyphPresent: present, ...widthProp(p, present ? (gid as number) : undefined) };
        }),
      );
    }
    yield modelObject(T.glyph, `${path} (code ${code})`, props, use.page);
  }
}

/**
 * A glyph's program facts, or none when reading them throws (a hostile program the readers' checks missed: a Buffer
 * read out of range): the properties stay unknown and their rules not-checked; the validation goes on.
 */
function guarded(facts: () => Props): Props {
  try {
    return facts();
  } catch {
    return {};
  }
}

/** FontMatrix a × 1000: glyph space → thousandths of text space (null when the matrix is not numbers). */
function type3Scale(doc: CosDocument, font: CosDict): number | null {
  const m = entry(doc, font, 'FontMatrix');
  const a = m?.kind === 'array' ? doc.resolve(m.items[0]) : undefined;
  return a?.kind === 'int' || a?.kind === 'real' ? a.value * 1000 : null;
}

/** A Type 3 glyph procedure's width: the wx of its first operator, d0 or d1 (ISO 32000-1 9.6.5); unknown (absent) when it cannot be read. */
function type3Width(doc: CosDocument, proc: CosValue | undefined, scale: number | null): Props {
  const stream = doc.resolve(proc);
  if (stream?.kind !== 'stream') return { widthFromFontProgram: null };
  const decoded = doc.decodeStream(stream);
  if (!decoded.ok || scale === null) return {};
  let first: CosValue | undefined;
  let n = 0;
  for (const token of contentTokens(decoded.data, doc.env)) {
    if (token.kind === 'operand') {
      if (n++ === 0) first = token.value;
      continue;
    }
    if (token.kind === 'operator' && (token.name === 'd0' || token.name === 'd1') && (first?.kind === 'int' || first?.kind === 'real')) return { widthFromFontProgram: first.value * scale };
    return {};
  }
  return {};
}

function widthProp(p: FontProgram, gid: number | undefined): Props {
  if (gid === undefined) return { widthFromFontProgram: null };
  const w = p.widthOf(gid);
  // A width the program hides (a subroutine before the width operand) is unknown: the width rule is not-checked.
  return w === null ? {} : { widthFromFontProgram: w };
}

/**
 * A TrueType glyph index (ISO 32000-1 9.6.6.4); undefined when the font has no such glyph, null when it cannot
 * be decided here (a glyph name with no known Unicode value and no 'post' entry).
 */
function trueTypeGid(p: FontProgram, code: number, name: string | null, symbolic: boolean, encodingName: string | null): number | undefined | null {
  const look = (pl: number, en: number, c: number): number | undefined => {
    const g = p.cmapLookup?.(pl, en, c);
    return g === undefined || g === 0 ? (g === undefined ? undefined : 0) : g;
  };
  const has30 = p.cmapLookup?.(3, 0, 0) !== undefined;
  const has31 = p.cmapLookup?.(3, 1, 0) !== undefined;
  const has10 = p.cmapLookup?.(1, 0, 0) !== undefined;
  if (symbolic || (!has31 && !has10)) {
    if (has30) {
      for (const base of [0, 0xf000, 0xf100, 0xf200]) {
        const g = look(3, 0, base + code);
        if (g !== undefined && g !== 0) return g;
      }
      return 0;
    }
    if (has10) return look(1, 0, code) ?? 0;
    if (has31) return look(3, 1, code) ?? 0;
    return name === null ? 0 : (p.gidOfName(name) ?? 0);
  }
  if (has31) {
    // Non-symbolic with a (3,1) subtable: code → glyph name → Unicode → glyph; a code without a name selects .notdef.
    if (name === null) return 0;
    const unicode = unicodeOfName(name);
    if (typeof unicode === 'string') {
      const g = look(3, 1, unicode.codePointAt(0) as number);
      if (g !== undefined && g !== 0) return g;
    }
    const post = p.gidOfName(name);
    if (post !== undefined) return post;
    return unicode === undefined ? null : 0;
  }
  if (has10) {
    if (name === null || encodingName === 'MacRomanEncoding') return look(1, 0, code) ?? 0;
    const mac = MAC_ROMAN_ENCODING.indexOf(name);
    if (mac >= 0) return look(1, 0, mac) ?? 0;
  }
  return name === null ? 0 : (p.gidOfName(name) ?? 0);
}

/** Code → glyph name of a simple font: /Differences over the base encoding (ISO 32000-1 9.6.6). */
function simpleEncoding(doc: CosDocument, font: CosDict, program: FontProgram | undefined): (code: number) => string | null {
  const enc = entry(doc, font, 'Encoding');
  const encDict = enc?.kind === 'dict' ? enc : undefined;
  const baseName = enc?.kind === 'name' ? enc.value : nameOf(doc, encDict, 'BaseEncoding');
  const tables: Record<string, readonly string[]> = { WinAnsiEncoding: WIN_ANSI_ENCODING, MacRomanEncoding: MAC_ROMAN_ENCODING, StandardEncoding: STANDARD_ENCODING };
  const table = baseName === null ? undefined : tables[baseName];
  const differences = new Map<number, string>();
  const diff = entry(doc, encDict, 'Differences');
  if (diff?.kind === 'array') {
    let code = 0;
    for (const item of diff.items.slice(0, 10_000)) {
      const v = doc.resolve(item);
      if (v?.kind === 'int') code = v.value;
      else if (v?.kind === 'name') differences.set(code++, v.value);
    }
  }
  const builtin = program?.builtinEncoding;
  return (code) => {
    const d = differences.get(code);
    if (d !== undefined) return d;
    if (table !== undefined) return table[code] || null;
    if (builtin !== undefined && builtin.size > 0) return builtin.get(code) ?? null;
    if (program?.format === 'truetype') return WIN_ANSI_ENCODING[code] || null;
    return STANDARD_ENCODING[code] || null;
  };
}

function simpleWidths(doc: CosDocument, font: CosDict, descriptor: CosDict | undefined): (code: number) => number | null {
  const widths = entry(doc, font, 'Widths');
  const first = intOf(doc, font, 'FirstChar');
  const missing = numberOf(doc, descriptor, 'MissingWidth') ?? 0;
  if (widths?.kind !== 'array' || first === null) return () => null;
  const items = widths.items;
  return (code) => {
    const v = doc.resolve(items[code - first]);
    if (code < first || code - first >= items.length) return missing;
    return v?.kind === 'int' || v?.kind === 'real' ? v.value : null;
  };
}

/**
 * A glyph name's Unicode text: the Adobe Glyph List (Ghostscript's copy, read on first use), the Symbol and
 * ZapfDingbats names of font-data.ts, or the uniXXXX / uXXXX[XX] forms. Null when the name has no Unicode
 * value; undefined when that is not known here (no glyph list on this machine: only the partial list is).
 */
export function unicodeOfName(name: string): string | null | undefined {
  const known = GLYPH_UNICODE.get(name) ?? adobeGlyphList().get(name);
  if (known !== undefined) return String.fromCodePoint(known);
  const uni = /^uni([0-9A-F]{4})$/.exec(name) ?? /^u([0-9A-F]{4,6})$/.exec(name);
  if (uni !== null) {
    const cp = Number.parseInt(uni[1] as string, 16);
    if (cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff)) return String.fromCodePoint(cp);
  }
  return adobeGlyphList().size > 0 ? null : undefined;
}

function isPua(text: string): boolean {
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if ((cp >= 0xe000 && cp <= 0xf8ff) || cp >= 0xf0000) return true;
  }
  return false;
}

function unicodeProps(facts: FontFacts, code: number, name: string | null, use: GlyphUse): Props {
  let text = facts.toUnicode?.text(code) ?? null;
  if (text === null && facts.unicodeFromName && name !== null && name !== '.notdef') {
    const fromName = unicodeOfName(name);
    if (fromName === undefined) return { actualTextPresent: !use.outsideActualText }; // no glyph list here: unknown
    text = fromName;
  }
  if (text === null && facts.unicodeUnknown) return { actualTextPresent: !use.outsideActualText };
  return { toUnicode: text, unicodePUA: text !== null && isPua(text), actualTextPresent: !use.outsideActualText };
}

function* typeZeroGlyphs(doc: CosDocument, font: CosDict, shown: ShownCodes, path: string): Generator<LocatedObject> {
  const descendants = entry(doc, font, 'DescendantFonts');
  const cidFont = dictIn(doc, descendants?.kind === 'array' ? descendants.items[0] : undefined);
  const descriptor = dictIn(doc, cidFont?.entries.get('FontDescriptor'));
  const cmap = typeZeroCMap(doc, entry(doc, font, 'Encoding')) as TypeZeroCMap;
  const info = dictIn(doc, cidFont?.entries.get('CIDSystemInfo'));
  const ordering = entry(doc, info, 'Ordering');
  const orderingName = ordering?.kind === 'string' ? ordering.bytes.toString('latin1') : '';
  const adobeCollection = ADOBE_CJK_ORDERINGS.includes(orderingName);
  // Without a ToUnicode entry (or for a code it leaves out), an Adobe CJK collection's CID has the text of
  // Adobe's UCS2 CMap; unknown only when that CMap is not on this machine.
  const ucs2 = adobeCollection ? adobeUcs2(orderingName) : undefined;
  const fromFont = toUnicodeMap(doc, font.entries.get('ToUnicode'));
  const facts: FontFacts = {
    doc,
    font,
    program: fontProgramOf(doc, descriptor),
    toUnicode: ucs2 === undefined ? fromFont : { text: (code) => fromFont?.text(code) ?? ucs2.get(cmap.cid(code)) ?? null },
    unicodeFromName: false,
    unicodeUnknown: adobeCollection && ucs2 === undefined,
  };
  const widths = cidWidths(doc, cidFont);
  const gidOf = cidToGid(doc, cidFont, facts.program);
  for (const [code, use] of shown.codes) {
    const cid = cmap.cid(code);
    const props: Props = { renderingMode: use.mode, widthFromDictionary: widths(cid), ...unicodeProps(facts, code, null, use) };
    if (cid < 0) {
      // An invalid code (no codespace range starts with it, or a string ends inside it) selects no glyph at all.
      Object.assign(props, { name: null, isGlyphPresent: facts.program.kind === 'absent' ? null : false, widthFromFontProgram: null });
    } else if (facts.program.kind === 'absent') Object.assign(props, { name: cid === 0 ? '.notdef' : null, isGlyphPresent: null, widthFromFontProgram: null });
    else if (facts.program.kind === 'read' && gidOf !== null) {
      const p = facts.program.program;
      Object.assign(
        props,
        guarded(() => {
          const gid = gidOf(cid);
          const present = gid !== undefined && gid < p.numGlyphs && (gid !== 0 || cid === 0);
          return { name: gid === 0 || cid === 0 ? '.notdef' : null, isGlyphPresent: present, ...widthProp(p, present ? gid : undefined) };
        }),
      );
    }
    yield modelObject(T.glyph, `${path} (code ${code})`, props, use.page);
  }
}

/** CID → glyph index: CIDFontType2 through /CIDToGIDMap (Identity, or a stream of 2-byte entries), CID-keyed CFF through its charset. */
function cidToGid(doc: CosDocument, cidFont: CosDict | undefined, program: ProgramRead): ((cid: number) => number | undefined) | null {
  if (program.kind !== 'read') return null;
  const p = program.program;
  if (p.cidToGid !== undefined) return (cid) => p.cidToGid?.get(cid);
  if (p.format !== 'truetype' && p.format !== 'cff') return null;
  const map = entry(doc, cidFont, 'CIDToGIDMap');
  if (map?.kind === 'stream') {
    const decoded = doc.decodeStream(map);
    if (!decoded.ok) return null;
    const data = decoded.data;
    return (cid) => (2 * cid + 2 <= data.length ? data.readUInt16BE(2 * cid) : 0);
  }
  return (cid) => cid;
}

/** /W and /DW of a CIDFont (ISO 32000-1 9.7.4.3): c [w1 w2 …] and cfirst clast w entries, at most 100,000 items read. */
function cidWidths(doc: CosDocument, cidFont: CosDict | undefined): (cid: number) => number {
  const dw = numberOf(doc, cidFont, 'DW') ?? 1000;
  const w = entry(doc, cidFont, 'W');
  const singles = new Map<number, number>();
  const ranges: Array<[number, number, number]> = [];
  if (w?.kind === 'array') {
    const items = w.items.slice(0, 100_000).map((x) => doc.resolve(x));
    for (let i = 0; i < items.length; ) {
      const a = items[i];
      const b = items[i + 1];
      if (a?.kind !== 'int') break;
      if (b?.kind === 'array') {
        b.items.slice(0, 65_536).forEach((x, k) => {
          const v = doc.resolve(x);
          if ((v?.kind === 'int' || v?.kind === 'real') && !singles.has(a.value + k)) singles.set(a.value + k, v.value);
        });
        i += 2;
      } else {
        const c = items[i + 2];
        if (b?.kind !== 'int' || (c?.kind !== 'int' && c?.kind !== 'real')) break;
        ranges.push([a.value, b.value, c.value]);
        i += 3;
      }
    }
  }
  return (cid) => {
    const s = singles.get(cid);
    if (s !== undefined) return s;
    for (const [lo, hi, v] of ranges) if (cid >= lo && cid <= hi) return v;
    return dw;
  };
}

/**
 * PDType1Font `charSetListsAllGlyphs`: every glyph of the program that a content stream shows is named in the
 * /CharSet (.notdef aside). Not the whole program, and extra names are allowed: the veraPDF corpus passes a
 * subset whose CharSet lacks a glyph its program has but its text never shows (6-3-5-t02-pass-b) and one whose
 * CharSet names glyphs the program lacks (pass-a), and fails one whose CharSet lacks shown glyphs (fail-c).
 * Null without a CharSet or a program; undefined when the program cannot be read or the shown codes are unknown.
 * A font with no shown text is held to the whole program (the stricter reading).
 */
export function charSetListsAllGlyphs(doc: CosDocument, font: CosDict, descriptor: CosDict | undefined, charSet: string | null, shown: ShownCodes | undefined): boolean | null | undefined {
  const program = fontProgramOf(doc, descriptor);
  if (charSet === null || program.kind === 'absent') return null;
  if (program.kind !== 'read' || program.program.glyphNames === undefined) return undefined;
  if (shown !== undefined && (shown.undecodable || shown.truncated)) return undefined;
  const listed = new Set(charSet.split('/').map((s) => s.trim()));
  const inProgram = program.program.glyphNames;
  // No text shown with the font that the content walk saw: every glyph of the program is taken as used (stricter).
  const encoding = simpleEncoding(doc, font, program.program);
  const used = shown === undefined ? [...inProgram] : [...shown.codes.keys()].map((code) => encoding(code));
  return used.every((name) => name === null || name === '.notdef' || !inProgram.has(name) || listed.has(name));
}

/** PDCIDFont `cidSetListsAllGlyphs`: the /CIDSet bits are exactly the CIDs the program has; null without a CIDSet or a program; undefined when unknown. */
export function cidSetListsAllGlyphs(doc: CosDocument, cidFont: CosDict, descriptor: CosDict | undefined): boolean | null | undefined {
  const set = streamOf(doc, descriptor?.entries.get('CIDSet'));
  const program = fontProgramOf(doc, descriptor);
  if (set === undefined || program.kind === 'absent') return null;
  if (program.kind !== 'read') return undefined;
  const decoded = doc.decodeStream(set);
  if (!decoded.ok) return undefined;
  const bits = decoded.data;
  const gidOf = cidToGid(doc, cidFont, program);
  if (gidOf === null) return undefined;
  const p = program.program;
  const maxCid = Math.max(bits.length * 8, p.cidToGid === undefined ? p.numGlyphs : Math.max(0, ...p.cidToGid.keys()) + 1);
  if (maxCid > 1 << 20) return undefined;
  for (let cid = 0; cid < maxCid; cid++) {
    const gid = gidOf(cid);
    // A glyph a TrueType subset has emptied is not present (veraPDF passes 6-3-3-2-t01-pass-a/b, whose CIDSet lists the used CIDs only).
    const present = gid !== undefined && gid < p.numGlyphs && (gid !== 0 || cid === 0) && p.hasOutline?.(gid) !== false;
    const bit = cid < bits.length * 8 && ((bits[cid >> 3] as number) & (0x80 >> (cid & 7))) !== 0;
    if (present && !bit) return false;
  }
  return true;
}
