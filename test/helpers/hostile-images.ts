/**
 * Hostile images built byte by byte: headers that declare pixel floods (far more pixels than the
 * file holds) and a TIFF whose IFD chain loops. Checksums are correct, so a decoder gets past the
 * container checks and has to judge the declared sizes.
 */
import { crc32 } from 'node:zlib';
import { deflateSync } from 'node:zlib';

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG whose IHDR says width × height (8-bit RGB) but whose IDAT holds a few bytes only. */
export function pngFlood(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(Buffer.alloc(64))), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A GIF89a whose screen and only image say width × height, with a minimal LZW stream. */
export function gifFlood(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  screen.set([0x80, 0, 0], 4); // global colour table of 2 entries
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    screen,
    Buffer.from([0, 0, 0, 255, 255, 255]),
    descriptor,
    Buffer.from([0x02, 0x02, 0x4c, 0x01, 0x00]), // code size 2, one sub-block: clear, 0, end
    Buffer.from([0x3b]),
  ]);
}

/** `jpeg` with the frame size of its SOF marker rewritten to width × height. */
export function jpegFlood(jpeg: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpeg);
  for (let at = 2; at + 9 < out.length; ) {
    if (out[at] !== 0xff) throw new Error('not a JPEG marker sequence');
    const marker = out[at + 1]!;
    const length = out.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      out.writeUInt16BE(height, at + 5);
      out.writeUInt16BE(width, at + 7);
      return out;
    }
    at += 2 + length;
  }
  throw new Error('no SOF marker');
}

interface IfdEntry {
  tag: number;
  type: number;
  value: number;
}

/** A little-endian baseline TIFF: one IFD per `ifds` entry; `next` maps an IFD index to the IFD its next-pointer names. */
function tiff(ifds: IfdEntry[][], pixels: Buffer, next: (index: number) => number | undefined): Buffer {
  const header = 8;
  const pixelsAt = header;
  const sizes = ifds.map((entries) => 2 + entries.length * 12 + 4);
  const offsets: number[] = [];
  let at = pixelsAt + pixels.length + (pixels.length % 2);
  for (const size of sizes) {
    offsets.push(at);
    at += size;
  }
  const out = Buffer.alloc(at);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(offsets[0]!, 4);
  pixels.copy(out, pixelsAt);
  ifds.forEach((entries, index) => {
    let p = offsets[index]!;
    out.writeUInt16LE(entries.length, p);
    p += 2;
    for (const entry of [...entries].sort((a, b) => a.tag - b.tag)) {
      out.writeUInt16LE(entry.tag, p);
      out.writeUInt16LE(entry.type, p + 2);
      out.writeUInt32LE(1, p + 4);
      if (entry.type === 3) out.writeUInt16LE(entry.value, p + 8);
      else out.writeUInt32LE(entry.value, p + 8);
      p += 12;
    }
    const target = next(index);
    out.writeUInt32LE(target === undefined ? 0 : offsets[target]!, p);
  });
  return out;
}

function greyIfd(width: number, height: number, pixelsAt: number, byteCount: number): IfdEntry[] {
  return [
    { tag: 256, type: 4, value: width },
    { tag: 257, type: 4, value: height },
    { tag: 258, type: 3, value: 8 },
    { tag: 259, type: 3, value: 1 },
    { tag: 262, type: 3, value: 1 },
    { tag: 273, type: 4, value: pixelsAt },
    { tag: 277, type: 3, value: 1 },
    { tag: 278, type: 4, value: height },
    { tag: 279, type: 4, value: byteCount },
  ];
}

/** A greyscale TIFF whose only IFD says width × height over a strip of 16 bytes. */
export function tiffFlood(width: number, height: number): Buffer {
  return tiff([greyIfd(width, height, 8, 16)], Buffer.alloc(16, 128), () => undefined);
}

/** A valid 4×4 greyscale TIFF of two pages whose second IFD points back at the first: an endless page chain. */
export function tiffIfdLoop(): Buffer {
  const page = greyIfd(4, 4, 8, 16);
  return tiff([page, page], Buffer.alloc(16, 128), (index) => (index === 0 ? 1 : 0));
}
