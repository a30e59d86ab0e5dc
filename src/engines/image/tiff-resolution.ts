import type { ReadAt } from './byte-source.js';
import { dpiFromPerCentimetre } from './metric-dpi.js';

/**
 * XResolution / YResolution / ResolutionUnit of one page (IFD) of a TIFF, classic or BigTIFF. sharp
 * reports a single density (the horizontal one), but fax TIFFs are typically 204×98 or 204×196 dpi:
 * with one density their pages would come out twice as tall as the paper.
 */

const X_RESOLUTION = 282;
const Y_RESOLUTION = 283;
const RESOLUTION_UNIT = 296;
/** Directory entries read per IFD at most; real files have a few dozen. */
const MAX_ENTRIES = 4096;

export async function readTiffDpi(read: ReadAt, page: number): Promise<{ x: number; y: number } | undefined> {
  const header = await read(0, 16);
  if (header.length < 8) return undefined;
  const little = header.toString('latin1', 0, 2) === 'II';
  const u16 = (b: Buffer, at: number) => (little ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (b: Buffer, at: number) => (little ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const u64 = (b: Buffer, at: number) => Number(little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at));
  const big = u16(header, 2) === 43;
  if (big && header.length < 16) return undefined;
  const offsetSize = big ? 8 : 4;
  const entrySize = big ? 20 : 12;
  const readOffset = (b: Buffer, at: number) => (big ? u64(b, at) : u32(b, at));

  // Follow the chain of IFDs to the page, refusing loops.
  let ifd = readOffset(header, big ? 8 : 4);
  const seen = new Set<number>();
  for (let p = 0; ; p++) {
    if (ifd === 0 || seen.has(ifd)) return undefined;
    seen.add(ifd);
    const countBytes = await read(ifd, offsetSize === 8 ? 8 : 2);
    if (countBytes.length < (big ? 8 : 2)) return undefined;
    const count = Math.min(big ? u64(countBytes, 0) : u16(countBytes, 0), MAX_ENTRIES);
    const start = ifd + (big ? 8 : 2);
    if (p < page) {
      const next = await read(start + count * entrySize, offsetSize);
      if (next.length < offsetSize) return undefined;
      ifd = readOffset(next, 0);
      continue;
    }
    const entries = await read(start, count * entrySize);
    let x: number | undefined;
    let y: number | undefined;
    let unit = 2; // the TIFF default is inches
    for (let at = 0; at + entrySize <= entries.length; at += entrySize) {
      const tag = u16(entries, at);
      if (tag !== X_RESOLUTION && tag !== Y_RESOLUTION && tag !== RESOLUTION_UNIT) continue;
      const type = u16(entries, at + 2);
      const valueAt = at + (big ? 12 : 8);
      if (tag === RESOLUTION_UNIT) {
        unit = type === 3 ? u16(entries, valueAt) : type === 4 ? u32(entries, valueAt) : unit;
        continue;
      }
      let value: number | undefined;
      if (type === 5) {
        // RATIONAL: inline in a BigTIFF entry, elsewhere in a classic TIFF.
        const data = big ? entries.subarray(valueAt, valueAt + 8) : await read(u32(entries, valueAt), 8);
        if (data.length === 8 && u32(data, 4) !== 0) value = u32(data, 0) / u32(data, 4);
      } else if (type === 3) value = u16(entries, valueAt);
      else if (type === 4) value = u32(entries, valueAt);
      if (tag === X_RESOLUTION) x = value;
      else y = value;
    }
    if (unit !== 2 && unit !== 3) return undefined; // 1: no absolute unit
    if (!x || !Number.isFinite(x)) return undefined;
    const inDpi = (value: number) => (unit === 3 ? dpiFromPerCentimetre(value) : value);
    return { x: inDpi(x), y: inDpi(y && Number.isFinite(y) ? y : x) };
  }
}
