import { readFileSync, readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeBmp, decodeBmpFile } from '../../../src/engines/image/bmp-decoder.js';
import { ImageEngineError } from '../../../src/engines/image/errors.js';
import { writeBmp } from './bmp-writer.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/images/bmp');
const LIMIT = 1_000_000;

/** Pixel (x, y) of a decoded BMP as RGBA. */
function rgba(bmp: { width: number; channels: number; data: Buffer }, x: number, y: number): number[] {
  const at = (y * bmp.width + x) * bmp.channels;
  const px = [...bmp.data.subarray(at, at + bmp.channels)];
  if (bmp.channels === 1) return [px[0]!, px[0]!, px[0]!, 255];
  return bmp.channels === 3 ? [...px, 255] : px;
}

function kindOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return error instanceof ImageEngineError ? error.kind : `not an ImageEngineError: ${String(error)}`;
  }
  return 'no error';
}

describe('BMP decoder against ImageMagick-written files', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.bmp') && f !== 'rle8.bmp');

  it.each(files)('%s decodes to the pixels ImageMagick reads', async (name) => {
    const bmp = decodeBmp(readFileSync(path.join(FIXTURES, name)), LIMIT);
    const ref = await sharp(path.join(FIXTURES, `ref-${name.replace('.bmp', '.png')}`))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([bmp.width, bmp.height]).toEqual([ref.info.width, ref.info.height]);
    const tolerance = name.startsWith('rgb5') ? 1 : 0;
    let worst = 0;
    for (let y = 0; y < bmp.height; y++) {
      for (let x = 0; x < bmp.width; x++) {
        const got = rgba(bmp, x, y);
        for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs(got[c]! - ref.data[(y * bmp.width + x) * 4 + c]!));
      }
    }
    expect(worst).toBeLessThanOrEqual(tolerance);
  });

  it('keeps one channel for a grey palette, alpha only where the file has it, and the resolution', () => {
    const decode = (name: string) => decodeBmp(readFileSync(path.join(FIXTURES, name)), LIMIT);
    expect(decode('grey8.bmp').channels).toBe(1);
    expect(decode('mono1.bmp').channels).toBe(1);
    expect(decode('pal8.bmp').channels).toBe(3);
    expect(decode('argb32.bmp').channels).toBe(4);
    expect(decode('rgb24.bmp').xDpi).toBeCloseTo(300, 0);
    expect(decode('os2-core.bmp').xDpi).toBe(0);
  });

  it('refuses RLE as unsupported', () => {
    expect(kindOf(() => decodeBmp(readFileSync(path.join(FIXTURES, 'rle8.bmp')), LIMIT))).toBe('unsupported');
  });

  it('reads the same from a file, a few MB of rows at a time', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-bmp-'));
    // 2,000 × 1,200 at 24 bpp is 7.2 MB: more than one read.
    const big = writeBmp({ width: 2000, height: 1200, bitsPerPixel: 24, value: (x, y) => ((x & 0xff) << 16) | ((y & 0xff) << 8) | 0x40 });
    writeFileSync(path.join(dir, 'big.bmp'), big);
    const fromFile = await decodeBmpFile(path.join(dir, 'big.bmp'), 10_000_000);
    expect(fromFile.data.equals(decodeBmp(big, 10_000_000).data)).toBe(true);
    expect(rgba(fromFile, 1999, 1199)).toEqual([1999 & 0xff, 1199 & 0xff, 0x40, 255]);
  });
});

describe('BMP decoder on variants written by hand', () => {
  const red = 0xff0000;
  const blue = 0x0000ff;
  /** Top row red, the rest blue: shows whether rows come out in the right order. */
  const topRed = (_x: number, y: number) => (y === 0 ? red : blue);

  it('reads bottom-up and top-down rows', () => {
    for (const topDown of [false, true]) {
      const bmp = decodeBmp(writeBmp({ width: 3, height: 2, bitsPerPixel: 24, topDown, value: topRed }), LIMIT);
      expect(rgba(bmp, 0, 0)).toEqual([255, 0, 0, 255]);
      expect(rgba(bmp, 2, 1)).toEqual([0, 0, 255, 255]);
    }
  });

  it('ignores the fourth byte of 32-bit BI_RGB (it is not alpha)', () => {
    const bmp = decodeBmp(writeBmp({ width: 2, height: 2, bitsPerPixel: 32, value: () => 0x12345678 }), LIMIT);
    expect(bmp.channels).toBe(3);
    expect(rgba(bmp, 1, 1)).toEqual([0x34, 0x56, 0x78, 255]);
  });

  it('reads BI_ALPHABITFIELDS with alpha, and drops an alpha channel that is all zero', () => {
    const masks = { red: 0x00ff0000, green: 0x0000ff00, blue: 0x000000ff, alpha: 0xff000000 };
    const withAlpha = decodeBmp(writeBmp({ width: 2, height: 1, bitsPerPixel: 32, compression: 6, masks, value: (x) => (x === 0 ? 0x80ff0000 : 0x000000ff) }), LIMIT);
    expect(withAlpha.channels).toBe(4);
    expect(rgba(withAlpha, 0, 0)).toEqual([255, 0, 0, 0x80]);
    expect(rgba(withAlpha, 1, 0)).toEqual([0, 0, 255, 0]);

    const zeroAlpha = decodeBmp(writeBmp({ width: 2, height: 1, bitsPerPixel: 32, headerSize: 124, compression: 3, masks, value: () => 0x0000ff00 }), LIMIT);
    expect(zeroAlpha.channels).toBe(3);
    expect(rgba(zeroAlpha, 1, 0)).toEqual([0, 255, 0, 255]);
  });

  it('reads 16-bit BI_RGB as 5-5-5 and 16-bit bit fields as given', () => {
    const rgb555 = decodeBmp(writeBmp({ width: 1, height: 1, bitsPerPixel: 16, value: () => (31 << 10) | (16 << 5) | 0 }), LIMIT);
    expect(rgba(rgb555, 0, 0)).toEqual([255, 132, 0, 255]);
    const rgb565 = decodeBmp(writeBmp({ width: 1, height: 1, bitsPerPixel: 16, compression: 3, masks: { red: 0xf800, green: 0x07e0, blue: 0x001f }, value: () => (0 << 11) | (63 << 5) | 31 }), LIMIT);
    expect(rgba(rgb565, 0, 0)).toEqual([0, 255, 255, 255]);
  });

  it('paints palette indices past a short palette black instead of reading out of bounds', () => {
    const bmp = decodeBmp(writeBmp({ width: 2, height: 1, bitsPerPixel: 8, palette: [[10, 20, 30]], value: (x) => (x === 0 ? 0 : 200) }), LIMIT);
    expect(rgba(bmp, 0, 0)).toEqual([10, 20, 30, 255]);
    expect(rgba(bmp, 1, 0)).toEqual([0, 0, 0, 255]);
  });

  it('checks the pixel limit from the header, before allocating anything', () => {
    // The header claims 100,000 × 100,000 pixels; the file is 60 bytes.
    const header = writeBmp({ width: 1, height: 1, bitsPerPixel: 24, value: () => 0 });
    header.writeInt32LE(100_000, 18);
    header.writeInt32LE(100_000, 22);
    expect(kindOf(() => decodeBmp(header, 268_402_689))).toBe('tooLarge');
  });

  it('refuses damaged files as unreadable', () => {
    const good = writeBmp({ width: 10, height: 10, bitsPerPixel: 24, value: () => 0 });
    expect(kindOf(() => decodeBmp(good.subarray(0, good.length - 100), LIMIT))).toBe('unreadable');
    expect(kindOf(() => decodeBmp(good.subarray(0, 20), LIMIT))).toBe('unreadable');
    const zeroWidth = Buffer.from(good);
    zeroWidth.writeInt32LE(0, 18);
    expect(kindOf(() => decodeBmp(zeroWidth, LIMIT))).toBe('unreadable');
    const badMask = writeBmp({ width: 1, height: 1, bitsPerPixel: 32, compression: 3, masks: { red: 0xf0f0, green: 0xff00, blue: 0xff }, value: () => 0 });
    expect(kindOf(() => decodeBmp(badMask, LIMIT))).toBe('unreadable');
    const rle = writeBmp({ width: 1, height: 1, bitsPerPixel: 8, compression: 1, palette: [[0, 0, 0]], value: () => 0 });
    expect(kindOf(() => decodeBmp(rle, LIMIT))).toBe('unsupported');
    const deep = Buffer.from(good);
    deep.writeUInt16LE(64, 28);
    expect(kindOf(() => decodeBmp(deep, LIMIT))).toBe('unsupported');
  });
});
