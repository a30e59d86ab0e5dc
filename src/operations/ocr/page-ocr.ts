import { loadSharp } from '../../engines/image/load-sharp.js';
import { renderWithoutText } from '../../engines/tesseract/render-without-text.js';
import type { TesseractEngine } from '../../engines/tesseract/tesseract-engine.js';
import { runTool, type ToolLimits } from '../../engines/poppler/tool.js';
import type { Scratch } from '../transaction/scratch.js';
import type { OcrOptions } from './ocr.schema.js';
import { deskew } from './deskew.js';
import { preprocess, wantsPreprocessing } from './preprocess.js';
import { turnTextLayer } from './text-layer.js';

/** The resolution pages are rasterised at for Tesseract: its models are trained on ~300-dpi text. */
export const RASTER_DPI = 300;

/** `ocrMode` → Tesseract page-segmentation mode (docs/ocr.md). */
export const PSM: Record<OcrOptions['ocrMode'], number> = {
  // Fully automatic page segmentation (Tesseract's default): columns, blocks, paragraphs.
  pageSegments: 3,
  // One column of text of varying sizes.
  column: 4,
  // Sparse text: as much text as possible, in no particular order, no layout filtering.
  unfiltered: 11,
};

export interface PageOcr {
  page: number;
  /** Degrees clockwise the page was turned to be upright before recognition (normalizePageRotation). */
  rotated: number;
  /** Degrees (clockwise as seen) the page's lines were turned by, corrected for Tesseract (optimization.deskew); 0: none. */
  skew: number;
  files: Partial<Record<'pdf' | 'hocr' | 'txt', string>>;
}

/**
 * One page through the OCR: rasterise (pdftoppm, grey, 300 dpi, crop box; `withoutText`: the page
 * without its own text, render-without-text.ts),
 * orientation (OSD) when asked, pre-process and deskew when asked, recognise (the Tesseract pool). Pages of a
 * document run this in parallel: the poppler gate and the pool bound what runs at once.
 */
export async function ocrPage(
  file: string,
  target: { page: number; withoutText: boolean },
  options: OcrOptions,
  outputs: readonly ('pdf' | 'hocr' | 'txt')[],
  deps: { tesseract: TesseractEngine; limits: ToolLimits; scratch: Scratch; pageTimeoutMs: number },
): Promise<PageOcr> {
  const { page } = target;
  const base = deps.scratch.file('page').replace(/\.page$/, '');
  // PGM is the cheapest for Tesseract; sharp (orientation, filters) cannot read PNM, so those get PNG.
  const png = options.normalizePageRotation || wantsPreprocessing(options.optimization);
  let image = png ? `${base}.png` : `${base}.pgm`;
  if (target.withoutText) {
    await renderWithoutText(file, page, RASTER_DPI, image, png ? 'png' : 'pgm', Math.min(deps.limits.toolTimeoutMs, deps.limits.deadline - Date.now()));
  } else {
    const format = png ? ['-png'] : [];
    await runTool('pdftoppm', ['-q', '-cropbox', '-gray', ...format, '-r', String(RASTER_DPI), '-singlefile', '-f', String(page), '-l', String(page), file, base], deps.limits);
  }
  let rotated = 0;
  if (options.normalizePageRotation) {
    const found = await deps.tesseract.orientation(image, RASTER_DPI, { timeoutMs: deps.pageTimeoutMs });
    if (found.rotate !== 0 && found.confidence >= 1) {
      rotated = found.rotate;
      const turned = `${base}-upright.png`;
      const sharp = await loadSharp();
      await sharp(image, { limitInputPixels: 268_402_689 }).rotate(rotated).png({ compressionLevel: 1 }).toFile(turned);
      image = turned;
    }
  }
  let skew = 0;
  let size = { width: 0, height: 0 };
  if (wantsPreprocessing(options.optimization)) {
    const filtered = `${base}-filtered.png`;
    await preprocess(image, filtered, options.optimization);
    image = filtered;
    // Deskew after the filters: speckle would blur the line profile.
    if (options.optimization.deskew) {
      const straight = `${base}-straight.png`;
      const sharp = await loadSharp();
      const meta = await sharp(image, { limitInputPixels: 268_402_689 }).metadata();
      size = { width: ((meta.width ?? 0) * 72) / RASTER_DPI, height: ((meta.height ?? 0) * 72) / RASTER_DPI };
      skew = await deskew(image, straight);
      if (skew !== 0) image = straight;
    }
  }
  const result = await deps.tesseract.recognize(
    { image, outputBase: `${base}-ocr`, language: options.language, psm: PSM[options.ocrMode], dpi: RASTER_DPI, outputs },
    { timeoutMs: deps.pageTimeoutMs },
  );
  const files = { ...result.files };
  // The text layer of a deskewed image is turned back over the page's skewed words.
  if (skew !== 0 && files.pdf) {
    const turned = `${base}-layer.pdf`;
    await turnTextLayer(files.pdf, turned, skew, size.width, size.height);
    files.pdf = turned;
  }
  return { page, rotated, skew, files };
}
