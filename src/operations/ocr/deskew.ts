import { loadSharp } from '../../engines/image/load-sharp.js';

/**
 * `optimization.deskew`: a projection-profile estimate of how far the text lines of a page image are
 * turned, and the image turned back, for Tesseract only (the user's page keeps its image; the text
 * layer is turned to match it, text-layer.ts). Measured (docs/ocr.md "Deskew, measured"):
 * Tesseract 5.3 alone reads an A4 page turned 3° or 5° clockwise as an empty page.
 *
 * The estimate: the ink pixels of the image at half resolution; for each candidate angle a, the
 * pixels are binned by y − x·tan a (the row they lie on if the lines rise by a); aligned lines
 * give the spikiest histogram, scored as the sum of squared bin counts. 0.5° steps over ±MAX, then
 * 0.05° steps around the best.
 */

/** The largest skew searched for, in degrees: scanners and phone photos of pages stay well within. */
export const MAX_SKEW = 10;
/** Below this the image is left as it is: Tesseract reads such pages as well, and a turn blurs. */
export const MIN_CORRECTION = 0.2;
/** At most this many ink pixels are scored (a regular sample beyond). */
const MAX_POINTS = 80_000;

/** Degrees the text lines of `image` are turned, clockwise as seen positive; 0 without text. */
export async function estimateSkew(image: string): Promise<number> {
  const sharp = await loadSharp();
  const meta = await sharp(image, { limitInputPixels: 268_402_689 }).metadata();
  const width = Math.max(1, Math.round((meta.width ?? 2) / 2));
  const { data, info } = await sharp(image, { limitInputPixels: 268_402_689 }).grayscale().resize({ width }).raw().toBuffer({ resolveWithObject: true });
  const xs: number[] = [];
  const ys: number[] = [];
  let ink = 0;
  for (let i = 0; i < data.length; i++) if (data[i]! < 128) ink++;
  const stride = Math.max(1, Math.ceil(ink / MAX_POINTS));
  let seen = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (data[y * info.width + x]! < 128 && seen++ % stride === 0) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  if (xs.length < 100) return 0;
  const offset = Math.ceil(info.width * Math.tan((MAX_SKEW * Math.PI) / 180)) + 1;
  const bins = new Float64Array(info.height + 2 * offset + 2);
  const score = (degrees: number): number => {
    const slope = Math.tan((degrees * Math.PI) / 180);
    bins.fill(0);
    for (let i = 0; i < xs.length; i++) bins[Math.round(ys[i]! - xs[i]! * slope) + offset]! += 1;
    let sum = 0;
    for (const count of bins) sum += count * count;
    return sum;
  };
  // The scoring runs on the server's event loop: it yields after each angle so that other requests
  // are served in between (~1 ms an angle on an idle core).
  const best = async (from: number, to: number, step: number): Promise<number> => {
    let angle = 0;
    let top = -1;
    for (let a = from; a <= to + 1e-9; a += step) {
      await new Promise((resolve) => setImmediate(resolve));
      const s = score(a);
      if (s > top) {
        top = s;
        angle = a;
      }
    }
    return angle;
  };
  const coarse = await best(-MAX_SKEW, MAX_SKEW, 0.5);
  return Math.round((await best(coarse - 0.5, coarse + 0.5, 0.05)) * 100) / 100;
}

/**
 * Writes `input` turned back by its estimated skew to `output` (PNG, white corners, the canvas grown
 * to hold the turned page) and answers the angle corrected (clockwise as seen); 0 when the image was
 * straight enough: then `output` is not written.
 */
export async function deskew(input: string, output: string): Promise<number> {
  const angle = await estimateSkew(input);
  if (Math.abs(angle) < MIN_CORRECTION) return 0;
  const sharp = await loadSharp();
  await sharp(input, { limitInputPixels: 268_402_689 }).grayscale().rotate(-angle, { background: '#ffffff' }).png({ compressionLevel: 1 }).toFile(output);
  return angle;
}
