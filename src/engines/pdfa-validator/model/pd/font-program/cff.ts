/**
 * A Compact Font Format program (Adobe TN 5176; /FontFile3 /Type1C and /CIDFontType0C, or an OpenType 'CFF '
 * table) as the glyph checks need it: the glyph names (name-keyed) or CIDs (CID-keyed, ROS) of its charset, its
 * built-in encoding, and each glyph's advance width from the start of its Type 2 charstring (TN 5177 3.1: an
 * extra first operand of the first stack-clearing operator, else the Private DICT's defaultWidthX). Every INDEX,
 * offset and count is checked; a width hidden behind a subroutine call is unknown (null), never guessed.
 */
import { CFF_STANDARD_STRINGS, STANDARD_ENCODING } from '../font-data.js';
import { type FontProgram, MAX_GLYPHS, need } from './program.js';

interface Index {
  readonly count: number;
  /** The i-th item's [start, end) in the data. */
  item(i: number): [number, number];
  /** Offset just past the INDEX. */
  readonly end: number;
}

function readIndex(data: Buffer, at: number): Index {
  need(at + 2 <= data.length, 'INDEX past the end');
  const count = data.readUInt16BE(at);
  if (count === 0) return { count, item: () => [0, 0], end: at + 2 };
  need(at + 3 <= data.length, 'INDEX past the end');
  const offSize = data[at + 2] as number;
  need(offSize >= 1 && offSize <= 4, 'bad INDEX offSize');
  const offsets = at + 3;
  need(offsets + (count + 1) * offSize <= data.length, 'INDEX offsets past the end');
  const base = offsets + (count + 1) * offSize - 1;
  const off = (i: number): number => base + data.readUIntBE(offsets + i * offSize, offSize);
  const end = off(count);
  need(end <= data.length && end >= base + 1, 'INDEX data past the end');
  return {
    count,
    end,
    item: (i) => {
      const s = off(i);
      const e = off(i + 1);
      need(s <= e && e <= end && s > base, 'bad INDEX item');
      return [s, e];
    },
  };
}

type Dict = Map<number, number[]>;

/** A Top or Private DICT: operator (12 x → 1200 + x) → operands. */
function readDict(data: Buffer, start: number, end: number): Dict {
  const out: Dict = new Map();
  let operands: number[] = [];
  for (let i = start; i < end; ) {
    const b = data[i] as number;
    if (b <= 21) {
      let op = b;
      if (b === 12) {
        need(i + 1 < end, 'DICT escape past the end');
        op = 1200 + (data[i + 1] as number);
        i++;
      }
      i++;
      out.set(op, operands);
      operands = [];
      continue;
    }
    need(operands.length < 48, 'DICT operands');
    if (b === 28) {
      need(i + 3 <= end, 'DICT number');
      operands.push(data.readInt16BE(i + 1));
      i += 3;
    } else if (b === 29) {
      need(i + 5 <= end, 'DICT number');
      operands.push(data.readInt32BE(i + 1));
      i += 5;
    } else if (b === 30) {
      let s = '';
      for (i++; i < end; i++) {
        const byte = data[i] as number;
        const nibbles = [byte >> 4, byte & 15];
        let done = false;
        for (const n of nibbles) {
          if (n === 15) done = true;
          else if (!done) s += n <= 9 ? String(n) : (['.', 'E', 'E-', '', '-'][n - 10] ?? '');
        }
        if (done) break;
      }
      i++;
      operands.push(Number.parseFloat(s) || 0);
    } else if (b >= 32 && b <= 246) {
      operands.push(b - 139);
      i++;
    } else if (b >= 247 && b <= 254) {
      need(i + 2 <= end, 'DICT number');
      const w = data[i + 1] as number;
      operands.push(b <= 250 ? (b - 247) * 256 + w + 108 : -(b - 251) * 256 - w - 108);
      i += 2;
    } else need(false, 'bad DICT byte');
  }
  return out;
}

interface PrivateFacts {
  readonly defaultWidthX: number;
  readonly nominalWidthX: number;
  readonly scale: number;
  /** The Private DICT's local subroutines (Subrs, relative to the Private DICT), if any. */
  readonly subrs?: Index;
}

export function readCff(data: Buffer): FontProgram {
  need(data.length >= 4 && data[0] === 1, 'no CFF header');
  const names = readIndex(data, data[2] as number);
  const topIndex = readIndex(data, names.end);
  need(topIndex.count >= 1, 'no Top DICT');
  const strings = readIndex(data, topIndex.end);
  const globalSubrs = readIndex(data, strings.end);
  const [ts, te] = topIndex.item(0);
  const top = readDict(data, ts, te);
  const sid = (n: number): string => {
    if (n < CFF_STANDARD_STRINGS.length) return CFF_STANDARD_STRINGS[n] as string;
    const i = n - CFF_STANDARD_STRINGS.length;
    need(i < strings.count, 'bad SID');
    const [s, e] = strings.item(i);
    return data.toString('latin1', s, e);
  };
  const charStringsAt = top.get(17)?.[0];
  need(charStringsAt !== undefined && charStringsAt > 0 && charStringsAt < data.length, 'no CharStrings');
  const charStrings = readIndex(data, charStringsAt);
  const numGlyphs = Math.min(charStrings.count, MAX_GLYPHS);
  need(numGlyphs > 0, 'no glyphs');
  const cidKeyed = top.has(1230);
  const matrix = top.get(1207)?.[0] ?? 0.001;

  // charset: GID → SID (name-keyed) or CID.
  const charset = readCharset(data, top.get(15)?.[0] ?? 0, numGlyphs);
  const privateOf = (d: Dict, fontScale: number): PrivateFacts => {
    const p = d.get(18);
    if (p === undefined || p.length < 2) return { defaultWidthX: 0, nominalWidthX: 0, scale: fontScale };
    const [size, offset] = p as [number, number];
    need(offset >= 0 && size >= 0 && offset + size <= data.length, 'Private DICT past the end');
    const priv = readDict(data, offset, offset + size);
    const subrsAt = priv.get(19)?.[0];
    const subrs = subrsAt !== undefined && subrsAt > 0 && offset + subrsAt < data.length ? readIndex(data, offset + subrsAt) : undefined;
    return { defaultWidthX: priv.get(20)?.[0] ?? 0, nominalWidthX: priv.get(21)?.[0] ?? 0, scale: fontScale, ...(subrs ? { subrs } : {}) };
  };
  let privates: PrivateFacts[];
  let fdOf: (gid: number) => number = () => 0;
  if (cidKeyed) {
    const fdArrayAt = top.get(1236)?.[0];
    const fdSelectAt = top.get(1237)?.[0];
    need(fdArrayAt !== undefined && fdSelectAt !== undefined, 'CID font without FDArray/FDSelect');
    const fdArray = readIndex(data, fdArrayAt);
    need(fdArray.count >= 1 && fdArray.count <= 256, 'bad FDArray');
    privates = [];
    for (let i = 0; i < fdArray.count; i++) {
      const [s, e] = fdArray.item(i);
      const fd = readDict(data, s, e);
      // A font dictionary's FontMatrix applies within the top one when the top has its own (CFF
      // spec §18, as FreeType reads it): Ghostscript writes 0.001 on top and 1 here, i.e. 0.001.
      const own = fd.get(1207)?.[0];
      const topOwn = top.get(1207)?.[0];
      privates.push(privateOf(fd, own === undefined ? matrix : topOwn === undefined ? own : own * topOwn));
    }
    fdOf = fdSelect(data, fdSelectAt, numGlyphs);
  } else privates = [privateOf(top, matrix)];

  const glyphNames = new Set<string>();
  const byName = new Map<string, number>();
  let cidToGid: Map<number, number> | undefined;
  if (cidKeyed) {
    const map = new Map<number, number>();
    charset.forEach((cid, gid) => {
      if (!map.has(cid)) map.set(cid, gid);
    });
    cidToGid = map;
  } else {
    charset.forEach((s, gid) => {
      const n = sid(s);
      glyphNames.add(n);
      if (!byName.has(n)) byName.set(n, gid);
    });
  }
  const builtinEncoding = cidKeyed ? undefined : readEncoding(data, top.get(16)?.[0] ?? 0, charset, sid);

  return {
    format: 'cff',
    numGlyphs,
    gidOfName: (name) => byName.get(name),
    widthOf: (gid) => {
      if (gid >= numGlyphs) return null;
      const p = privates[fdOf(gid)];
      if (p === undefined) return null;
      const [s, e] = charStrings.item(gid);
      const w = charStringWidth(data, s, e, { local: p.subrs, global: globalSubrs });
      if (w === undefined) return null;
      return (w === null ? p.defaultWidthX : p.nominalWidthX + w) * p.scale * 1000;
    },
    ...(cidKeyed ? { cidToGid } : { glyphNames, builtinEncoding }),
  };
}

/** GID → SID or CID (GID 0 is .notdef / CID 0). Predefined charsets 0–2 (ISOAdobe, Expert…): GID n ↦ SID n. */
function readCharset(data: Buffer, at: number, numGlyphs: number): number[] {
  const out = [0];
  if (at <= 2) {
    for (let gid = 1; gid < numGlyphs; gid++) out.push(gid);
    return out;
  }
  need(at < data.length, 'charset past the end');
  const format = data[at] as number;
  let i = at + 1;
  while (out.length < numGlyphs) {
    if (format === 0) {
      need(i + 2 <= data.length, 'charset past the end');
      out.push(data.readUInt16BE(i));
      i += 2;
    } else if (format === 1 || format === 2) {
      const size = format === 1 ? 1 : 2;
      need(i + 2 + size <= data.length, 'charset past the end');
      const first = data.readUInt16BE(i);
      const left = data.readUIntBE(i + 2, size);
      for (let k = 0; k <= left && out.length < numGlyphs; k++) out.push(first + k);
      i += 2 + size;
    } else need(false, 'bad charset format');
  }
  return out;
}

function fdSelect(data: Buffer, at: number, numGlyphs: number): (gid: number) => number {
  need(at < data.length, 'FDSelect past the end');
  const format = data[at] as number;
  if (format === 0) {
    need(at + 1 + numGlyphs <= data.length, 'FDSelect past the end');
    return (gid) => data[at + 1 + gid] as number;
  }
  need(format === 3 && at + 3 <= data.length, 'bad FDSelect');
  const n = data.readUInt16BE(at + 1);
  need(at + 3 + n * 3 + 2 <= data.length, 'FDSelect past the end');
  return (gid) => {
    for (let r = 0; r < n; r++) {
      const first = data.readUInt16BE(at + 3 + r * 3);
      const next = data.readUInt16BE(at + 3 + (r + 1) * 3);
      if (gid >= first && gid < next) return data[at + 3 + r * 3 + 2] as number;
    }
    return 0;
  };
}

/** Code → glyph name: the predefined Standard encoding (0), Expert (1: not tabled, empty), or the font's own (formats 0/1 with supplements). */
function readEncoding(data: Buffer, at: number, charset: readonly number[], sid: (n: number) => string): Map<number, string> {
  const out = new Map<number, string>();
  if (at === 0) {
    STANDARD_ENCODING.forEach((n, code) => n !== '' && out.set(code, n));
    return out;
  }
  if (at === 1 || at >= data.length) return out;
  const format = data[at] as number;
  const n = data[at + 1] as number;
  let gid = 1;
  let i = at + 2;
  if ((format & 0x7f) === 0) {
    for (let k = 0; k < n && i < data.length; k++, i++) out.set(data[i] as number, sid(charset[gid++] ?? 0));
  } else if ((format & 0x7f) === 1) {
    for (let k = 0; k < n && i + 2 <= data.length; k++, i += 2) {
      const first = data[i] as number;
      for (let c = 0; c <= (data[i + 1] as number); c++) out.set(first + c, sid(charset[gid++] ?? 0));
    }
  }
  if (format & 0x80 && i < data.length) {
    const sups = data[i++] as number;
    for (let k = 0; k < sups && i + 3 <= data.length; k++, i += 3) out.set(data[i] as number, sid(data.readUInt16BE(i + 1)));
  }
  return out;
}

/** Subroutine calls followed to find a width (Type 2 allows a nesting of 10). */
const MAX_SUBR_DEPTH = 10;
/** Charstring bytes read for one width, subroutines included. */
const MAX_WIDTH_BYTES = 65_536;

/** TN 5177 4.7: a subroutine number is biased by the size of its INDEX. */
function subrBias(count: number): number {
  return count < 1240 ? 107 : count < 33900 ? 1131 : 32768;
}

/**
 * The width operand of a Type 2 charstring: the first operand of the first stack-clearing operator when it has
 * one more than it takes (number), none (null: the default width), or unknown (undefined). Subroutine calls
 * (callsubr, callgsubr) before it are followed, as Ghostscript's programs start with one: the operands they
 * push count as the charstring's own. Bounded in depth and bytes; anything else before the first
 * stack-clearing operator leaves the width unknown, never guessed.
 */
function charStringWidth(data: Buffer, start: number, end: number, subrs: { local: Index | undefined; global: Index }): number | null | undefined {
  const stack: number[] = [];
  let budget = MAX_WIDTH_BYTES;
  type Outcome = { width: number | null | undefined } | 'return';
  const run = (from: number, to: number, depth: number): Outcome | undefined => {
    for (let i = from; i < to; ) {
      if (--budget < 0) return { width: undefined };
      const b = data[i] as number;
      if (b >= 32 || b === 28) {
        let v: number;
        if (b === 28) {
          if (i + 3 > to) return { width: undefined };
          v = data.readInt16BE(i + 1);
          i += 3;
        } else if (b <= 246) {
          v = b - 139;
          i++;
        } else if (b <= 250) {
          if (i + 2 > to) return { width: undefined };
          v = (b - 247) * 256 + (data[i + 1] as number) + 108;
          i += 2;
        } else if (b <= 254) {
          if (i + 2 > to) return { width: undefined };
          v = -(b - 251) * 256 - (data[i + 1] as number) - 108;
          i += 2;
        } else {
          if (i + 5 > to) return { width: undefined };
          v = data.readInt32BE(i + 1) / 65536;
          i += 5;
        }
        if (stack.length >= 48) return { width: undefined };
        stack.push(v);
        continue;
      }
      const args = stack.length;
      const first = stack[0] ?? null;
      const odd = args % 2 === 1;
      switch (b) {
        case 1: // hstem
        case 3: // vstem
        case 18: // hstemhm
        case 23: // vstemhm
        case 19: // hintmask
        case 20: // cntrmask
          return { width: odd ? first : null };
        case 21: // rmoveto
          return { width: args > 2 ? first : null };
        case 4: // vmoveto
        case 22: // hmoveto
          return { width: args > 1 ? first : null };
        case 14: // endchar
          return { width: args === 1 || args === 5 ? first : null };
        case 10: // callsubr
        case 29: {
          // callgsubr
          const index = b === 10 ? subrs.local : subrs.global;
          const number = stack.pop();
          if (index === undefined || number === undefined || depth >= MAX_SUBR_DEPTH || !Number.isInteger(number)) return { width: undefined };
          const n = number + subrBias(index.count);
          if (n < 0 || n >= index.count) return { width: undefined };
          const [s, e] = index.item(n);
          const outcome = run(s, e, depth + 1);
          if (outcome === undefined) return { width: undefined }; // a subroutine that ends without return
          if (outcome !== 'return') return outcome;
          i++;
          continue;
        }
        case 11: // return
          return depth > 0 ? 'return' : { width: undefined };
        default:
          // Anything else before the first stack-clearing operator: unknown.
          return { width: undefined };
      }
    }
    return undefined;
  };
  const outcome = run(start, end, 0);
  return outcome === undefined || outcome === 'return' ? undefined : outcome.width;
}
