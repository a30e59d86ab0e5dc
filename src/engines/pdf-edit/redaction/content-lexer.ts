/**
 * A tolerant reader of PDF content streams (ISO 32000-1 §7.8.2): the stream as a list of operations,
 * each with its operands and the byte range it occupied. Operations the redactor does not change are
 * copied byte for byte from that range, so the rewritten stream stays as close to the original as
 * possible; only changed operations are written anew (see `serialize`).
 */

import { StreamDecodeError } from './stream-codec.js';

export type CsValue =
  | { t: 'num'; v: number }
  | { t: 'name'; v: string }
  | { t: 'str'; v: Uint8Array }
  | { t: 'arr'; v: CsValue[] }
  | { t: 'dict'; v: Map<string, CsValue> }
  | { t: 'bool'; v: boolean }
  | { t: 'null' };

export interface CsInlineImage {
  dict: Map<string, CsValue>;
  data: Uint8Array;
}

export interface CsOp {
  /** The operator keyword (`Tj`, `cm`, `BI` for a whole inline image, ...). */
  op: string;
  args: CsValue[];
  /** Where the operation's text starts: right after the previous operation, so whitespace and comments before it belong to it. */
  start: number;
  /** Just after the operator (after `EI` for inline images). */
  end: number;
  image?: CsInlineImage;
}

export interface ParsedContent {
  ops: CsOp[];
  /** Offset of what follows the last operator (whitespace, comments, dangling operands). */
  tail: number;
}

const WHITE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITE[c] = 1;
const DELIM = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIM[c.charCodeAt(0)] = 1;

export const isWhite = (c: number | undefined): boolean => c !== undefined && WHITE[c] === 1;
const isDelim = (c: number | undefined): boolean => c !== undefined && DELIM[c] === 1;
const isRegular = (c: number | undefined): boolean => c !== undefined && WHITE[c] === 0 && DELIM[c] === 0;

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

type Container = { kind: 'arr'; items: CsValue[] } | { kind: 'dict'; items: CsValue[] };

/** Reads a content stream. Never throws: malformed input yields fewer or odd operations, which the callers treat as unknown. */
/**
 * Arrays and dictionaries nest this deep at most: a closer searches the open containers, and the
 * values are later written out recursively, so deeper nesting (a hostile stream of brackets) would
 * cost quadratic time and the stack. Content that nests deeper cannot be decoded here.
 */
const MAX_NESTING = 256;

export function parseContent(bytes: Uint8Array): ParsedContent {
  const ops: CsOp[] = [];
  let pos = 0;
  let opStart = 0;
  let operands: CsValue[] = [];
  const containers: Container[] = [];
  const length = bytes.length;

  const push = (value: CsValue): void => {
    const top = containers[containers.length - 1];
    if (top) top.items.push(value);
    else operands.push(value);
  };
  const closeAll = (): void => {
    while (containers.length > 0) closeContainer(containers[containers.length - 1]!.kind);
  };
  const closeContainer = (kind: Container['kind']): void => {
    // Close up to the innermost container of this kind; a stray closer is ignored.
    const index = containers.map((c) => c.kind).lastIndexOf(kind);
    if (index < 0) return;
    while (containers.length > index) {
      const container = containers.pop()!;
      push(container.kind === 'arr' ? { t: 'arr', v: container.items } : { t: 'dict', v: dictOf(container.items) });
    }
  };

  while (pos < length) {
    const c = bytes[pos]!;
    if (WHITE[c]) {
      pos++;
      continue;
    }
    if (c === 0x25 /* % */) {
      while (pos < length && bytes[pos] !== 10 && bytes[pos] !== 13) pos++;
      continue;
    }
    if (c === 0x28 /* ( */) {
      const [value, next] = readLiteral(bytes, pos);
      push({ t: 'str', v: value });
      pos = next;
      continue;
    }
    if (c === 0x3c /* < */) {
      if (bytes[pos + 1] === 0x3c) {
        if (containers.length >= MAX_NESTING) throw new StreamDecodeError(`content nested more than ${MAX_NESTING} levels deep`);
        containers.push({ kind: 'dict', items: [] });
        pos += 2;
      } else {
        const [value, next] = readHex(bytes, pos);
        push({ t: 'str', v: value });
        pos = next;
      }
      continue;
    }
    if (c === 0x3e /* > */) {
      if (bytes[pos + 1] === 0x3e) {
        closeContainer('dict');
        pos += 2;
      } else pos++;
      continue;
    }
    if (c === 0x5b /* [ */) {
      if (containers.length >= MAX_NESTING) throw new StreamDecodeError(`content nested more than ${MAX_NESTING} levels deep`);
      containers.push({ kind: 'arr', items: [] });
      pos++;
      continue;
    }
    if (c === 0x5d /* ] */) {
      closeContainer('arr');
      pos++;
      continue;
    }
    if (c === 0x2f /* / */) {
      const [name, next] = readName(bytes, pos + 1);
      push({ t: 'name', v: name });
      pos = next;
      continue;
    }
    if (!isRegular(c)) {
      pos++; // { } ) and other strays
      continue;
    }
    let end = pos;
    while (end < length && isRegular(bytes[end])) end++;
    const token = latin1(bytes, pos, end);
    pos = end;
    if (NUMBER.test(token)) {
      push({ t: 'num', v: Number(token) });
      continue;
    }
    if (token === 'true' || token === 'false') {
      push({ t: 'bool', v: token === 'true' });
      continue;
    }
    if (token === 'null') {
      push({ t: 'null' });
      continue;
    }
    closeAll();
    if (token === 'BI') {
      const [image, next] = readInlineImage(bytes, pos);
      ops.push({ op: 'BI', args: operands, start: opStart, end: next, image });
      pos = next;
    } else {
      ops.push({ op: token, args: operands, start: opStart, end: pos });
    }
    operands = [];
    opStart = pos;
  }
  return { ops, tail: opStart };
}

function dictOf(items: CsValue[]): Map<string, CsValue> {
  const map = new Map<string, CsValue>();
  for (let i = 0; i + 1 < items.length; i += 2) {
    const key = items[i]!;
    if (key.t === 'name') map.set(key.v, items[i + 1]!);
  }
  return map;
}

export function latin1(bytes: Uint8Array, start: number, end: number): string {
  let out = '';
  // Clamped: a caller's `end` past the data (fonts.ts reads a whole CMap with MAX_SAFE_INTEGER) would build an endless string.
  const stop = Math.min(end, bytes.length);
  for (let i = start; i < stop; i++) out += String.fromCharCode(bytes[i]!);
  return out;
}

function readName(bytes: Uint8Array, pos: number): [string, number] {
  let out = '';
  while (pos < bytes.length && isRegular(bytes[pos])) {
    const c = bytes[pos]!;
    if (c === 0x23 /* # */ && /^[0-9a-fA-F]{2}$/.test(latin1(bytes, pos + 1, pos + 3))) {
      out += String.fromCharCode(Number.parseInt(latin1(bytes, pos + 1, pos + 3), 16));
      pos += 3;
    } else {
      out += String.fromCharCode(c);
      pos++;
    }
  }
  return [out, pos];
}

function readLiteral(bytes: Uint8Array, pos: number): [Uint8Array, number] {
  const out: number[] = [];
  let depth = 1;
  pos++;
  while (pos < bytes.length) {
    const c = bytes[pos]!;
    if (c === 0x5c /* \ */) {
      const n = bytes[pos + 1];
      pos += 2;
      if (n === undefined) break;
      if (n >= 0x30 && n <= 0x37) {
        let value = n - 0x30;
        for (let k = 0; k < 2 && bytes[pos] !== undefined && bytes[pos]! >= 0x30 && bytes[pos]! <= 0x37; k++) value = value * 8 + (bytes[pos++]! - 0x30);
        out.push(value & 0xff);
      } else if (n === 0x6e) out.push(10);
      else if (n === 0x72) out.push(13);
      else if (n === 0x74) out.push(9);
      else if (n === 0x62) out.push(8);
      else if (n === 0x66) out.push(12);
      else if (n === 13) {
        if (bytes[pos] === 10) pos++; // backslash + CRLF: line continuation
      } else if (n === 10) {
        // backslash + LF: line continuation
      } else out.push(n);
      continue;
    }
    if (c === 0x28) depth++;
    if (c === 0x29) {
      depth--;
      if (depth === 0) return [Uint8Array.from(out), pos + 1];
    }
    if (c === 13) {
      out.push(10); // an unescaped end of line is read as LF
      if (bytes[pos + 1] === 10) pos++;
      pos++;
      continue;
    }
    out.push(c);
    pos++;
  }
  return [Uint8Array.from(out), pos];
}

function readHex(bytes: Uint8Array, pos: number): [Uint8Array, number] {
  const out: number[] = [];
  let high = -1;
  pos++;
  while (pos < bytes.length && bytes[pos] !== 0x3e) {
    const digit = hexValue(bytes[pos]!);
    pos++;
    if (digit < 0) continue;
    if (high < 0) high = digit;
    else {
      out.push(high * 16 + digit);
      high = -1;
    }
  }
  if (high >= 0) out.push(high * 16);
  return [Uint8Array.from(out), Math.min(pos + 1, bytes.length)];
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Abbreviations of inline-image keys and colour spaces (§8.9.7), for working out an unfiltered image's length. */
const COMPONENTS: Record<string, number> = { G: 1, DeviceGray: 1, CalGray: 1, RGB: 3, DeviceRGB: 3, CalRGB: 3, Lab: 3, CMYK: 4, DeviceCMYK: 4, I: 1, Indexed: 1 };

/** Reads `key value ... ID <data> EI` after `BI`; returns the image and the offset after `EI`. */
function readInlineImage(bytes: Uint8Array, pos: number): [CsInlineImage, number] {
  const items: CsValue[] = [];
  // The dictionary: reuse the main reader on the stretch up to the `ID` keyword.
  let idAt = -1;
  let scan = pos;
  while (scan < bytes.length) {
    if (bytes[scan] === 0x49 && bytes[scan + 1] === 0x44 && !isRegular(bytes[scan + 2]) && (scan === 0 || isWhite(bytes[scan - 1]))) {
      idAt = scan;
      break;
    }
    if (bytes[scan] === 0x28) {
      scan = readLiteral(bytes, scan)[1];
      continue;
    }
    scan++;
  }
  if (idAt < 0) return [{ dict: new Map(), data: new Uint8Array(0) }, bytes.length];
  collectValues(bytes.subarray(pos, idAt), items);
  const dict = dictOf(items);
  let dataStart = idAt + 2;
  if (isWhite(bytes[dataStart])) dataStart++;

  const declared = numberOf(dict.get('L') ?? dict.get('Length'));
  const computed = declared ?? unfilteredLength(dict);
  if (computed !== undefined) {
    let after = dataStart + computed;
    while (after < bytes.length && isWhite(bytes[after])) after++;
    if (bytes[after] === 0x45 && bytes[after + 1] === 0x49 && !isRegular(bytes[after + 2])) {
      return [{ dict, data: bytes.slice(dataStart, dataStart + computed) }, after + 2];
    }
  }
  let fallback = -1;
  for (let i = dataStart; i + 1 < bytes.length; i++) {
    if (bytes[i] !== 0x45 || bytes[i + 1] !== 0x49) continue;
    if (i > dataStart && !isWhite(bytes[i - 1])) continue;
    if (i + 2 < bytes.length && !isWhite(bytes[i + 2]) && !isDelim(bytes[i + 2])) continue;
    if (fallback < 0) fallback = i;
    if (looksLikeOperators(bytes, i + 2)) {
      fallback = i;
      break;
    }
  }
  if (fallback < 0) return [{ dict, data: bytes.slice(dataStart) }, bytes.length];
  const dataEnd = fallback > dataStart && isWhite(bytes[fallback - 1]) ? fallback - 1 : fallback;
  return [{ dict, data: bytes.slice(dataStart, dataEnd) }, fallback + 2];
}

function collectValues(bytes: Uint8Array, into: CsValue[]): void {
  // Parse "key value ..." by appending a dummy operator, which collects the operands.
  const withOp = new Uint8Array(bytes.length + 3);
  withOp.set(bytes);
  withOp.set([0x20, 0x51, 0x5f], bytes.length); // " Q_"
  const parsed = parseContent(withOp);
  const last = parsed.ops[parsed.ops.length - 1];
  if (last) for (const arg of last.args) into.push(arg); // not push(...): operand lists can be long
}

/** After a candidate `EI`: the next bytes should be printable content-stream text, not image data. */
function looksLikeOperators(bytes: Uint8Array, pos: number): boolean {
  const end = Math.min(bytes.length, pos + 32);
  for (let i = pos; i < end; i++) {
    const c = bytes[i]!;
    if (c > 0x7e || (c < 0x20 && !isWhite(c))) return false;
  }
  return true;
}

function unfilteredLength(dict: Map<string, CsValue>): number | undefined {
  if (dict.has('F') || dict.has('Filter')) return undefined;
  const width = numberOf(dict.get('W') ?? dict.get('Width'));
  const height = numberOf(dict.get('H') ?? dict.get('Height'));
  if (width === undefined || height === undefined) return undefined;
  const mask = dict.get('IM') ?? dict.get('ImageMask');
  let bpc = numberOf(dict.get('BPC') ?? dict.get('BitsPerComponent'));
  let components: number | undefined;
  if (mask?.t === 'bool' && mask.v) {
    bpc = 1;
    components = 1;
  } else {
    const cs = dict.get('CS') ?? dict.get('ColorSpace');
    if (cs?.t === 'name') components = COMPONENTS[cs.v];
    else if (cs?.t === 'arr' && cs.v[0]?.t === 'name' && (cs.v[0].v === 'I' || cs.v[0].v === 'Indexed')) components = 1;
  }
  if (bpc === undefined || components === undefined) return undefined;
  return height * Math.ceil((width * components * bpc) / 8);
}

export function numberOf(value: CsValue | undefined): number | undefined {
  return value?.t === 'num' && Number.isFinite(value.v) ? value.v : undefined;
}

/** A number as content-stream text: plain decimal notation, at most 5 decimals. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n) || Math.abs(n) < 1e-7) return '0';
  let text = n.toFixed(5);
  if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '');
  return text === '-0' ? '0' : text;
}

export function formatName(name: string): string {
  let out = '/';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i) & 0xff;
    out += c < 0x21 || c > 0x7e || c === 0x23 || isDelim(c) ? `#${c.toString(16).padStart(2, '0')}` : String.fromCharCode(c);
  }
  return out;
}

export function formatHexString(bytes: Uint8Array): string {
  return `<${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}>`;
}

export function serialize(value: CsValue): string {
  switch (value.t) {
    case 'num':
      return formatNumber(value.v);
    case 'name':
      return formatName(value.v);
    case 'str':
      return formatHexString(value.v);
    case 'arr':
      return `[${value.v.map(serialize).join(' ')}]`;
    case 'dict':
      return `<<${[...value.v].map(([k, v]) => `${formatName(k)} ${serialize(v)}`).join(' ')}>>`;
    case 'bool':
      return value.v ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

/** An operation written anew: operands and operator on a line of their own. */
export function formatOp(args: readonly CsValue[], op: string): string {
  return `\n${[...args.map(serialize), op].join(' ')}`;
}
