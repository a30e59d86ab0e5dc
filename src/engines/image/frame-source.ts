import { AnimationBatches } from './animation-batches.js';
import { decodeBmpFile } from './bmp-decoder.js';
import type { DecodedBmp } from './bmp-decoder.js';
import { withFileSource } from './byte-source.js';
import { ImageEngineError, fromSharpError } from './errors.js';
import { readJpegHeader } from './jpeg-header.js';
import type { JpegHeader } from './jpeg-header.js';
import { decodeOptions, loadSharp } from './load-sharp.js';
import type { Sharp, SharpFactory } from './load-sharp.js';
import { readPngDpi } from './png-chunks.js';
import { sniffImageFile } from './sniff.js';
import type { ImageFormat } from './sniff.js';
import { readTiffDpi } from './tiff-resolution.js';

/**
 * An input image as a list of frames (pages of a TIFF, frames of an animated GIF or WebP; one for
 * the rest): header facts per frame, and a fresh sharp pipeline per frame on request. Pixels are
 * decoded only when the encoder pulls them through the pipeline, one frame at a time, except that
 * consecutive frames of an animation are decoded together (see animation-batches.ts).
 */

export interface FrameInfo {
  /** Stored pixel size, before EXIF orientation. */
  width: number;
  height: number;
  /** EXIF orientation 1-8 (1 when absent). */
  orientation: number;
  /** Stored resolution, before orientation; undefined when the file does not state one. */
  dpi: { x: number; y: number } | undefined;
  hasAlpha: boolean;
  /** Grey (with or without alpha): kept as one channel instead of tripled to RGB. */
  grey: boolean;
  /** The embedded ICC profile, if any. */
  icc: Buffer | undefined;
  /** The JPEG marker segments, for JPEG input. */
  jpeg: JpegHeader | undefined;
}

export interface ImageSource {
  readonly file: string;
  readonly format: ImageFormat;
  readonly frameCount: number;
  /** Header facts of frame `index` (0-based); throws `tooLarge` above the pixel limit. */
  frame(index: number): Promise<FrameInfo>;
  /** A new pipeline decoding frame `index`, EXIF orientation applied. */
  pipeline(index: number): Promise<Sharp>;
  readonly sharp: SharpFactory;
}

const SUPPORTED = 'a PNG, JPEG, GIF, BMP, TIFF or WebP image';

export async function openImageSource(file: string, maxPixels: number): Promise<ImageSource> {
  const format = await sniffImageFile(file);
  if (!format) throw new ImageEngineError('unreadable', `The file is not ${SUPPORTED}.`);
  const sharp = await loadSharp();
  return format === 'bmp' ? openBmp(file, maxPixels, sharp) : openWithSharp(file, format, maxPixels, sharp);
}

/** The number of frames, from headers only. */
export async function countFrames(file: string): Promise<number> {
  const format = await sniffImageFile(file);
  if (!format) throw new ImageEngineError('unreadable', `The file is not ${SUPPORTED}.`);
  if (format === 'bmp') return 1;
  const sharp = await loadSharp();
  try {
    const meta = await sharp(file, decodeOptions(0, { pages: 1 })).metadata();
    return Math.max(1, meta.pages ?? 1);
  } catch (error) {
    throw fromSharpError(error, file);
  }
}

async function openWithSharp(file: string, format: ImageFormat, maxPixels: number, sharp: SharpFactory): Promise<ImageSource> {
  const options = (index: number) => decodeOptions(maxPixels, { page: index, pages: 1 });
  let first;
  try {
    first = await sharp(file, options(0)).metadata();
  } catch (error) {
    throw fromSharpError(error, file);
  }
  const frameCount = Math.max(1, first.pages ?? 1);
  const jpeg = format === 'jpeg' ? await withFileSource(file, (read) => readJpegHeader(read)) : undefined;
  // Raw batches carry no EXIF: an animation with an orientation tag (unheard of) goes frame by frame.
  const animation =
    (format === 'gif' || format === 'webp') && frameCount > 1 && (first.orientation ?? 1) === 1 && first.width * (first.pageHeight ?? first.height) <= maxPixels
      ? new AnimationBatches(sharp, file, frameCount, first.width, first.pageHeight ?? first.height)
      : undefined;

  return {
    file,
    format,
    frameCount,
    sharp,
    async frame(index) {
      let meta;
      try {
        meta = await sharp(file, options(index)).metadata();
      } catch (error) {
        throw fromSharpError(error, file);
      }
      const { width, height } = meta;
      checkPixels(width, height, maxPixels);
      return {
        width,
        height,
        orientation: meta.orientation && meta.orientation >= 1 && meta.orientation <= 8 ? meta.orientation : 1,
        dpi: credible(await ownDpi(file, format, index, jpeg)) ?? credible(square(meta.density)),
        hasAlpha: meta.hasAlpha,
        grey: meta.space === 'b-w' || meta.space === 'grey16',
        icc: meta.icc,
        jpeg,
      };
    },
    pipeline: async (index) => (animation ? animation.pipeline(index) : sharp(file, options(index)).autoOrient()),
  };
}

async function openBmp(file: string, maxPixels: number, sharp: SharpFactory): Promise<ImageSource> {
  // A BMP has one frame, decoded here once: the raw pixels are the frame's pipeline input.
  let bmp: DecodedBmp | undefined;
  const decoded = async () => (bmp ??= await decodeBmpFile(file, maxPixels));
  await decoded();
  return {
    file,
    format: 'bmp',
    frameCount: 1,
    sharp,
    async frame() {
      const { width, height, channels, xDpi, yDpi } = await decoded();
      return { width, height, orientation: 1, dpi: credible({ x: xDpi, y: yDpi }), hasAlpha: channels === 4, grey: channels === 1, icc: undefined, jpeg: undefined };
    },
    async pipeline() {
      if (!bmp) throw new Error('BMP not decoded');
      const { data, width, height, channels } = bmp;
      return sharp(data, { ...decodeOptions(maxPixels), raw: { width, height, channels } });
    },
  };
}

/**
 * The resolution as the format's own header states it, x and y separately (sharp reports only x):
 * JFIF for JPEG, pHYs for PNG, the page's IFD for TIFF. Undefined sends the caller to sharp's density.
 */
async function ownDpi(file: string, format: ImageFormat, index: number, jpeg: JpegHeader | undefined): Promise<{ x: number; y: number } | undefined> {
  if (format === 'jpeg') return jpeg?.jfifDpi;
  if (format === 'png') return withFileSource(file, (read) => readPngDpi(read));
  if (format === 'tiff') return withFileSource(file, (read) => readTiffDpi(read, index));
  return undefined;
}

/**
 * libvips writes exactly 1 pixel/mm (25.4 dpi) into PNG and TIFF files when it knows no resolution, so
 * like sharp (which reports no density up to 1 px/mm) we take 25.4 dpi and below as "not stated": no
 * real scan or photo is that coarse, and a 4000-pixel image would otherwise become a 4-metre page.
 */
const MIN_CREDIBLE_DPI = 25.41;

function credible(dpi: { x: number; y: number } | undefined): { x: number; y: number } | undefined {
  return dpi && Number.isFinite(dpi.x) && Number.isFinite(dpi.y) && dpi.x >= MIN_CREDIBLE_DPI && dpi.y >= MIN_CREDIBLE_DPI ? dpi : undefined;
}

function square(density: number | undefined): { x: number; y: number } | undefined {
  return density && density > 0 ? { x: density, y: density } : undefined;
}

function checkPixels(width: number, height: number, maxPixels: number): void {
  if (maxPixels > 0 && width * height > maxPixels) {
    throw new ImageEngineError('tooLarge', `The image has ${width}×${height} pixels, more than the limit of ${maxPixels}.`);
  }
}
