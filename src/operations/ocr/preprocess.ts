import { loadSharp } from '../../engines/image/load-sharp.js';
import type { OcrOptions } from './ocr.schema.js';

/**
 * `optimization` (Operation_ImageOptimization): filters applied with sharp (libvips) to the image
 * Tesseract reads, never to the page the user sees. What each level does is in docs/ocr.md; this is
 * that table. Deskew is Tesseract's own (it straightens lines it finds), despeckle is the median.
 */
type Optimization = NonNullable<OcrOptions['optimization']>;
type Level = 'off' | 'value' | 'low' | 'medium' | 'high';

/** level → parameter of the filter; `value` takes the member's …Value. */
const MEDIAN: Record<Exclude<Level, 'value'>, number> = { off: 0, low: 3, medium: 5, high: 7 };
const SHARPEN_SIGMA: Record<Exclude<Level, 'value'>, number> = { off: 0, low: 0.5, medium: 1, high: 2 };
const GAMMA: Record<Exclude<Level, 'value'>, number> = { off: 0, low: 1.2, medium: 1.6, high: 2.2 };
/** reduceDithering's Gaussian blur, in pixels of the 300-dpi raster. */
export const DITHER_BLUR_SIGMA = 1;
const CONTRAST: Record<Exclude<Level, 'value'>, number> = { off: 0, low: 10, medium: 25, high: 50 };

function level<T extends number>(chosen: Level, table: Record<Exclude<Level, 'value'>, T>, value: number): number {
  return chosen === 'value' ? value : table[chosen];
}

/** Whether `optimization` asks for any filter at all. */
export function wantsPreprocessing(optimization: Optimization | undefined): optimization is Optimization {
  return optimization !== undefined;
}

/**
 * Writes the filtered grey image of `input` to `output` (PNG). Order: dithering blur, median
 * (despeckle, noise reduction), gamma, contrast, sharpen (edge accentuation): noise goes before
 * anything amplifies it.
 */
export async function preprocess(input: string, output: string, optimization: Optimization): Promise<void> {
  const sharp = await loadSharp();
  let image = sharp(input, { limitInputPixels: 268_402_689 }).grayscale();
  // reduceDithering: a dithered or half-toned scan draws grey as a pattern of black and white dots,
  // which Tesseract's binarisation keeps as speckle around and inside the letters. A Gaussian blur
  // of σ 1 px (at the 300-dpi raster: a dot pattern finer than ~3 px) melts the dots back into grey
  // before anything else runs; the strokes of 8-pt and larger text are wider than that.
  if (optimization.reduceDithering) image = image.blur(DITHER_BLUR_SIGMA);
  const median = Math.max(
    optimization.despeckle ? 3 : 0,
    level(optimization.medianFilter, MEDIAN, optimization.medianFilterValue),
    level(optimization.noiseReduction, MEDIAN, Math.round(optimization.noiseReductionValue) * 2 + 1),
  );
  // Odd sizes only; 1 is no filter.
  if (median >= 3) image = image.median(median % 2 === 1 ? median : median + 1);
  const gamma = level(optimization.gammaCorrection, GAMMA, optimization.gammaCorrectionValue);
  // sharp takes gamma 1.0-3.0.
  if (gamma >= 1) image = image.gamma(Math.min(3, gamma));
  const contrast = level(optimization.increaseContrast, CONTRAST, optimization.increaseContrastValue);
  if (contrast !== 0) {
    // A linear stretch around mid-grey: a = 1 + c/100, b chosen so 128 stays 128.
    const a = Math.max(0, 1 + contrast / 100);
    image = image.linear(a, 128 * (1 - a));
  }
  const sigma = Math.max(level(optimization.sharpen, SHARPEN_SIGMA, optimization.sharpenValue), level(optimization.edgeAccentuation, SHARPEN_SIGMA, optimization.edgeAccentuationValue / 100));
  if (sigma >= 0.3) image = image.sharpen({ sigma: Math.min(10, sigma) });
  await image.png({ compressionLevel: 1 }).toFile(output);
}
