/**
 * Cross-reference sections (ISO 32000-1 §7.5.4 tables, §7.5.8 streams) read from a file offset, with the
 * syntax facts ISO 19005 6.1.4 checks on tables. Declared counts are never trusted: a subsection ends
 * at the first line that is not an entry, a stream's entry count follows from its decoded bytes.
 */
import type { ParsedIndirect } from './indirect.js';
import { CosParser, note, type ParseEnv } from './parser.js';
import { eolLengthAt, isDigit, isRegular, isWhite } from './syntax.js';
import type { CosDict, CosValue } from './types.js';

/** 0: free; 1: at a file offset; 2: the `index`-th object of object stream `stream`. */
export type XrefEntry =
  | { readonly type: 0; readonly gen: number }
  | { readonly type: 1; readonly offset: number; readonly gen: number }
  | { readonly type: 2; readonly stream: number; readonly index: number };

export interface XrefSection {
  /** Offset of `xref` or of the xref stream object. */
  readonly offset: number;
  readonly kind: 'table' | 'stream';
  /** The trailer dictionary (a stream's dictionary for an xref stream); null when none could be read. */
  readonly trailer: CosDict | null;
  readonly entries: ReadonlyArray<readonly [number, XrefEntry]>;
  /** Tables: `xref` and the first subsection header are separated by exactly one EOL marker. True for streams. */
  readonly xrefEOLMarkersComplyPDFA: boolean;
  /** Tables: every subsection header's two numbers are separated by a single SPACE (20h). True for streams. */
  readonly subsectionHeaderSpaceSeparated: boolean;
}

/** Reads a classic table at `offset` (`xref` there, after at most a little white-space), or null if there is none. */
export function readXrefTable(buf: Buffer, offset: number, env: ParseEnv, room: { left: number }): XrefSection | null {
  let p = offset;
  while (isWhite(buf[p]) && p - offset < 64) p++;
  if (buf.toString('latin1', p, p + 4) !== 'xref' || isRegular(buf[p + 4])) return null;
  const start = p;
  p += 4;
  const eol = eolLengthAt(buf, p);
  const eolComplies = eol > 0 && isDigit(buf[p + eol]);
  let spaceSeparated = true;
  const entries: Array<[number, XrefEntry]> = [];
  const parser = new CosParser(buf, env, p);
  for (;;) {
    parser.skipSpace();
    p = parser.pos;
    if (!isDigit(buf[p])) break; // `trailer`, or garbage: the caller reads on from here
    const first = parser.readUnsigned();
    const sep = parser.pos;
    if (first === null) break;
    parser.skipSpace();
    if (parser.pos - sep !== 1 || buf[sep] !== 0x20) spaceSeparated = false;
    const count = parser.readUnsigned();
    if (count === null) break;
    for (let i = 0; i < count; i++) {
      const entry = readTableEntry(buf, parser);
      if (entry === null) {
        note(env, `xref subsection at ${p} ends after ${i} of ${count} declared entries`);
        break;
      }
      if (room.left <= 0) {
        env.limitsHit.add('maxObjects');
        break;
      }
      room.left--;
      entries.push([first + i, entry]);
    }
    if (room.left <= 0) break;
  }
  let trailer: CosDict | null = null;
  parser.skipSpace();
  if (buf.toString('latin1', parser.pos, parser.pos + 7) === 'trailer') {
    parser.pos += 7;
    const t = parser.readObject(0);
    if (t.kind === 'dict') trailer = t;
  }
  if (trailer === null) note(env, `xref table at ${start} has no readable trailer`);
  return { offset: start, kind: 'table', trailer, entries, xrefEOLMarkersComplyPDFA: eolComplies, subsectionHeaderSpaceSeparated: spaceSeparated };
}

/** One `nnnnnnnnnn ggggg n` entry, read leniently as three tokens (the 20-byte layout is not a PDF/A rule). */
function readTableEntry(buf: Buffer, parser: CosParser): XrefEntry | null {
  parser.skipSpace();
  const save = parser.pos;
  const offset = parser.readUnsigned();
  if (offset === null) return null;
  parser.skipSpace();
  const gen = parser.readUnsigned();
  if (gen === null) {
    parser.pos = save;
    return null;
  }
  parser.skipSpace();
  const t = buf[parser.pos];
  if ((t !== 0x6e && t !== 0x66) || isRegular(buf[parser.pos + 1])) {
    parser.pos = save;
    return null;
  }
  parser.pos++;
  return t === 0x6e ? { type: 1, offset, gen } : { type: 0, gen };
}

/** Reads the entries of an xref stream object already parsed (its data decoded by the caller). */
export function readXrefStream(obj: ParsedIndirect, data: Buffer | null, env: ParseEnv, room: { left: number }): XrefSection | null {
  if (obj.value.kind !== 'stream') return null;
  const dict = obj.value.dict;
  const type = dict.entries.get('Type');
  if (type?.kind !== 'name' || type.value !== 'XRef') return null;
  const entries: Array<[number, XrefEntry]> = [];
  const w = intArray(dict.entries.get('W'));
  const section = { offset: obj.offset, kind: 'stream' as const, trailer: dict, entries, xrefEOLMarkersComplyPDFA: true, subsectionHeaderSpaceSeparated: true };
  if (data === null || w.length < 3 || w.some((x) => x < 0 || x > 8)) {
    note(env, `xref stream ${obj.num} at ${obj.offset} unreadable (W or data)`);
    return section;
  }
  const [w0, w1, w2] = w as [number, number, number];
  const width = w0 + w1 + w2;
  if (width === 0) return section;
  const size = dict.entries.get('Size');
  const index = intArray(dict.entries.get('Index'));
  const ranges = index.length >= 2 ? index : [0, size?.kind === 'int' ? size.value : 0];
  let p = 0;
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    const first = ranges[r] as number;
    const count = ranges[r + 1] as number;
    // The count is checked against the bytes really there.
    for (let i = 0; i < count && p + width <= data.length; i++, p += width) {
      if (room.left <= 0) {
        env.limitsHit.add('maxObjects');
        return section;
      }
      room.left--;
      const f0 = w0 === 0 ? 1 : field(data, p, w0);
      const f1 = field(data, p + w0, w1);
      const f2 = field(data, p + w0 + w1, w2);
      if (f0 === 0) entries.push([first + i, { type: 0, gen: f2 }]);
      else if (f0 === 1) entries.push([first + i, { type: 1, offset: f1, gen: f2 }]);
      else if (f0 === 2) entries.push([first + i, { type: 2, stream: f1, index: f2 }]);
      // Other types are reserved: readers treat them as null objects; nothing is recorded.
    }
  }
  return section;
}

function field(data: Buffer, p: number, width: number): number {
  let v = 0;
  for (let i = 0; i < width; i++) v = v * 256 + (data[p + i] as number);
  return v;
}

function intArray(v: CosValue | undefined): number[] {
  if (v?.kind !== 'array') return [];
  const out: number[] = [];
  for (const item of v.items) if (item.kind === 'int' && item.value >= 0) out.push(item.value);
  return out;
}

/** The integer value of a trailer key, or null. */
export function trailerInt(trailer: CosDict | null, key: string): number | null {
  const v = trailer?.entries.get(key);
  return v?.kind === 'int' ? v.value : null;
}
