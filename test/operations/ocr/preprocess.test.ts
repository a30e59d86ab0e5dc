import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../../helpers/pdf-tools.js';
import { withDefaults } from '../../../src/core/schema-defaults.js';
import { Ocr } from '../../../src/operations/ocr/ocr.schema.js';
import { preprocess } from '../../../src/operations/ocr/preprocess.js';

/**
 * The `optimization` filters on an image of known pixels, the result read back with sharp's own
 * statistics (libvips), not with the code under test.
 */

const scratch = scratchDir('ocr-preprocess');
afterAll(() => scratch.remove());

/** A 1-px checkerboard: the finest dither pattern (50 % grey drawn as black and white dots). */
async function checkerboard(file: string, size = 64): Promise<string> {
  const pixels = Buffer.alloc(size * size);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) pixels[y * size + x] = (x + y) % 2 === 0 ? 0 : 255;
  await sharp(pixels, { raw: { width: size, height: size, channels: 1 } })
    .png()
    .toFile(file);
  return file;
}

/** `optimization` with every filter off, then `changes`. */
function optimization(changes: Record<string, unknown>) {
  const options = withDefaults(Ocr, { optimization: { despeckle: false, edgeAccentuation: 'off', medianFilter: 'off', noiseReduction: 'off', sharpen: 'off', ...changes } }) as { optimization: never };
  return options.optimization;
}

describe('ocr optimization (preprocess)', () => {
  it('reduceDithering melts a 1-px dither pattern into even grey; without it the dots stay black and white', async () => {
    const input = await checkerboard(scratch.file('dither.png'));
    const on = scratch.file('on.png');
    const off = scratch.file('off.png');
    await preprocess(input, on, optimization({ reduceDithering: true }));
    await preprocess(input, off, optimization({ reduceDithering: false }));
    const [onStats] = (await sharp(on).stats()).channels;
    const [offStats] = (await sharp(off).stats()).channels;
    expect(offStats!.stdev).toBeGreaterThan(120);
    expect(onStats!.stdev).toBeLessThan(20);
    expect(onStats!.mean).toBeGreaterThan(110);
    expect(onStats!.mean).toBeLessThan(145);
  });
});
