import type { ReadAt } from './byte-source.js';
import { dpiFromMetric } from './metric-dpi.js';

/**
 * PNG chunk walking for two jobs: the resolution (pHYs) of an input PNG, and taking sharp's PNG output
 * apart so its compressed data goes into the PDF as it is. A non-interlaced PNG's concatenated IDAT
 * data *is* a valid PDF FlateDecode stream with PNG predictors (/Predictor 15), so lossless images
 * are compressed once, by libvips, and never pass through JavaScript pixel by pixel.
 */

export interface PngStreamParts {
  width: number;
  height: number;
  bitsPerComponent: number;
  /** 1 (grey) or 3 (RGB). */
  colors: 1 | 3;
  /** The IDAT payloads, in order: together the zlib stream. */
  chunks: Buffer[];
  length: number;
}

const SIGNATURE_BYTES = 8;
/** Chunks walked before IDAT when looking for pHYs; text chunks rarely number more than a few. */
const MAX_CHUNKS = 1000;

/** The pHYs density in dpi when its unit is the metre; undefined when absent or aspect-ratio only. */
export async function readPngDpi(read: ReadAt): Promise<{ x: number; y: number } | undefined> {
  let position = SIGNATURE_BYTES;
  for (let n = 0; n < MAX_CHUNKS; n++) {
    const head = await read(position, 8);
    if (head.length < 8) return undefined;
    const length = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    if (type === 'IDAT' || type === 'IEND') return undefined; // pHYs must come before the image data
    if (type === 'pHYs' && length === 9) {
      const data = await read(position + 8, 9);
      if (data.length < 9 || data[8] !== 1) return undefined;
      const x = dpiFromMetric(data.readUInt32BE(0));
      const y = dpiFromMetric(data.readUInt32BE(4));
      return x > 0 && y > 0 ? { x, y } : undefined;
    }
    position += 12 + length;
  }
  return undefined;
}

/**
 * Splits a PNG that sharp wrote into what a PDF image stream needs. Only the shapes we ask sharp for
 * are accepted (grey or RGB, no alpha, not interlaced); anything else is a programming error.
 */
export function splitPngForPdf(png: Buffer): PngStreamParts {
  let position = SIGNATURE_BYTES;
  let header: Omit<PngStreamParts, 'chunks' | 'length'> | undefined;
  const chunks: Buffer[] = [];
  let length = 0;
  while (position + 12 <= png.length) {
    const size = png.readUInt32BE(position);
    const type = png.toString('latin1', position + 4, position + 8);
    const data = png.subarray(position + 8, position + 8 + size);
    if (type === 'IHDR') {
      const colorType = data[9];
      if ((colorType !== 0 && colorType !== 2) || data[12] !== 0) throw new Error(`Unexpected PNG layout from sharp: colour type ${colorType}, interlace ${data[12]}`);
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bitsPerComponent: data[8]!, colors: colorType === 0 ? 1 : 3 };
    } else if (type === 'IDAT') {
      chunks.push(data);
      length += data.length;
    } else if (type === 'IEND') break;
    position += 12 + size;
  }
  if (!header || chunks.length === 0) throw new Error('Unexpected PNG from sharp: no IHDR or IDAT');
  return { ...header, chunks, length };
}
