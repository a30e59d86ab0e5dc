import { open } from 'node:fs/promises';
import { readAt } from '../format/read-at.js';
import { ImageEngineError } from './errors.js';
import { dpiFromMetric } from './metric-dpi.js';

/**
 * A bounded BMP decoder, because libvips cannot read BMP. It handles what Windows and common tools
 * write: uncompressed BI_RGB at 1/4/8 bpp (palette), 16 bpp (5-5-5), 24 and 32 bpp, and BI_BITFIELDS /
 * BI_ALPHABITFIELDS at 16/32 bpp, bottom-up and top-down, with the core (OS/2 1.x), info and V2-V5
 * headers. RLE4/RLE8 and embedded JPEG/PNG are refused as `unsupported`.
 *
 * The dimensions are checked against the pixel limit before anything is allocated, the pixel array is
 * read a few MB at a time, and the output is one raw buffer (1 channel for grey palettes, 3 for RGB,
 * 4 only when the file really carries alpha) ready for `sharp(data, { raw })`.
 */

export interface DecodedBmp {
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  data: Buffer;
  /** From the header's pixels per metre; 0 when the file does not say. */
  xDpi: number;
  yDpi: number;
}

export interface BmpHeader {
  width: number;
  height: number;
  topDown: boolean;
  bitsPerPixel: number;
  pixelOffset: number;
  /** Bytes per stored row, padded to 4. */
  stride: number;
  /** RGB triples, for 1/4/8 bpp. */
  palette: Uint8Array | undefined;
  /** Channel masks for 16/32 bpp (the defaults when the file has none). */
  masks: { red: number; green: number; blue: number; alpha: number } | undefined;
  xDpi: number;
  yDpi: number;
}

/** Bytes that hold every supported header, the bit masks and a 256-entry palette. */
export const BMP_HEAD_BYTES = 14 + 124 + 16 + 256 * 4;

const BI_RGB = 0;
const BI_RLE8 = 1;
const BI_RLE4 = 2;
const BI_BITFIELDS = 3;
const BI_JPEG = 4;
const BI_PNG = 5;
const BI_ALPHABITFIELDS = 6;

const unreadable = (why: string) => new ImageEngineError('unreadable', `The BMP file is damaged: ${why}.`);

/** Parses and checks the headers; throws before anything large is allocated. */
export function parseBmpHeader(head: Buffer, fileSize: number, maxPixels: number): BmpHeader {
  if (head.length < 26 || head.toString('latin1', 0, 2) !== 'BM') throw unreadable('no BMP signature');
  const pixelOffset = head.readUInt32LE(10);
  const headerSize = head.readUInt32LE(14);
  const core = headerSize === 12;
  if (![12, 16, 40, 52, 56, 64, 108, 124].includes(headerSize)) throw unreadable(`unknown header size ${headerSize}`);
  if (head.length < 14 + headerSize) throw unreadable('the header is cut off');

  const width = core ? head.readUInt16LE(18) : head.readInt32LE(18);
  const storedHeight = core ? head.readUInt16LE(20) : head.readInt32LE(22);
  const bitsPerPixel = core ? head.readUInt16LE(24) : head.readUInt16LE(28);
  const compression = headerSize >= 40 ? head.readUInt32LE(30) : BI_RGB;
  const height = Math.abs(storedHeight);
  if (width <= 0 || height === 0) throw unreadable(`invalid size ${width}×${storedHeight}`);
  if (width * height > maxPixels) {
    throw new ImageEngineError('tooLarge', `The image has ${width}×${height} pixels, more than the limit of ${maxPixels}.`);
  }

  if (compression === BI_RLE8 || compression === BI_RLE4) throw new ImageEngineError('unsupported', 'RLE-compressed BMP files are not supported.');
  if (compression === BI_JPEG || compression === BI_PNG) throw new ImageEngineError('unsupported', 'BMP files with embedded JPEG or PNG data are not supported.');
  // The OS/2 2.x header (64) reuses 3 and 4 for Huffman 1D and RLE24.
  if (headerSize === 64 && compression !== BI_RGB) throw new ImageEngineError('unsupported', 'Compressed OS/2 BMP files are not supported.');
  if (![BI_RGB, BI_BITFIELDS, BI_ALPHABITFIELDS].includes(compression)) throw unreadable(`unknown compression ${compression}`);
  if (![1, 4, 8, 16, 24, 32].includes(bitsPerPixel)) throw new ImageEngineError('unsupported', `BMP files with ${bitsPerPixel} bits per pixel are not supported.`);
  const bitfields = compression !== BI_RGB;
  if (bitfields && bitsPerPixel !== 16 && bitsPerPixel !== 32) throw unreadable(`bit fields with ${bitsPerPixel} bits per pixel`);

  // Masks live in the V2+ header itself, or just after a 40-byte header.
  const extraMasks = headerSize === 40 && bitfields ? (compression === BI_ALPHABITFIELDS ? 16 : 12) : 0;
  let masks: BmpHeader['masks'];
  if (bitsPerPixel === 16 || bitsPerPixel === 32) {
    if (bitfields) {
      const at = 14 + 40;
      if (head.length < at + 12) throw unreadable('the bit masks are cut off');
      const hasAlphaMask = headerSize >= 56 || compression === BI_ALPHABITFIELDS;
      masks = { red: head.readUInt32LE(at), green: head.readUInt32LE(at + 4), blue: head.readUInt32LE(at + 8), alpha: hasAlphaMask && head.length >= at + 16 ? head.readUInt32LE(at + 12) : 0 };
      for (const mask of Object.values(masks)) if (!contiguous(mask)) throw unreadable('a bit mask is not contiguous');
    } else {
      // BI_RGB: 5-5-5 at 16 bpp; at 32 bpp the fourth byte is officially unused, so it is not alpha.
      masks = bitsPerPixel === 16 ? { red: 0x7c00, green: 0x03e0, blue: 0x001f, alpha: 0 } : { red: 0xff0000, green: 0xff00, blue: 0xff, alpha: 0 };
    }
  }

  let palette: Uint8Array | undefined;
  if (bitsPerPixel <= 8) {
    const entrySize = core ? 3 : 4;
    const used = headerSize >= 40 ? head.readUInt32LE(46) : 0;
    const count = Math.min(used > 0 ? used : 1 << bitsPerPixel, 1 << bitsPerPixel);
    const at = 14 + headerSize + extraMasks;
    if (head.length < at + count * entrySize) throw unreadable('the palette is cut off');
    palette = new Uint8Array(256 * 3); // unused entries stay black: indices past the palette do not fail
    for (let i = 0; i < count; i++) {
      palette[i * 3] = head[at + i * entrySize + 2]!;
      palette[i * 3 + 1] = head[at + i * entrySize + 1]!;
      palette[i * 3 + 2] = head[at + i * entrySize]!;
    }
  }

  const stride = Math.floor((bitsPerPixel * width + 31) / 32) * 4;
  // The last row may lack its padding: some writers stop at the last pixel.
  const needed = pixelOffset + stride * (height - 1) + Math.ceil((bitsPerPixel * width) / 8);
  if (pixelOffset < 14 + headerSize) throw unreadable('the pixel data overlaps the header');
  if (needed > fileSize) throw unreadable('the pixel data is truncated');

  const dpi = (at: number) => (headerSize >= 40 ? dpiFromMetric(Math.max(0, head.readInt32LE(at))) : 0);
  return { width, height, topDown: storedHeight < 0, bitsPerPixel, pixelOffset, stride, palette, masks, xDpi: dpi(38), yDpi: dpi(42) };
}

/** Reads and decodes a BMP file. */
export async function decodeBmpFile(file: string, maxPixels: number): Promise<DecodedBmp> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const header = parseBmpHeader(await readAt(handle, 0, Math.min(size, BMP_HEAD_BYTES)), size, maxPixels);
    const decoder = new RowDecoder(header);
    // A few MB of stored rows at a time: the file is never held whole.
    const rowsPerRead = Math.max(1, Math.floor((4 << 20) / header.stride));
    for (let first = 0; first < header.height; first += rowsPerRead) {
      const rows = Math.min(rowsPerRead, header.height - first);
      const position = header.pixelOffset + first * header.stride;
      let chunk = await readAt(handle, position, Math.min(rows * header.stride, size - position));
      // parseBmpHeader checked the size; only the last row may lack its padding.
      if (chunk.length < rows * header.stride) chunk = Buffer.concat([chunk, Buffer.alloc(rows * header.stride - chunk.length)]);
      for (let r = 0; r < rows; r++) decoder.row(first + r, chunk, r * header.stride);
    }
    return decoder.finish();
  } finally {
    await handle.close();
  }
}

/** Decodes a whole BMP held in memory (tests and small files). */
export function decodeBmp(file: Buffer, maxPixels: number): DecodedBmp {
  const header = parseBmpHeader(file, file.length, maxPixels);
  const decoder = new RowDecoder(header);
  const padded = file.length < header.pixelOffset + header.stride * header.height ? Buffer.concat([file, Buffer.alloc(header.stride)]) : file;
  for (let r = 0; r < header.height; r++) decoder.row(r, padded, header.pixelOffset + r * header.stride);
  return decoder.finish();
}

/** Converts stored rows into the output buffer, top row first. */
class RowDecoder {
  private readonly header: BmpHeader;
  private readonly channels: 1 | 3 | 4;
  private readonly data: Buffer;
  private readonly red: (pixel: number) => number;
  private readonly green: (pixel: number) => number;
  private readonly blue: (pixel: number) => number;
  private readonly alpha: (pixel: number) => number;
  /** Alpha values seen; files with an alpha mask often leave it all 0 (or all 255), which means opaque. */
  private alphaSeen = { zero: false, other: false, opaque: false };

  constructor(header: BmpHeader) {
    this.header = header;
    const { palette, masks } = header;
    this.channels = palette ? (isGreyPalette(palette) ? 1 : 3) : masks && masks.alpha !== 0 ? 4 : 3;
    this.data = Buffer.alloc(header.width * header.height * this.channels);
    this.red = maskReader(masks?.red ?? 0);
    this.green = maskReader(masks?.green ?? 0);
    this.blue = maskReader(masks?.blue ?? 0);
    this.alpha = maskReader(masks?.alpha ?? 0);
  }

  /** Decodes stored row `index` (in file order) from `source` at `offset`. */
  row(index: number, source: Buffer, offset: number): void {
    const { width, height, topDown, bitsPerPixel, palette } = this.header;
    const channels = this.channels;
    const out = this.data;
    let o = (topDown ? index : height - 1 - index) * width * channels;
    if (palette) {
      const perByte = 8 / bitsPerPixel;
      const mask = (1 << bitsPerPixel) - 1;
      for (let x = 0; x < width; x++) {
        const byte = source[offset + Math.floor(x / perByte)]!;
        const entry = ((byte >> (8 - bitsPerPixel * ((x % perByte) + 1))) & mask) * 3;
        if (channels === 1) out[o++] = palette[entry]!;
        else {
          out[o++] = palette[entry]!;
          out[o++] = palette[entry + 1]!;
          out[o++] = palette[entry + 2]!;
        }
      }
    } else if (bitsPerPixel === 24) {
      for (let x = 0, i = offset; x < width; x++, i += 3) {
        out[o++] = source[i + 2]!;
        out[o++] = source[i + 1]!;
        out[o++] = source[i]!;
      }
    } else {
      const bytes = bitsPerPixel / 8;
      for (let x = 0, i = offset; x < width; x++, i += bytes) {
        const pixel = bytes === 2 ? source.readUInt16LE(i) : source.readUInt32LE(i);
        out[o++] = this.red(pixel);
        out[o++] = this.green(pixel);
        out[o++] = this.blue(pixel);
        if (channels === 4) {
          const a = this.alpha(pixel);
          out[o++] = a;
          if (a === 0) this.alphaSeen.zero = true;
          else if (a === 255) this.alphaSeen.opaque = true;
          else this.alphaSeen.other = true;
        }
      }
    }
  }

  finish(): DecodedBmp {
    const { width, height, xDpi, yDpi } = this.header;
    const { zero, other, opaque } = this.alphaSeen;
    // An alpha channel that is uniformly 0 or uniformly 255 carries no transparency: drop it in place.
    if (this.channels === 4 && !other && !(zero && opaque)) {
      const pixels = width * height;
      const data = this.data;
      // Forward compaction is safe: the write position never passes the read position.
      for (let p = 0, i = 0, o = 0; p < pixels; p++, i += 4) {
        data[o++] = data[i]!;
        data[o++] = data[i + 1]!;
        data[o++] = data[i + 2]!;
      }
      return { width, height, channels: 3, data: this.data.subarray(0, pixels * 3), xDpi, yDpi };
    }
    return { width, height, channels: this.channels, data: this.data, xDpi, yDpi };
  }
}

function isGreyPalette(palette: Uint8Array): boolean {
  for (let i = 0; i < palette.length; i += 3) if (palette[i] !== palette[i + 1] || palette[i] !== palette[i + 2]) return false;
  return true;
}

function contiguous(mask: number): boolean {
  if (mask === 0) return true;
  const shifted = mask >>> trailingZeros(mask);
  return (shifted & (shifted + 1)) === 0;
}

function trailingZeros(mask: number): number {
  return mask === 0 ? 0 : 31 - Math.clz32(mask & -mask);
}

/** A function extracting one channel under `mask` and scaling it to 0-255. */
function maskReader(mask: number): (pixel: number) => number {
  if (mask === 0) return () => 0;
  const shift = trailingZeros(mask);
  const bits = 32 - Math.clz32(mask >>> shift);
  if (bits >= 8) return (pixel) => ((pixel & mask) >>> shift) >>> (bits - 8);
  const max = (1 << bits) - 1;
  const table = Uint8Array.from({ length: max + 1 }, (_, v) => Math.round((v * 255) / max));
  return (pixel) => table[(pixel & mask) >>> shift]!;
}
