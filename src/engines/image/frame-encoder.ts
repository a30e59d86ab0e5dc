import { bufferSource, withFileSource } from './byte-source.js';
import { fromSharpError } from './errors.js';
import type { FrameInfo, ImageSource } from './frame-source.js';
import { findJpegEnd, readJpegHeader } from './jpeg-header.js';
import type { JpegHeader } from './jpeg-header.js';
import { decodeOptions } from './load-sharp.js';
import type { Sharp } from './load-sharp.js';
import { splitPngForPdf } from './png-chunks.js';
import type { ColorSpace, PdfImage } from './pdf-image-writer.js';

/**
 * Turns one frame into a PDF image stream, choosing the cheapest faithful encoding:
 *
 * - a JPEG that needs no change goes in as its own bytes (DCTDecode), after a quick decode check;
 * - a JPEG that must change (EXIF orientation, down-sampling, 12-bit, arithmetic coding, CMYK without
 *   Adobe marker) is re-encoded as JPEG at `jpegQuality`: it was lossy already;
 * - everything else (PNG, GIF, BMP, TIFF, WebP) is lossless Flate, so it is not degraded; alpha
 *   becomes a soft mask.
 */

export interface FrameRequest {
  source: ImageSource;
  index: number;
  info: FrameInfo;
  /** The pixel size to embed, after orientation. */
  pixelWidth: number;
  pixelHeight: number;
  jpegQuality: number;
  maxPixels: number;
}

/** Baseline, extended sequential and progressive Huffman: what every PDF reader's DCTDecode handles. */
const PASSTHROUGH_FRAME_TYPES = new Set([0xc0, 0xc1, 0xc2]);

/**
 * Measured on 12-MP images: adaptive row filters make a photo's Flate stream 2-2.5× smaller than no
 * filter for about the same CPU at zlib level 3, while level 6 costs 2.5× the CPU for 4% less. (Text
 * scans come out ~15% larger than unfiltered level 6; photos are where the megabytes are.)
 */
const PNG_OPTIONS = { compressionLevel: 3, adaptiveFiltering: true } as const;

/** Largest ICC profile copied into the PDF; bigger ones are dropped (the image falls back to device colour). */
const MAX_ICC_BYTES = 4 << 20;

export async function encodeFrame(request: FrameRequest): Promise<PdfImage> {
  const { source, index, info } = request;
  const turned = info.orientation >= 5;
  const resize = request.pixelWidth !== (turned ? info.height : info.width) || request.pixelHeight !== (turned ? info.width : info.height);
  try {
    if (source.format === 'jpeg' && !resize && info.orientation === 1 && info.jpeg && passesThrough(info.jpeg, info)) {
      return await jpegAsIs(request, info.jpeg);
    }
    let pipeline = await source.pipeline(index);
    if (resize) pipeline = pipeline.resize(request.pixelWidth, request.pixelHeight, { fit: 'fill', kernel: 'lanczos3' });
    if (source.format === 'jpeg') return await reencodeJpeg(pipeline, info, request.jpegQuality);
    return info.hasAlpha ? await losslessWithAlpha(request, pipeline) : await lossless(pipeline, info.grey);
  } catch (error) {
    throw fromSharpError(error, source.file);
  }
}

function passesThrough(jpeg: JpegHeader, info: FrameInfo): boolean {
  return (
    PASSTHROUGH_FRAME_TYPES.has(jpeg.frameType) &&
    jpeg.precision === 8 &&
    jpeg.width === info.width &&
    jpeg.height === info.height &&
    // Four components only with the Adobe marker, whose inverted CMYK the /Decode array below undoes.
    (jpeg.components === 1 || jpeg.components === 3 || (jpeg.components === 4 && jpeg.adobeTransform !== undefined))
  );
}

async function jpegAsIs(request: FrameRequest, jpeg: JpegHeader): Promise<PdfImage> {
  const { source, info } = request;
  // The bytes are copied, not decoded, so decode once at 1/8 scale (libjpeg still reads every entropy-
  // coded block) to refuse a truncated or garbled file as the other paths would. ~40 ms for 12 MP.
  await source
    .sharp(source.file, decodeOptions(request.maxPixels))
    .resize({ width: Math.max(1, Math.floor(info.width / 8)), kernel: 'nearest' })
    .raw()
    .toBuffer();
  const end = await withFileSource(source.file, (read, size) => findJpegEnd(read, jpeg.scanOffset, size));
  return { ...dctImage(jpeg), iccProfile: matchingProfile(info.icc, jpeg.components), data: { file: source.file, length: end } };
}

async function reencodeJpeg(pipeline: Sharp, info: FrameInfo, quality: number): Promise<PdfImage> {
  // sharp converts CMYK and profiled input to sRGB here, so the result needs no profile.
  const data = await pipeline
    .toColourspace(info.grey ? 'b-w' : 'srgb')
    .jpeg({ quality })
    .toBuffer();
  const jpeg = await readJpegHeader(bufferSource(data));
  if (!jpeg) throw new Error('sharp wrote a JPEG whose header cannot be read');
  return { ...dctImage(jpeg), data: { buffers: [data], length: data.length } };
}

function dctImage(jpeg: JpegHeader): Omit<PdfImage, 'data'> {
  const colorSpace: ColorSpace = jpeg.components === 1 ? 'DeviceGray' : jpeg.components === 3 ? 'DeviceRGB' : 'DeviceCMYK';
  return {
    width: jpeg.width,
    height: jpeg.height,
    bitsPerComponent: 8,
    colorSpace,
    filter: 'DCTDecode',
    // Adobe CMYK JPEGs store inverted values (PDF 32000-1, 8.6.4.4 note; what Acrobat and pdf-lib assume).
    decode: colorSpace === 'DeviceCMYK' ? [1, 0, 1, 0, 1, 0, 1, 0] : undefined,
  };
}

/** An ICC profile is kept only when its colour space is the image's (the header says so at byte 16). */
function matchingProfile(icc: Buffer | undefined, components: number): Buffer | undefined {
  if (!icc || icc.length < 128 || icc.length > MAX_ICC_BYTES) return undefined;
  const space = icc.toString('latin1', 16, 20);
  return (components === 1 && space === 'GRAY') || (components === 3 && space === 'RGB ') || (components === 4 && space === 'CMYK') ? icc : undefined;
}

async function lossless(pipeline: Sharp, grey: boolean): Promise<PdfImage> {
  return flateImage(
    await pipeline
      .toColourspace(grey ? 'b-w' : 'srgb')
      .png(PNG_OPTIONS)
      .toBuffer(),
  );
}

/**
 * Colour and alpha become two images (PDF keeps alpha in a separate /SMask). The frame is decoded once
 * to raw RGBA, then each half is PNG-compressed by libvips; a fully opaque alpha channel is dropped.
 */
async function losslessWithAlpha(request: FrameRequest, pipeline: Sharp): Promise<PdfImage> {
  const { data, info } = await pipeline.toColourspace('srgb').ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: 4 as const } };
  const colour = await request.source
    .sharp(data, raw)
    .removeAlpha()
    .toColourspace(request.info.grey ? 'b-w' : 'srgb')
    .png(PNG_OPTIONS)
    .toBuffer();
  const image = flateImage(colour);
  if (opaque(data)) return image;
  const alpha = await request.source.sharp(data, raw).extractChannel(3).toColourspace('b-w').png(PNG_OPTIONS).toBuffer();
  return { ...image, softMask: flateImage(alpha) };
}

function flateImage(png: Buffer): PdfImage {
  const parts = splitPngForPdf(png);
  return {
    width: parts.width,
    height: parts.height,
    bitsPerComponent: parts.bitsPerComponent,
    colorSpace: parts.colors === 1 ? 'DeviceGray' : 'DeviceRGB',
    filter: 'FlateDecode',
    pngPredictors: true,
    data: { buffers: parts.chunks, length: parts.length },
  };
}

function opaque(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}
