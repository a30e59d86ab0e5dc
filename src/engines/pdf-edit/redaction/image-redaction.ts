import { PDFArray, PDFBool, PDFDict, PDFName, PDFNumber, PDFRawStream, type PDFRef, type PDFStream, type PDFContext } from '@cantoo/pdf-lib';
import { decodeOptions, loadSharp } from '../../image/load-sharp.js';
import { overlapsStrictly, transformedBounds, type Rect } from './geometry.js';
import { apply, invert, type Matrix } from '../matrix.js';
import { arrayValue, get, N, nameValue, numberValue, numbersOf, resolve, streamValue } from '../pdf-objects.js';
import { decodeStream, deflate, StreamDecodeError } from './stream-codec.js';

/**
 * Image XObjects under redaction areas (`redactImages`). The pixels an area covers are overwritten
 * in the image data itself (and in its soft mask or stencil mask), on a copy made for this placement:
 * the same image may be drawn elsewhere, untouched. Covering boxes alone would leave the pixels in
 * the file for any image extractor.
 *
 * Samples are cleared in the decoded sample space, so it works for every colour space and bit depth
 * (1–16): the overwritten pixels carry one constant value, whatever it looks like (black in RGB and
 * grey, white in CMYK); the area's fill is painted over them anyway. Flate/LZW/RunLength/ASCII data is
 * rewritten as Flate; baseline JPEG (grey or RGB) is decoded and re-encoded as JPEG. JPEG 2000, JBIG2,
 * CCITT and CMYK JPEG images cannot be edited here: the page is rasterised instead (blacken.ts).
 */
export type ImageOutcome = { kind: 'keep' } | { kind: 'remove' } | { kind: 'replace'; ref: PDFRef } | { kind: 'unsupported'; reason: string };

interface PixelRect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Image space is the unit square, drawn with `ctm`; sample row 0 is at the top (v = 1). */
function pixelRects(ctm: Matrix, width: number, height: number, areas: readonly Rect[]): PixelRect[] | undefined {
  const inverse = invert(ctm);
  if (!inverse) return undefined;
  const out: PixelRect[] = [];
  for (const area of areas) {
    const corners = [apply(inverse, area.x0, area.y0), apply(inverse, area.x1, area.y0), apply(inverse, area.x0, area.y1), apply(inverse, area.x1, area.y1)];
    const us = corners.map(([u]) => u * width);
    const vs = corners.map(([, v]) => (1 - v) * height);
    // Whole pixels that the area touches at all: a partly covered pixel is cleared too (errs on the safe side).
    const x0 = Math.max(0, Math.floor(Math.min(...us) + 1e-6));
    const x1 = Math.min(width, Math.ceil(Math.max(...us) - 1e-6));
    const y0 = Math.max(0, Math.floor(Math.min(...vs) + 1e-6));
    const y1 = Math.min(height, Math.ceil(Math.max(...vs) - 1e-6));
    if (x1 > x0 && y1 > y0) out.push({ x0, y0, x1, y1 });
  }
  return out;
}

export async function redactImage(context: PDFContext, image: PDFStream, ctm: Matrix, areas: readonly Rect[]): Promise<ImageOutcome> {
  if (!overlapsStrictly(transformedBounds(ctm, 0, 0, 1, 1), areas)) return { kind: 'keep' };
  const dict = image.dict;
  const width = numberValue(context, dict.get(N('Width')));
  const height = numberValue(context, dict.get(N('Height')));
  if (!width || !height || width < 1 || height < 1) return { kind: 'remove' };
  const rects = pixelRects(ctm, width, height, areas);
  if (!rects || rects.length === 0) return { kind: 'keep' };
  if (rects.some((r) => r.x0 === 0 && r.y0 === 0 && r.x1 === width && r.y1 === height)) return { kind: 'remove' };
  try {
    const edited = await clearSamples(context, image, rects, 'image');
    const copy = edited.dict;
    for (const key of ['SMask', 'Mask'] as const) {
      const mask = streamValue(context, dict.get(N(key)));
      if (!mask) continue;
      const maskWidth = numberValue(context, mask.dict.get(N('Width'))) ?? width;
      const maskHeight = numberValue(context, mask.dict.get(N('Height'))) ?? height;
      const maskRects = pixelRects(ctm, maskWidth, maskHeight, areas) ?? [];
      // A stencil /Mask leaves pixels unpainted (see clearSamples); a soft mask makes them transparent.
      const maskEdited = await clearSamples(context, mask, maskRects, key === 'SMask' ? 'softMask' : 'image');
      copy.set(N(key), context.register(maskEdited));
    }
    return { kind: 'replace', ref: context.register(edited) };
  } catch (error) {
    if (error instanceof StreamDecodeError || error instanceof UnsupportedImage) return { kind: 'unsupported', reason: error.message };
    throw error;
  }
}

class UnsupportedImage extends Error {}

function componentsOf(context: PDFContext, colorSpace: unknown): number | undefined {
  const cs = resolve(context, colorSpace as never);
  if (cs instanceof PDFName) {
    const name = cs.decodeText();
    if (name === 'DeviceGray' || name === 'CalGray' || name === 'G') return 1;
    if (name === 'DeviceRGB' || name === 'CalRGB' || name === 'RGB' || name === 'Lab') return 3;
    if (name === 'DeviceCMYK' || name === 'CMYK') return 4;
    return undefined;
  }
  if (cs instanceof PDFArray) {
    const family = nameValue(context, cs.get(0));
    if (family === 'Indexed' || family === 'I' || family === 'Separation') return 1;
    if (family === 'CalGray') return 1;
    if (family === 'CalRGB' || family === 'Lab') return 3;
    if (family === 'ICCBased') {
      const profile = streamValue(context, cs.get(1));
      return numberValue(context, profile?.dict.get(N('N')));
    }
    if (family === 'DeviceN') return arrayValue(context, cs.get(1))?.size();
  }
  return undefined;
}

/**
 * A copy of `image` whose samples in `rects` are cleared: 0 for colour images and soft masks; the
 * "not painted" value for stencil masks (1 under the default Decode [0 1], 0 under [1 0]).
 */
async function clearSamples(context: PDFContext, image: PDFStream, rects: readonly PixelRect[], role: 'image' | 'softMask'): Promise<PDFRawStream> {
  const dict = image.dict;
  const width = numberValue(context, dict.get(N('Width'))) ?? 0;
  const height = numberValue(context, dict.get(N('Height'))) ?? 0;
  const isStencil = get(context, dict, 'ImageMask') === PDFBool.True;
  const decodeArray = numbersOf(context, dict.get(N('Decode')));
  const { data, remaining } = decodeStream(image, { allowImageCodecs: true });
  const copy = dict.clone(context);
  for (const key of ['Filter', 'DecodeParms', 'DP', 'DL', 'Length', 'Metadata', 'Alternates', 'OPI', 'SMask', 'Mask']) copy.delete(N(key));

  if (remaining.length === 0) {
    const bpc = isStencil ? 1 : (numberValue(context, dict.get(N('BitsPerComponent'))) ?? 8);
    const components = isStencil ? 1 : componentsOf(context, dict.get(N('ColorSpace')));
    if (components === undefined) throw new UnsupportedImage('an image in a colour space that cannot be edited');
    if (![1, 2, 4, 8, 16].includes(bpc)) throw new UnsupportedImage(`an image with ${bpc} bits per component`);
    const rowBytes = Math.ceil((width * components * bpc) / 8);
    const samples = new Uint8Array(rowBytes * height);
    samples.set(data.subarray(0, samples.length));
    const inverted = decodeArray?.[0] === 1 && decodeArray?.[1] === 0;
    clearRegion(samples, rowBytes, components * bpc, rects, role === 'image' && clearToOnes(context, dict, isStencil, components, inverted));
    const stream = PDFRawStream.of(copy, deflate(samples));
    copy.set(N('Filter'), N('FlateDecode'));
    return stream;
  }
  const codec = remaining[0]!.name;
  if (codec !== 'DCTDecode' || remaining.length > 1) throw new UnsupportedImage(`an image compressed with ${remaining.map((r) => r.name).join('+')}`);
  const sharp = await loadSharp();
  // CMYK (and YCCK) JPEGs would come back converted to sRGB; a /Decode array would no longer fit.
  const meta = await sharp(data, decodeOptions(width * height + 1))
    .metadata()
    .catch(() => undefined);
  if (!meta || (meta.channels !== 1 && meta.channels !== 3) || meta.space === 'cmyk' || decodeArray) {
    throw new UnsupportedImage(`a ${meta?.space === 'cmyk' || meta?.channels === 4 ? 'CMYK ' : ''}JPEG image that cannot be re-encoded as it was`);
  }
  const decoded = await sharp(data, decodeOptions(width * height + 1, { sequentialRead: false }))
    .raw()
    .toBuffer({ resolveWithObject: true })
    .catch((error: unknown) => {
      throw new UnsupportedImage(`a JPEG image that cannot be decoded (${(error as Error).message})`);
    });
  const { channels } = decoded.info;
  if ((channels !== 1 && channels !== 3) || decoded.info.width !== width || decoded.info.height !== height) {
    throw new UnsupportedImage(`a JPEG image with ${channels} channels`);
  }
  const pixels = new Uint8Array(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength);
  clearRegion(pixels, width * channels, channels * 8, rects, role === 'image');
  let encoder = sharp(Buffer.from(pixels), { raw: { width, height, channels } });
  if (channels === 1) encoder = encoder.toColourspace('b-w');
  const jpeg = await encoder.jpeg({ quality: 92, chromaSubsampling: '4:4:4' }).toBuffer();
  copy.set(N('Filter'), N('DCTDecode'));
  // The decoded samples are in the JPEG's own space: an ICC-based (or other) space with as many components stays.
  if (componentsOf(context, dict.get(N('ColorSpace'))) !== channels) copy.set(N('ColorSpace'), N(channels === 1 ? 'DeviceGray' : 'DeviceRGB'));
  copy.set(N('BitsPerComponent'), PDFNumber.of(8));
  return PDFRawStream.of(copy, new Uint8Array(jpeg));
}

/**
 * Which constant the cleared samples get. Stencil masks: the "not painted" value (1 under the default
 * Decode [0 1]). Grey and RGB images: all ones — white, so an area without fill colour looks empty;
 * CMYK (and anything else): 0, which is white in CMYK. Soft masks: 0, transparent.
 */
function clearToOnes(context: PDFContext, dict: PDFDict, isStencil: boolean, components: number, inverted: boolean): boolean {
  if (isStencil) return !inverted;
  if (components === 1 || components === 3) {
    const family = (() => {
      const cs = resolve(context, dict.get(N('ColorSpace')));
      return cs instanceof PDFName ? cs.decodeText() : cs instanceof PDFArray ? nameValue(context, cs.get(0)) : undefined;
    })();
    if (family === 'Indexed' || family === 'Separation' || family === 'DeviceN' || family === 'Lab') return false;
    return !inverted;
  }
  return false;
}

/** Sets the bits of every pixel in `rects` to 0 (or 1), for any bits-per-pixel. */
function clearRegion(samples: Uint8Array, rowBytes: number, bitsPerPixel: number, rects: readonly PixelRect[], one: boolean): void {
  const value = one ? 0xff : 0;
  for (const r of rects) {
    for (let y = r.y0; y < r.y1; y++) {
      const row = y * rowBytes;
      if (bitsPerPixel % 8 === 0) {
        const bytesPerPixel = bitsPerPixel / 8;
        samples.fill(value, row + r.x0 * bytesPerPixel, row + r.x1 * bytesPerPixel);
        continue;
      }
      for (let bit = r.x0 * bitsPerPixel; bit < r.x1 * bitsPerPixel; bit++) {
        const index = row + (bit >> 3);
        const mask = 0x80 >> (bit & 7);
        samples[index] = one ? samples[index]! | mask : samples[index]! & ~mask;
      }
    }
  }
}
