import { rm } from 'node:fs/promises';
import { ImageEngineError } from './errors.js';
import { encodeFrame } from './frame-encoder.js';
import { countFrames, openImageSource } from './frame-source.js';
import { layoutFrame } from './page-layout.js';
import type { PageGeometry } from './page-layout.js';
import { PdfImageWriter } from './pdf-image-writer.js';

export { ImageEngineError } from './errors.js';
export type { ImageEngineErrorKind } from './errors.js';
export type { PageGeometry } from './page-layout.js';

/**
 * Images → PDF: PNG, JPEG, GIF, BMP, TIFF and WebP, one page per frame (pages of a multi-page TIFF,
 * frames of an animated GIF or WebP).
 */
export interface ImageToPdfOptions {
  /**
   * Page geometry in PDF points. When absent each page takes the image's own physical size: pixels ÷
   * resolution, the resolution read from the file (JFIF, pHYs, TIFF tags, EXIF, BMP header) with x and
   * y apart, so a 300-dpi scan comes out at its paper size and a 204×98-dpi fax page is not stretched.
   * An image that states no resolution is taken at 72 dpi (one pixel per point), the convention of
   * PDF and of most image-to-PDF tools. A natural size beyond 14,400 pt is scaled down to fit.
   */
  page?: PageGeometry;
  /** With `page`: true = scaled (up or down) to fit the printable area keeping its aspect ratio, centred; false = stretched over the printable area. */
  maintainAspectRatio: boolean;
  /** 1-based frame numbers to output, in this order (repeats allowed); absent = all frames. */
  frames?: number[];
  /** Down-sample (Lanczos) so that no image exceeds this resolution on its page, in dpi; 0/absent = keep. */
  maxDpi?: number;
  /** JPEG quality 1-100, used when a JPEG must be re-encoded (EXIF orientation, down-sampling, exotic JPEG). */
  jpegQuality: number;
  /** Largest frame in pixels (width × height); checked from headers before decoding. Default 268,402,689 (sharp's). */
  maxPixels?: number;
}

/** sharp's own default limit (0x3FFF × 0x3FFF). */
export const DEFAULT_MAX_PIXELS = 268_402_689;

/**
 * Writes a PDF with one page per selected frame to `outputPath` (directly: the caller moves it into
 * place). Each page is written to the file before the next frame is decoded, so memory holds one
 * decoded frame (or a batch of at most 16 MP of small animation frames) and one frame's compressed
 * data, whatever the page count. On failure the partial output is deleted.
 *
 * Throws `ImageEngineError` (`unreadable`, `unsupported`, `tooLarge`, `frameOutOfRange`,
 * `invalidOptions`); file-system errors pass through unchanged.
 */
export async function imageToPdf(inputPath: string, outputPath: string, options: ImageToPdfOptions): Promise<{ pages: number }> {
  checkOptions(options);
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  const source = await openImageSource(inputPath, maxPixels);
  const frames = selectFrames(options.frames, source.frameCount);

  const writer = await PdfImageWriter.create(outputPath);
  try {
    for (const frame of frames) {
      const info = await source.frame(frame - 1);
      // EXIF orientations 5-8 turn the image by 90°: width, height and the two resolutions swap.
      const turned = info.orientation >= 5;
      const dpi = info.dpi ?? { x: 72, y: 72 };
      const layout = layoutFrame({
        pixelWidth: turned ? info.height : info.width,
        pixelHeight: turned ? info.width : info.height,
        dpiX: turned ? dpi.y : dpi.x,
        dpiY: turned ? dpi.x : dpi.y,
        page: options.page,
        maintainAspectRatio: options.maintainAspectRatio,
        maxDpi: options.maxDpi ?? 0,
      });
      const image = await encodeFrame({ source, index: frame - 1, info, pixelWidth: layout.pixelWidth, pixelHeight: layout.pixelHeight, jpegQuality: options.jpegQuality, maxPixels });
      await writer.addPage(image, layout);
    }
    await writer.finish();
  } catch (error) {
    await writer.abort();
    await rm(outputPath, { force: true });
    throw error;
  }
  return { pages: frames.length };
}

/** The number of frames (pages) of an image, read from its headers. */
export async function imageFrameCount(inputPath: string): Promise<number> {
  return countFrames(inputPath);
}

function selectFrames(requested: number[] | undefined, count: number): number[] {
  if (requested === undefined) return Array.from({ length: count }, (_, i) => i + 1);
  if (requested.length === 0) throw new ImageEngineError('invalidOptions', 'No frame was selected.');
  for (const frame of requested) {
    if (!Number.isInteger(frame) || frame < 1 || frame > count) {
      throw new ImageEngineError('frameOutOfRange', `Frame ${frame} does not exist: the image has ${count} frame${count === 1 ? '' : 's'}.`);
    }
  }
  return requested;
}

function checkOptions(options: ImageToPdfOptions): void {
  const bad = (why: string) => new ImageEngineError('invalidOptions', why);
  if (!Number.isInteger(options.jpegQuality) || options.jpegQuality < 1 || options.jpegQuality > 100) throw bad(`jpegQuality must be an integer from 1 to 100, not ${options.jpegQuality}.`);
  if (options.maxDpi !== undefined && !(Number.isFinite(options.maxDpi) && options.maxDpi >= 0)) throw bad(`maxDpi must be 0 or positive, not ${options.maxDpi}.`);
  if (options.maxPixels !== undefined && !(Number.isInteger(options.maxPixels) && options.maxPixels > 0)) throw bad(`maxPixels must be a positive integer, not ${options.maxPixels}.`);
  const page = options.page;
  if (page) {
    const values = [page.width, page.height, page.marginTop, page.marginRight, page.marginBottom, page.marginLeft];
    if (!values.every(Number.isFinite) || page.width <= 0 || page.height <= 0 || values.slice(2).some((m) => m < 0)) {
      throw bad('The page needs a positive width and height and margins of 0 or more.');
    }
  }
}
