import { writeFile } from 'node:fs/promises';
import { loadSharp } from '../image/load-sharp.js';
import { toBilevel, type BlackAndWhiteQuality } from './bilevel.js';
import { encodeBmp } from './bmp.js';
import { bilevelTiff } from './ccitt.js';
import { PopplerError } from './errors.js';
import { readPnm, type Pixels } from './pnm.js';

/**
 * Turns a rendered page (pdftoppm's PPM, or PGM for black and white) into the requested format:
 * PNG, JPEG, GIF and TIFF are written by libvips (sharp), BMP by `encodeBmp` and the CCITT RLE and
 * Group 3 TIFF compressions by `bilevelTiff`, which libvips cannot write.
 */

export type TiffCompression = 'none' | 'rle' | 'deflate' | 'group3' | 'group4' | 'jpeg' | 'lzw' | 'packbits' | 'zlib';

/** Compressions that need a black-and-white image (CCITT fax coding). */
export const BILEVEL_COMPRESSIONS: ReadonlySet<TiffCompression> = new Set(['rle', 'group3', 'group4']);

export type PageEncoding =
  | { format: 'png' }
  | { format: 'gif' }
  | { format: 'bmp' }
  | { format: 'jpeg'; quality: number; sizeOptimization?: { maxRetries: number; maxSize: number; stepSize: number } }
  | { format: 'tiff'; compression: TiffCompression; quality: number; blackAndWhite: BlackAndWhiteQuality };

export async function encodePage(rendered: string, output: string, encoding: PageEncoding, dpi: number): Promise<void> {
  const pixels = await readPnm(rendered);
  const sharp = await loadSharp();
  const input = (image: Pixels = pixels) => sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels }, limitInputPixels: false });
  try {
    switch (encoding.format) {
      case 'png':
        await input().withMetadata({ density: dpi }).png({ compressionLevel: 6 }).toFile(output);
        return;
      case 'gif':
        await input().gif().toFile(output);
        return;
      case 'bmp': {
        const rgb = pixels.channels === 3 ? pixels.data : await input().toColourspace('srgb').raw().toBuffer();
        await writeFile(output, encodeBmp(rgb, pixels.width, pixels.height, dpi));
        return;
      }
      case 'jpeg': {
        // Without size optimisation one encoding; with it, lower quality by stepSize while the file
        // is larger than maxSize, at most maxRetries times (the last attempt is kept either way).
        let quality = clampQuality(encoding.quality);
        let data = await input().jpeg({ quality }).withMetadata({ density: dpi }).toBuffer();
        const optimise = encoding.sizeOptimization;
        if (optimise) {
          for (let retry = 0; retry < optimise.maxRetries && data.length > optimise.maxSize && quality > 1 && optimise.stepSize > 0; retry++) {
            quality = clampQuality(quality - optimise.stepSize);
            data = await input().jpeg({ quality }).withMetadata({ density: dpi }).toBuffer();
          }
        }
        await writeFile(output, data);
        return;
      }
      case 'tiff': {
        const resolution = { xres: dpi / 25.4, yres: dpi / 25.4, resolutionUnit: 'inch' as const };
        if (BILEVEL_COMPRESSIONS.has(encoding.compression)) {
          const gray = pixels.channels === 1 ? pixels.data : await input().toColourspace('b-w').raw().toBuffer();
          const bilevel = toBilevel(gray, pixels.width, pixels.height, encoding.blackAndWhite);
          if (encoding.compression === 'rle' || encoding.compression === 'group3') {
            // Modified Huffman coding, which libvips does not write.
            await writeFile(output, bilevelTiff(bilevel, pixels.width, pixels.height, encoding.compression, dpi));
            return;
          }
          await input({ data: Buffer.from(bilevel.buffer, bilevel.byteOffset, bilevel.byteLength), width: pixels.width, height: pixels.height, channels: 1 })
            .toColourspace('b-w')
            .tiff({ compression: 'ccittfax4', bitdepth: 1, ...resolution })
            .toFile(output);
          return;
        }
        const compression = encoding.compression === 'zlib' ? 'deflate' : encoding.compression;
        await input()
          .tiff({ compression: compression as 'none' | 'deflate' | 'jpeg' | 'lzw' | 'packbits', quality: clampQuality(encoding.quality), ...resolution })
          .toFile(output);
        return;
      }
    }
  } catch (error) {
    if (error instanceof PopplerError) throw error;
    throw new PopplerError('failed', `The page image could not be encoded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, { cause: error });
  }
}

/** libjpeg takes 1..100; the reference allows 0, which is the lowest quality. */
function clampQuality(quality: number): number {
  return Math.min(100, Math.max(1, Math.round(quality)));
}
