import { open, readFile } from 'node:fs/promises';
import { PopplerError } from './errors.js';

/**
 * Joins single-page TIFF files into one multi-page TIFF, without decoding: each page's first IFD is
 * copied with its strip (or tile) data and out-of-line values relocated, pages chained through the
 * next-IFD pointers and numbered with PageNumber. Pages may differ in size, colour and compression,
 * which libvips' own multi-page writer does not allow. Classic TIFF only (the page files are written
 * by libvips, far below 4 GiB); pointers to sub-IFDs (EXIF, GPS, SubIFDs) are dropped.
 */

const TYPE_SIZES: Readonly<Record<number, number>> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4 };
const STRIP_OFFSETS = 273;
const STRIP_BYTE_COUNTS = 279;
const TILE_OFFSETS = 324;
const TILE_BYTE_COUNTS = 325;
const PAGE_NUMBER = 297;
const NEW_SUBFILE_TYPE = 254;
/** Tags whose values point into the file at structures this merger does not copy. */
const DROPPED = new Set([330, 34665, 34853, 40965, 513, 514]);
const SHORT = 3;
const LONG = 4;

interface Entry {
  tag: number;
  type: number;
  count: number;
  /** The value bytes (in the file's byte order). */
  data: Buffer;
}

export async function mergeTiffs(pages: readonly string[], output: string): Promise<void> {
  if (pages.length === 0) throw new PopplerError('failed', 'No pages to join into a TIFF.');
  const handle = await open(output, 'w');
  try {
    let position = 8;
    let littleEndian: boolean | undefined;
    let pointerAt = 4; // where the offset of the next IFD goes: the header's first, then each IFD's last field
    for (const [index, page] of pages.entries()) {
      const file = await readFile(page);
      const parsed = parseFirstIfd(file);
      littleEndian ??= parsed.littleEndian;
      if (parsed.littleEndian !== littleEndian) throw new PopplerError('failed', 'The page TIFFs differ in byte order.');
      const io = new ByteOrder(littleEndian);
      if (index === 0) {
        const header = Buffer.alloc(8);
        header.write(littleEndian ? 'II' : 'MM', 0, 'latin1');
        io.u16(header, 2, 42);
        await handle.write(header, 0, 8, 0);
      }
      const entries = parsed.entries.filter((e) => !DROPPED.has(e.tag) && e.tag !== PAGE_NUMBER && e.tag !== NEW_SUBFILE_TYPE);

      // The image data: strips or tiles, copied in order and given new offsets.
      for (const [offsetsTag, countsTag] of [
        [STRIP_OFFSETS, STRIP_BYTE_COUNTS],
        [TILE_OFFSETS, TILE_BYTE_COUNTS],
      ] as const) {
        const offsets = entries.find((e) => e.tag === offsetsTag);
        const counts = entries.find((e) => e.tag === countsTag);
        if (!offsets) continue;
        if (!counts || counts.count !== offsets.count) throw new PopplerError('failed', 'A page TIFF has strip offsets without matching byte counts.');
        const relocated = Buffer.alloc(offsets.count * 4);
        for (let i = 0; i < offsets.count; i++) {
          const from = io.value(offsets, i);
          const length = io.value(counts, i);
          if (from + length > file.length) throw new PopplerError('failed', 'A page TIFF is truncated.');
          io.u32(relocated, i * 4, position);
          await handle.write(file, from, length, position);
          position += length;
        }
        offsets.type = LONG;
        offsets.data = relocated;
      }

      // PageNumber (this page, of how many) and NewSubfileType "page", as multi-page readers expect.
      const pageNumber = Buffer.alloc(4);
      io.u16(pageNumber, 0, index);
      io.u16(pageNumber, 2, pages.length);
      entries.push({ tag: PAGE_NUMBER, type: SHORT, count: 2, data: pageNumber });
      const subfile = Buffer.alloc(4);
      io.u32(subfile, 0, 2);
      entries.push({ tag: NEW_SUBFILE_TYPE, type: LONG, count: 1, data: subfile });
      entries.sort((a, b) => a.tag - b.tag);

      // Out-of-line values (more than four bytes), each on a word boundary.
      const inline = new Map<Entry, Buffer>();
      for (const entry of entries) {
        if (entry.data.length <= 4) continue;
        if (position % 2 === 1) position += await pad(handle, position);
        const pointer = Buffer.alloc(4);
        io.u32(pointer, 0, position);
        inline.set(entry, pointer);
        await handle.write(entry.data, 0, entry.data.length, position);
        position += entry.data.length;
      }

      // The IFD itself, then the link to it from the previous one.
      if (position % 2 === 1) position += await pad(handle, position);
      const ifd = Buffer.alloc(2 + entries.length * 12 + 4);
      io.u16(ifd, 0, entries.length);
      entries.forEach((entry, i) => {
        const at = 2 + i * 12;
        io.u16(ifd, at, entry.tag);
        io.u16(ifd, at + 2, entry.type);
        io.u32(ifd, at + 4, entry.count);
        (inline.get(entry) ?? entry.data).copy(ifd, at + 8);
      });
      await handle.write(ifd, 0, ifd.length, position);
      const link = Buffer.alloc(4);
      io.u32(link, 0, position);
      await handle.write(link, 0, 4, pointerAt);
      pointerAt = position + ifd.length - 4;
      position += ifd.length;
      if (position > 0xffff_ff00) throw new PopplerError('tooLarge', 'The multi-page TIFF would exceed 4 GiB.');
    }
  } finally {
    await handle.close();
  }
}

async function pad(handle: Awaited<ReturnType<typeof open>>, position: number): Promise<number> {
  await handle.write(Buffer.alloc(1), 0, 1, position);
  return 1;
}

function parseFirstIfd(file: Buffer): { littleEndian: boolean; entries: Entry[] } {
  const order = file.toString('latin1', 0, 2);
  if (file.length < 8 || (order !== 'II' && order !== 'MM')) throw new PopplerError('failed', 'A page image is not a TIFF.');
  const io = new ByteOrder(order === 'II');
  if (io.read16(file, 2) !== 42) throw new PopplerError('failed', 'A page TIFF is not a classic TIFF.');
  const ifd = io.read32(file, 4);
  if (ifd + 2 > file.length) throw new PopplerError('failed', 'A page TIFF is truncated.');
  const count = io.read16(file, ifd);
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    const at = ifd + 2 + i * 12;
    if (at + 12 > file.length) throw new PopplerError('failed', 'A page TIFF is truncated.');
    const tag = io.read16(file, at);
    const type = io.read16(file, at + 2);
    const valueCount = io.read32(file, at + 4);
    const size = (TYPE_SIZES[type] ?? 0) * valueCount;
    if (TYPE_SIZES[type] === undefined) continue; // unknown type: cannot be relocated, and not needed
    let data: Buffer;
    if (size <= 4) {
      data = Buffer.from(file.subarray(at + 8, at + 12));
    } else {
      const from = io.read32(file, at + 8);
      if (from + size > file.length) throw new PopplerError('failed', 'A page TIFF is truncated.');
      data = Buffer.from(file.subarray(from, from + size));
    }
    entries.push({ tag, type, count: valueCount, data });
  }
  return { littleEndian: order === 'II', entries };
}

class ByteOrder {
  constructor(private readonly little: boolean) {}

  read16(b: Buffer, at: number): number {
    return this.little ? b.readUInt16LE(at) : b.readUInt16BE(at);
  }

  read32(b: Buffer, at: number): number {
    return this.little ? b.readUInt32LE(at) : b.readUInt32BE(at);
  }

  u16(b: Buffer, at: number, value: number): void {
    if (this.little) b.writeUInt16LE(value, at);
    else b.writeUInt16BE(value, at);
  }

  u32(b: Buffer, at: number, value: number): void {
    if (this.little) b.writeUInt32LE(value, at);
    else b.writeUInt32BE(value, at);
  }

  /** Element i of a SHORT or LONG array entry. */
  value(entry: Entry, i: number): number {
    return entry.type === SHORT ? this.read16(entry.data, i * 2) : this.read32(entry.data, i * 4);
  }
}
