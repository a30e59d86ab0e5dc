/**
 * Writes BMP files for the tests, including variants no common tool produces (top-down rows, 32-bit
 * BI_RGB with junk in the fourth byte, BI_ALPHABITFIELDS). `value(x, y)` returns the stored pixel:
 * a palette index, a packed 16/32-bit value, or 0xRRGGBB for 24 bpp. Rows are given top first.
 */
export interface BmpSpec {
  width: number;
  height: number;
  bitsPerPixel: 1 | 4 | 8 | 16 | 24 | 32;
  value: (x: number, y: number) => number;
  /** 40 (BITMAPINFOHEADER, default) or 124 (BITMAPV5HEADER). */
  headerSize?: 40 | 124;
  /** 0 BI_RGB (default), 1 BI_RLE8, 3 BI_BITFIELDS, 6 BI_ALPHABITFIELDS. */
  compression?: 0 | 1 | 3 | 6;
  topDown?: boolean;
  masks?: { red: number; green: number; blue: number; alpha?: number };
  palette?: Array<[number, number, number]>;
  pixelsPerMetre?: number;
}

export function writeBmp(spec: BmpSpec): Buffer {
  const { width, height, bitsPerPixel, headerSize = 40, compression = 0, topDown = false, palette = [], pixelsPerMetre = 0 } = spec;
  const maskBytes = headerSize === 40 && compression === 3 ? 12 : headerSize === 40 && compression === 6 ? 16 : 0;
  const paletteOffset = 14 + headerSize + maskBytes;
  const pixelOffset = paletteOffset + palette.length * 4;
  const stride = Math.floor((bitsPerPixel * width + 31) / 32) * 4;
  const file = Buffer.alloc(pixelOffset + stride * height);

  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(pixelOffset, 10);
  file.writeUInt32LE(headerSize, 14);
  file.writeInt32LE(width, 18);
  file.writeInt32LE(topDown ? -height : height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(bitsPerPixel, 28);
  file.writeUInt32LE(compression, 30);
  file.writeUInt32LE(stride * height, 34);
  file.writeInt32LE(pixelsPerMetre, 38);
  file.writeInt32LE(pixelsPerMetre, 42);
  file.writeUInt32LE(palette.length, 46);
  if (spec.masks) {
    const { red, green, blue, alpha = 0 } = spec.masks;
    [red, green, blue, alpha].forEach((mask, i) => {
      if (i < 3 || headerSize > 40 || compression === 6) file.writeUInt32LE(mask >>> 0, 54 + i * 4);
    });
  }
  palette.forEach(([r, g, b], i) => file.set([b, g, r, 0], paletteOffset + i * 4));

  for (let y = 0; y < height; y++) {
    const row = pixelOffset + (topDown ? y : height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const v = spec.value(x, y);
      if (bitsPerPixel < 8) {
        const perByte = 8 / bitsPerPixel;
        const at = row + Math.floor(x / perByte);
        file[at] = file[at]! | (v << (8 - bitsPerPixel * ((x % perByte) + 1)));
      } else if (bitsPerPixel === 8) file[row + x] = v;
      else if (bitsPerPixel === 16) file.writeUInt16LE(v, row + x * 2);
      else if (bitsPerPixel === 24) file.set([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff], row + x * 3);
      else file.writeUInt32LE(v >>> 0, row + x * 4);
    }
  }
  return file;
}
