import { open, rm, writeFile } from 'node:fs/promises';
import { PDFName, type PDFContext, type PDFRef } from '@cantoo/pdf-lib';
import { encodeFrame } from '../../image/frame-encoder.js';
import { openImageSource } from '../../image/frame-source.js';
import type { PdfImage, StreamBytes } from '../../image/pdf-image-writer.js';

export interface EmbeddedImage {
  ref: PDFRef;
  /** Natural size in points: pixels at the resolution the file states (72 dpi when it states none). */
  width: number;
  height: number;
}

/** Pixels an image given inline may have (the image engine's default limit). */
const MAX_PIXELS = 268_402_689;

/**
 * An image given as bytes (PNG, JPEG, GIF, BMP, TIFF, WebP; the first frame) as an image XObject,
 * encoded by the image engine: JPEGs go in as they are, everything else losslessly, alpha as a soft
 * mask, EXIF orientation applied. Failures are the image engine's (`unreadable` → -106).
 */
export async function embedImage(context: PDFContext, bytes: Buffer, scratchPath: string): Promise<EmbeddedImage> {
  await writeFile(scratchPath, bytes, { mode: 0o600 });
  try {
    const source = await openImageSource(scratchPath, MAX_PIXELS);
    const info = await source.frame(0);
    const turned = info.orientation >= 5;
    const pixelWidth = turned ? info.height : info.width;
    const pixelHeight = turned ? info.width : info.height;
    const image = await encodeFrame({ source, index: 0, info, pixelWidth, pixelHeight, jpegQuality: 90, maxPixels: MAX_PIXELS });
    const dpiX = (turned ? info.dpi?.y : info.dpi?.x) ?? 72;
    const dpiY = (turned ? info.dpi?.x : info.dpi?.y) ?? 72;
    return { ref: await writeImage(context, image), width: (pixelWidth * 72) / dpiX, height: (pixelHeight * 72) / dpiY };
  } finally {
    await rm(scratchPath, { force: true });
  }
}

async function writeImage(context: PDFContext, image: PdfImage): Promise<PDFRef> {
  const softMask = image.softMask ? await writeImage(context, image.softMask) : undefined;
  let colorSpace: unknown = PDFName.of(image.colorSpace);
  if (image.iccProfile) {
    const components = image.colorSpace === 'DeviceGray' ? 1 : image.colorSpace === 'DeviceRGB' ? 3 : 4;
    const profile = context.register(context.flateStream(image.iccProfile, { N: components, Alternate: image.colorSpace }));
    colorSpace = context.obj([PDFName.of('ICCBased'), profile]);
  }
  const dict: Record<string, unknown> = {
    Type: 'XObject',
    Subtype: 'Image',
    Width: image.width,
    Height: image.height,
    ColorSpace: colorSpace,
    BitsPerComponent: image.bitsPerComponent,
    Filter: image.filter,
  };
  if (image.pngPredictors) {
    dict.DecodeParms = { Predictor: 15, Colors: image.colorSpace === 'DeviceGray' ? 1 : 3, BitsPerComponent: image.bitsPerComponent, Columns: image.width };
  }
  if (image.decode) dict.Decode = image.decode;
  if (softMask) dict.SMask = softMask;
  // The bytes are already encoded (DCT or Flate with predictors): stored as they are.
  const data = await readBytes(image.data);
  return context.register(context.stream(data, dict as Parameters<PDFContext['stream']>[1]));
}

async function readBytes(data: StreamBytes): Promise<Uint8Array> {
  if ('buffers' in data) return Buffer.concat(data.buffers, data.length);
  const handle = await open(data.file, 'r');
  try {
    const buffer = Buffer.alloc(data.length);
    await handle.read(buffer, 0, data.length, 0);
    return buffer;
  } finally {
    await handle.close();
  }
}
