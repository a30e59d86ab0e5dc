/**
 * Stream filters (ISO 32000-1 §7.4) for the validator: enough to read object streams, xref streams,
 * metadata, content streams, fonts and ICC profiles. Every decoder writes at most `cap` bytes (a
 * decompression bomb stops there and reports `tooLarge`); image-only codecs (DCT, JPX, CCITT, JBIG2)
 * are reported as unsupported, their raw bytes stay available.
 */
import { constants, inflateSync } from 'node:zlib';
import { unpredictPngByte } from '../../pdf/png-predictor.js';
import { hexValue, isWhite } from './syntax.js';
import type { CosDict, CosValue } from './types.js';

export type DecodeResult = { readonly ok: true; readonly data: Buffer } | { readonly ok: false; readonly reason: 'unsupportedFilter' | 'tooLarge' | 'corrupt'; readonly detail: string };

/** Abbreviations allowed in inline images (ISO 32000-1 Table 94) mapped to the full names. */
const ABBREVIATIONS: Record<string, string> = { AHx: 'ASCIIHexDecode', A85: 'ASCII85Decode', LZW: 'LZWDecode', Fl: 'FlateDecode', RL: 'RunLengthDecode', CCF: 'CCITTFaxDecode', DCT: 'DCTDecode' };

export interface FilterStep {
  readonly name: string;
  readonly parms: CosDict | null;
}

/** The filter chain of a stream dictionary (/Filter and /DecodeParms, each a name/dict or an array), references already resolved by `resolve`. */
export function filterChain(dict: CosDict, resolve: (v: CosValue | undefined) => CosValue | undefined): FilterStep[] {
  const f = resolve(dict.entries.get('Filter'));
  const p = resolve(dict.entries.get('DecodeParms'));
  const names: CosValue[] = f === undefined ? [] : f.kind === 'array' ? f.items : [f];
  const parms: CosValue[] = p === undefined ? [] : p.kind === 'array' ? p.items : [p];
  const steps: FilterStep[] = [];
  names.forEach((n, i) => {
    const name = resolve(n);
    const parm = resolve(parms[i]);
    steps.push({ name: name?.kind === 'name' ? name.value : '', parms: parm?.kind === 'dict' ? parm : null });
  });
  return steps;
}

export function decodeChain(raw: Buffer, steps: readonly FilterStep[], cap: number): DecodeResult {
  let data = raw;
  for (const step of steps) {
    const r = decodeOne(data, step, cap);
    if (!r.ok) return r;
    data = r.data;
  }
  return { ok: true, data };
}

function tooLarge(name: string, cap: number): DecodeResult {
  return { ok: false, reason: 'tooLarge', detail: `${name} output exceeds ${cap} bytes` };
}

function decodeOne(data: Buffer, step: FilterStep, cap: number): DecodeResult {
  const name = ABBREVIATIONS[step.name] ?? step.name;
  switch (name) {
    case 'FlateDecode':
      return predict(inflate(data, cap), step.parms, cap);
    case 'LZWDecode':
      return predict(lzw(data, cap, intParm(step.parms, 'EarlyChange', 1) !== 0), step.parms, cap);
    case 'ASCIIHexDecode':
      return asciiHex(data);
    case 'ASCII85Decode':
      return ascii85(data, cap);
    case 'RunLengthDecode':
      return runLength(data, cap);
    case 'Crypt': {
      const n = step.parms?.entries.get('Name');
      if (n === undefined || (n.kind === 'name' && n.value === 'Identity')) return { ok: true, data };
      return { ok: false, reason: 'unsupportedFilter', detail: 'Crypt filter other than Identity' };
    }
    default:
      return { ok: false, reason: 'unsupportedFilter', detail: `filter ${name || '(not a name)'} is not decoded` };
  }
}

function intParm(parms: CosDict | null, key: string, fallback: number): number {
  const v = parms?.entries.get(key);
  return v?.kind === 'int' ? v.value : fallback;
}

function inflate(data: Buffer, cap: number): DecodeResult {
  try {
    // Z_SYNC_FLUSH: a truncated stream yields what it has instead of an error, as PDF readers do.
    return { ok: true, data: inflateSync(data, { maxOutputLength: cap, finishFlush: constants.Z_SYNC_FLUSH }) };
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return tooLarge('FlateDecode', cap);
    return { ok: false, reason: 'corrupt', detail: `FlateDecode: ${(error as Error).message}` };
  }
}

/** FlateDecode/LZWDecode predictors: 2 (TIFF) and 10–15 (PNG, per-row type byte). */
function predict(r: DecodeResult, parms: CosDict | null, cap: number): DecodeResult {
  if (!r.ok || parms === null) return r;
  const predictor = intParm(parms, 'Predictor', 1);
  if (predictor <= 1) return r;
  const colors = clamp(intParm(parms, 'Colors', 1), 1, 64);
  const bpc = [1, 2, 4, 8, 16].includes(intParm(parms, 'BitsPerComponent', 8)) ? intParm(parms, 'BitsPerComponent', 8) : 8;
  const columns = clamp(intParm(parms, 'Columns', 1), 1, 1 << 24);
  const bpp = Math.max(1, Math.ceil((colors * bpc) / 8));
  const rowBytes = Math.ceil((colors * bpc * columns) / 8);
  const input = r.data;
  if (predictor === 2) {
    if (bpc !== 8) return r; // TIFF prediction below 8 bits is rare in the documents that matter here: leave as is.
    const out = Buffer.from(input);
    for (let row = 0; row + rowBytes <= out.length; row += rowBytes) for (let i = bpp; i < rowBytes; i++) out[row + i] = ((out[row + i] as number) + (out[row + i - bpp] as number)) & 0xff;
    return { ok: true, data: out };
  }
  const rows = Math.floor(input.length / (rowBytes + 1));
  if (rows * rowBytes > cap) return tooLarge('predictor', cap);
  const out = Buffer.alloc(rows * rowBytes);
  for (let row = 0; row < rows; row++) {
    const type = input[row * (rowBytes + 1)] as number;
    const src = row * (rowBytes + 1) + 1;
    const dst = row * rowBytes;
    for (let i = 0; i < rowBytes; i++) {
      const left = i >= bpp ? (out[dst + i - bpp] as number) : 0;
      const up = row > 0 ? (out[dst - rowBytes + i] as number) : 0;
      const upLeft = row > 0 && i >= bpp ? (out[dst - rowBytes + i - bpp] as number) : 0;
      const v = unpredictPngByte(type, input[src + i] as number, left, up, upLeft);
      if (v === undefined) return { ok: false, reason: 'corrupt', detail: `PNG predictor row type ${type}` };
      out[dst + i] = v;
    }
  }
  return { ok: true, data: out };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function asciiHex(data: Buffer): DecodeResult {
  const out = Buffer.alloc(Math.ceil(data.length / 2));
  let n = 0;
  let high = -1;
  for (const c of data) {
    if (c === 0x3e) break;
    if (isWhite(c)) continue;
    const v = hexValue(c);
    if (v < 0) return { ok: false, reason: 'corrupt', detail: 'ASCIIHexDecode: not a hex digit' };
    if (high < 0) high = v;
    else {
      out[n++] = high * 16 + v;
      high = -1;
    }
  }
  if (high >= 0) out[n++] = high * 16;
  return { ok: true, data: out.subarray(0, n) };
}

function ascii85(data: Buffer, cap: number): DecodeResult {
  const out: number[] = [];
  const group: number[] = [];
  const flush = (count: number): void => {
    while (group.length < 5) group.push(84);
    let v = 0;
    for (const g of group) v = v * 85 + g;
    const bytes = [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
    for (let i = 0; i < count; i++) out.push(bytes[i] as number);
    group.length = 0;
  };
  for (let i = 0; i < data.length; i++) {
    const c = data[i] as number;
    if (isWhite(c)) continue;
    if (c === 0x7e /* ~ */) break;
    if (c === 0x7a /* z */ && group.length === 0) {
      out.push(0, 0, 0, 0);
    } else if (c >= 0x21 && c <= 0x75) {
      group.push(c - 0x21);
      if (group.length === 5) flush(4);
    } else {
      return { ok: false, reason: 'corrupt', detail: 'ASCII85Decode: byte outside the alphabet' };
    }
    if (out.length > cap) return tooLarge('ASCII85Decode', cap);
  }
  if (group.length > 1) flush(group.length - 1);
  return { ok: true, data: Buffer.from(out) };
}

function runLength(data: Buffer, cap: number): DecodeResult {
  const chunks: Buffer[] = [];
  let total = 0;
  let i = 0;
  while (i < data.length) {
    const len = data[i++] as number;
    if (len === 128) break;
    const chunk = len < 128 ? data.subarray(i, i + len + 1) : Buffer.alloc(257 - len, data[i] ?? 0);
    i += len < 128 ? len + 1 : 1;
    total += chunk.length;
    if (total > cap) return tooLarge('RunLengthDecode', cap);
    chunks.push(chunk);
  }
  return { ok: true, data: Buffer.concat(chunks) };
}

/** LZW (ISO 32000-1 §7.4.4), 9–12-bit codes, with the EarlyChange variant. */
function lzw(data: Buffer, cap: number, early: boolean): DecodeResult {
  const table: Buffer[] = [];
  const reset = (): void => {
    table.length = 0;
    for (let i = 0; i < 256; i++) table.push(Buffer.of(i));
    table.push(Buffer.alloc(0), Buffer.alloc(0)); // 256 clear, 257 EOD
  };
  reset();
  const out: Buffer[] = [];
  let total = 0;
  let bits = 9;
  let buffer = 0;
  let nbits = 0;
  let prev: Buffer | null = null;
  for (const byte of data) {
    buffer = ((buffer << 8) | byte) & 0xffffff;
    nbits += 8;
    while (nbits >= bits) {
      const code = (buffer >>> (nbits - bits)) & ((1 << bits) - 1);
      nbits -= bits;
      if (code === 256) {
        reset();
        bits = 9;
        prev = null;
        continue;
      }
      if (code === 257) return { ok: true, data: Buffer.concat(out) };
      let entry: Buffer;
      if (code < table.length) entry = table[code] as Buffer;
      else if (code === table.length && prev !== null) entry = Buffer.concat([prev, prev.subarray(0, 1)]);
      else return { ok: false, reason: 'corrupt', detail: 'LZWDecode: code out of range' };
      out.push(entry);
      total += entry.length;
      if (total > cap) return tooLarge('LZWDecode', cap);
      if (prev !== null && table.length < 4096) table.push(Buffer.concat([prev, entry.subarray(0, 1)]));
      prev = entry;
      const next = table.length + (early ? 1 : 0);
      if (next >= 512 && bits === 9) bits = 10;
      else if (next >= 1024 && bits === 10) bits = 11;
      else if (next >= 2048 && bits === 11) bits = 12;
    }
  }
  return { ok: true, data: Buffer.concat(out) };
}
