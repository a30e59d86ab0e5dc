/**
 * CMaps as the glyph checks read them (ISO 32000-1 9.7.5, 9.10.3; Adobe TN 5014/5411): how a Type 0 font's
 * strings split into codes (codespace ranges), which CID a code selects (cidrange/cidchar), and what Unicode
 * text a ToUnicode CMap gives a code (bfchar/bfrange). Read with the content tokenizer, bounded in entries.
 * Predefined CMaps other than Identity-H/V come from poppler-data's files (predefined-cmap.ts); without them, unknown (null).
 */
import type { CosDocument, CosStream, CosValue, ParseEnv } from '../../cos/index.js';
import { readDataFileSync } from '../../../fonts/read-data-file.js';
import { contentTokens, DEFAULT_COS_LIMITS } from '../../cos/index.js';
import { newParseEnv } from '../../cos/parser.js';

/** Entries of all sections of one CMap read at most. */
const MAX_ENTRIES = 100_000;

export interface CodeRange {
  readonly length: number;
  readonly lo: number;
  readonly hi: number;
}

export interface Mapping {
  readonly length: number;
  readonly lo: number;
  readonly hi: number;
  /** The CID of `lo` (cidrange), or the Unicode strings (bfrange with an array: one per code; without: the first, incremented). */
  readonly cid?: number;
  readonly text?: string;
  readonly texts?: readonly string[];
}

export interface TypeZeroCMap {
  /**
   * The codes of a string, in order. A byte that starts no code of the codespace (or a last byte too short for one)
   * is an invalid code: it comes out as INVALID_CODE - byte (negative), which selects no glyph.
   */
  codes(bytes: Buffer): number[];
  /** The CID of a code (0 when the CMap does not map it: ISO 32000-1 9.7.6.3 says .notdef). */
  cid(code: number): number;
}

/** Invalid codes are INVALID_CODE - byte: below every real code. */
export const INVALID_CODE = -1;

const IDENTITY: TypeZeroCMap = {
  codes: (bytes) => {
    const out: number[] = [];
    for (let i = 0; i + 1 < bytes.length; i += 2) out.push(bytes.readUInt16BE(i));
    if (bytes.length % 2 === 1) out.push(INVALID_CODE - (bytes[bytes.length - 1] as number));
    return out;
  },
  cid: (code) => code,
};

/** A Type 0 font's /Encoding as a CMap, or null when it is not known here. */
export function typeZeroCMap(doc: CosDocument, encoding: CosValue | undefined): TypeZeroCMap | null {
  if (encoding?.kind === 'name') {
    if (encoding.value === 'Identity-H' || encoding.value === 'Identity-V') return IDENTITY;
    const predefined = predefinedCMap(encoding.value);
    return predefined === undefined ? null : cmapOf(predefined.ranges, predefined.mappings);
  }
  if (encoding?.kind !== 'stream') return null;
  const parsed = parseCMap(doc, encoding);
  if (parsed === null) return null;
  // /UseCMap (a predefined CMap's name; a stream is not followed): its ranges and mappings under this one's, which win.
  const use = doc.resolve(encoding.dict.entries.get('UseCMap'));
  const useName = use?.kind === 'name' ? use.value : use === undefined || use.kind === 'null' ? parsed.useCMap : null;
  if (useName === null) return null;
  const base = useName === undefined ? undefined : predefinedCMap(useName);
  if (useName !== undefined && base === undefined) return null;
  const ranges = [...parsed.ranges, ...(base?.ranges ?? [])];
  if (ranges.length === 0) return null;
  return cmapOf(ranges, [...parsed.mappings, ...(base?.mappings ?? [])]);
}

function cmapOf(ranges: readonly CodeRange[], mappings: readonly Mapping[]): TypeZeroCMap {
  const table = cidTable(mappings);
  return {
    codes: (bytes) => {
      const out: number[] = [];
      for (let i = 0; i < bytes.length; ) {
        let matched = 0;
        let code = 0;
        for (let n = 1; n <= 4 && i + n <= bytes.length && matched === 0; n++) {
          const c = bytes.readUIntBE(i, n);
          if (ranges.some((r) => r.length === n && c >= r.lo && c <= r.hi)) {
            matched = n;
            code = c;
          }
        }
        if (matched === 0) {
          matched = 1;
          code = INVALID_CODE - (bytes[i] as number);
        }
        out.push(code);
        i += matched;
      }
      return out;
    },
    cid: (code) => {
      if (code < 0) return code;
      if (table !== null) return table.get(code) ?? 0;
      for (const m of mappings) if (code >= m.lo && code <= m.hi && m.cid !== undefined) return m.cid + (code - m.lo);
      return 0;
    },
  };
}

export interface ToUnicodeMap {
  /** The Unicode text of a code, or null when the CMap does not map it. */
  text(code: number): string | null;
}

/** A font's /ToUnicode CMap stream, or null when there is none or it cannot be read. */
export function toUnicodeMap(doc: CosDocument, value: CosValue | undefined): ToUnicodeMap | null {
  const stream = doc.resolve(value);
  if (stream?.kind !== 'stream') return null;
  const parsed = parseCMap(doc, stream);
  if (parsed === null) return null;
  const { mappings } = parsed;
  return {
    text: (code) => {
      // The last definition wins (later bfchar entries override earlier ranges in practice).
      for (let i = mappings.length - 1; i >= 0; i--) {
        const m = mappings[i] as Mapping;
        if (code < m.lo || code > m.hi) continue;
        if (m.texts !== undefined) return m.texts[code - m.lo] ?? null;
        if (m.text !== undefined) return increment(m.text, code - m.lo);
      }
      return null;
    },
  };
}

/** A bfrange destination for the n-th code: the last UTF-16 unit incremented by n. */
export function increment(text: string, n: number): string {
  if (n === 0 || text.length === 0) return text;
  return text.slice(0, -1) + String.fromCharCode((text.charCodeAt(text.length - 1) + n) & 0xffff);
}

function utf16(bytes: Buffer): string {
  let s = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) s += String.fromCharCode(bytes.readUInt16BE(i));
  if (bytes.length % 2 === 1) s += String.fromCharCode(bytes[bytes.length - 1] as number);
  return s;
}

export interface ParsedCMap {
  ranges: CodeRange[];
  mappings: Mapping[];
  /** The CMap named by `/Name usecmap`, whose ranges and mappings this one extends. */
  useCMap?: string;
}

function parseCMap(doc: CosDocument, stream: CosStream): ParsedCMap | null {
  const decoded = doc.decodeStream(stream);
  return decoded.ok ? parseCMapBytes(decoded.data, doc.env) : null;
}

/** A CMap's codespace ranges and mappings from its bytes (a stream's, or a predefined CMap file's); null past MAX_ENTRIES. */
export function parseCMapBytes(data: Buffer, env: ParseEnv): ParsedCMap | null {
  const ranges: CodeRange[] = [];
  const mappings: Mapping[] = [];
  let operands: CosValue[] = [];
  let section = '';
  let useCMap: string | undefined;
  const code = (v: CosValue | undefined): { value: number; length: number } | null =>
    v?.kind === 'string' && v.bytes.length >= 1 && v.bytes.length <= 4 ? { value: v.bytes.readUIntBE(0, v.bytes.length), length: v.bytes.length } : null;
  for (const token of contentTokens(data, env)) {
    if (ranges.length + mappings.length > MAX_ENTRIES) return null;
    if (token.kind === 'operand') {
      operands.push(token.value);
      const want = section === 'codespacerange' ? 2 : section === 'cidrange' || section === 'bfrange' ? 3 : section === 'cidchar' || section === 'bfchar' ? 2 : 0;
      if (want === 0) {
        if (operands.length > 64) operands.shift();
        continue;
      }
      if (operands.length < want) continue;
      const [a, b, c] = operands;
      operands = [];
      const lo = code(a);
      if (lo === null) continue;
      if (section === 'codespacerange') {
        const hi = code(b);
        if (hi !== null) ranges.push({ length: lo.length, lo: lo.value, hi: hi.value });
      } else if (section === 'cidrange') {
        const hi = code(b);
        if (hi !== null && c?.kind === 'int') mappings.push({ length: lo.length, lo: lo.value, hi: hi.value, cid: c.value });
      } else if (section === 'cidchar') {
        if (b?.kind === 'int') mappings.push({ length: lo.length, lo: lo.value, hi: lo.value, cid: b.value });
      } else if (section === 'bfchar') {
        if (b?.kind === 'string') mappings.push({ length: lo.length, lo: lo.value, hi: lo.value, text: utf16(b.bytes) });
        else if (b?.kind === 'name') mappings.push({ length: lo.length, lo: lo.value, hi: lo.value, text: b.value });
      } else if (section === 'bfrange') {
        const hi = code(b);
        if (hi === null || hi.value < lo.value) continue;
        if (c?.kind === 'string') mappings.push({ length: lo.length, lo: lo.value, hi: hi.value, text: utf16(c.bytes) });
        else if (c?.kind === 'array') mappings.push({ length: lo.length, lo: lo.value, hi: hi.value, texts: c.items.map((x) => (x.kind === 'string' ? utf16(x.bytes) : '')) });
      }
      continue;
    }
    if (token.kind !== 'operator') continue;
    const op = token.name;
    if (op.startsWith('begin') && op !== 'begin' && op !== 'begincmap') section = op.slice(5);
    else if (op.startsWith('end') && op !== 'end' && op !== 'endcmap') section = '';
    else if (op === 'usecmap' && operands.at(-1)?.kind === 'name') useCMap = (operands.at(-1) as { value: string }).value;
    operands = [];
  }
  return { ranges, mappings, ...(useCMap === undefined ? {} : { useCMap }) };
}

/** The Adobe collections poppler-data keeps predefined CMaps for (ISO 32000-1 9.7.5.2 Table 118), one folder each. */
const CMAP_FOLDERS = ['Adobe-GB1', 'Adobe-CNS1', 'Adobe-Japan1', 'Adobe-Korea1'];
/** The largest predefined CMap is ~300 KB. */
const MAX_CMAP_BYTES = 2_097_152;
const predefined = new Map<string, ParsedCMap | undefined>();

/**
 * A predefined CMap (e.g. 90ms-RKSJ-H) from Debian's poppler-data (Adobe's files, BSD-3-Clause), with what its
 * `usecmap` chain adds (at most 4 deep); read once per name on first use; undefined when it is not on this machine.
 */
export function predefinedCMap(name: string, depth = 0): ParsedCMap | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name) || name.includes('..') || depth > 4) return undefined;
  if (predefined.has(name)) return predefined.get(name);
  let found: ParsedCMap | undefined;
  for (const folder of CMAP_FOLDERS) {
    const parsed = readCMapFile(`/usr/share/poppler/cMap/${folder}/${name}`);
    if (parsed === null) continue;
    const base = parsed.useCMap === undefined ? undefined : predefinedCMap(parsed.useCMap, depth + 1);
    if (parsed.useCMap !== undefined && base === undefined) break;
    found = { ranges: [...parsed.ranges, ...(base?.ranges ?? [])], mappings: [...parsed.mappings, ...(base?.mappings ?? [])] };
    break;
  }
  predefined.set(name, found);
  return found;
}

/** A CMap file another package installs, bounded in bytes (and in entries by parseCMapBytes); null when missing or unreadable. */
export function readCMapFile(file: string): ParsedCMap | null {
  const data = readDataFileSync(file, MAX_CMAP_BYTES);
  return data === undefined ? null : parseCMapBytes(data, newParseEnv(DEFAULT_COS_LIMITS));
}

/** Code → CID for a large CMap (a predefined one has up to ~14,000 entries), the first mapping of a code winning; null when small or too wide to expand. */
function cidTable(mappings: readonly Mapping[]): Map<number, number> | null {
  if (mappings.length < 64) return null;
  const table = new Map<number, number>();
  for (const m of mappings) {
    if (m.cid === undefined) continue;
    if (m.hi - m.lo > 1 << 20 || table.size > 1 << 20) return null;
    for (let code = m.lo; code <= m.hi; code++) if (!table.has(code)) table.set(code, m.cid + (code - m.lo));
  }
  return table;
}
