import { PDFRawStream, type PDFDocument, type PDFEmbeddedPage, type PDFImage, type PDFRef } from '@cantoo/pdf-lib';
import { contentEntries } from '../content/page-content.js';
import { firstLine, parsePdf } from '../pdf-lib-io.js';
import { decodeBounded } from '../stream-bounds.js';
import { decodeOptions, loadSharp } from '../../image/load-sharp.js';
import { sniffImageFormat } from '../../image/sniff.js';
import { formXObject } from './content.js';
import { invalid, unsupported } from './errors.js';
import type { Box } from './geometry.js';
import { n } from './pdf-values.js';

/**
 * A client-supplied normal appearance (`Operation_AppearanceSource`) for stamps and notes: a raster
 * image, a page of a PDF (kept as vectors) or an SVG (rasterised by librsvg through sharp; the PDF
 * has no SVG drawing model).
 */
export interface AppearanceSource {
  kind: 'image' | 'pdf' | 'svg';
  bytes: Buffer;
  /** PDF: the page used (1-based). */
  page?: number;
  preserveAspectRatio?: boolean;
  /** SVG: the side of the rectangle kept when preserving the aspect ratio. */
  aspectRatioAxis?: 'x' | 'y';
  /** The option's name in messages (`toolbox[0].annotation.add.rubberstamp[0].normalAppearance.image`). */
  field: string;
}

export interface LoadedAppearance {
  /** Size in points at 72 dpi (images: pixels as points). */
  naturalWidth: number;
  naturalHeight: number;
  /** Draws into `rect`; returns the annotation rectangle (an SVG kept to an axis can change it) and the stream. */
  draw(rect: Box, opacity: number): Promise<{ rect: Box; ref: PDFRef }>;
}

/** Pixels of an appearance image: pdf-lib decodes the PNG on the event loop (~1 s for 4000 × 4000). */
const MAX_PIXELS = 16_000_000;
/** Longest side of a rasterised SVG. */
const MAX_SVG_SIDE = 4000;

export async function loadAppearance(document: PDFDocument, source: AppearanceSource): Promise<LoadedAppearance> {
  switch (source.kind) {
    case 'image':
      return imageAppearance(document, await embedImage(document, source), source);
    case 'pdf':
      return pdfAppearance(document, source);
    case 'svg':
      return svgAppearance(document, source);
  }
}

/** Draws an XObject of natural size (w × h units) into a box. */
function drawXObject(document: PDFDocument, rect: Box, box: Box, ref: PDFRef, unitWidth: number, unitHeight: number, opacity: number): PDFRef {
  const sx = (box[2] - box[0]) / unitWidth;
  const sy = (box[3] - box[1]) / unitHeight;
  const content = `q ${n(sx)} 0 0 ${n(sy)} ${n(box[0])} ${n(box[1])} cm /X0 Do Q\n`;
  return formXObject(document.context, rect, content, { xobjects: { X0: ref }, opacity });
}

/** The box the content takes in `rect`: all of it, or centred keeping the aspect ratio. */
function fitted(rect: Box, width: number, height: number, preserve: boolean | undefined): Box {
  if (!preserve || width <= 0 || height <= 0) return rect;
  const rw = rect[2] - rect[0];
  const rh = rect[3] - rect[1];
  const scale = Math.min(rw / width, rh / height);
  const w = width * scale;
  const h = height * scale;
  const x = rect[0] + (rw - w) / 2;
  const y = rect[1] + (rh - h) / 2;
  return [x, y, x + w, y + h];
}

async function embedImage(document: PDFDocument, source: AppearanceSource): Promise<PDFImage> {
  const format = sniffImageFormat(source.bytes.subarray(0, 32));
  const field = `${source.field}.data`;
  try {
    // pdf-lib reads only the markers of a JPEG (its data goes in as it is).
    if (format === 'jpeg') return await document.embedJpg(source.bytes);
  } catch (error) {
    throw invalid(field, `the image cannot be read (${(error as Error).message.split('\n')[0]}).`);
  }
  // Everything else is decoded by sharp first, off the event loop and within the pixel limit: pdf-lib
  // decodes PNGs in JavaScript on the event loop, and a header claiming 65535 × 2147483647 pixels held
  // it for good (issue 11). It then gets sharp's PNG, whose size is known to be within the limit.
  if (format === 'png' || format === 'gif' || format === 'webp' || format === 'tiff') {
    const sharp = await loadSharp();
    try {
      const png = await sharp(source.bytes, decodeOptions(MAX_PIXELS, { sequentialRead: false }))
        .png()
        .toBuffer();
      return await document.embedPng(png);
    } catch (error) {
      throw invalid(field, `the image cannot be read (${(error as Error).message.split('\n')[0]}).`);
    }
  }
  if (format === 'bmp') throw unsupported(field, 'BMP images cannot be used as an appearance; send PNG, JPEG, GIF, TIFF or WebP.');
  throw invalid(field, 'not an image (PNG, JPEG, GIF, TIFF or WebP expected).');
}

function imageAppearance(document: PDFDocument, image: PDFImage, source: AppearanceSource): LoadedAppearance {
  return {
    naturalWidth: image.width,
    naturalHeight: image.height,
    async draw(rect, opacity) {
      const box = fitted(rect, image.width, image.height, source.preserveAspectRatio);
      return { rect, ref: drawXObject(document, rect, box, image.ref, 1, 1, opacity) };
    },
  };
}

async function pdfAppearance(document: PDFDocument, source: AppearanceSource): Promise<LoadedAppearance> {
  const field = `${source.field}.data`;
  let donor: PDFDocument;
  try {
    donor = await parsePdf(source.bytes);
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? '';
    throw invalid(field, /encrypt/i.test(message) ? 'the PDF is encrypted; send an unprotected one.' : `not a readable PDF (${message}).`);
  }
  const count = donor.getPageCount();
  const page = source.page ?? 1;
  if (page < 1 || page > count) throw invalid(`${source.field}.page`, `page ${page} is out of range: the appearance PDF has ${count} page${count === 1 ? '' : 's'}.`);
  // pdf-lib decodes the page's content whole when it embeds it: its size is checked, bounded, first.
  try {
    for (const entry of contentEntries(donor.getPage(page - 1))) {
      const stream = donor.context.lookup(entry);
      if (stream instanceof PDFRawStream) decodeBounded(stream);
    }
  } catch (error) {
    throw invalid(field, `not a usable PDF (${firstLine(error)}).`);
  }
  const [embedded] = (await document.embedPdf(donor, [page - 1])) as [PDFEmbeddedPage];
  return {
    naturalWidth: embedded.width,
    naturalHeight: embedded.height,
    async draw(rect, opacity) {
      const box = fitted(rect, embedded.width, embedded.height, source.preserveAspectRatio);
      return { rect, ref: drawXObject(document, rect, box, embedded.ref, embedded.width, embedded.height, opacity) };
    },
  };
}

async function svgAppearance(document: PDFDocument, source: AppearanceSource): Promise<LoadedAppearance> {
  const field = `${source.field}.data`;
  const head = source.bytes.subarray(0, 2048).toString('utf8');
  if (!/<svg[\s>]/i.test(head) && !/<svg[\s>]/i.test(source.bytes.toString('utf8'))) throw invalid(field, 'not an SVG image.');
  const sharp = await loadSharp();
  let width: number;
  let height: number;
  try {
    const meta = await sharp(source.bytes, decodeOptions(MAX_PIXELS, { sequentialRead: false, density: 72 })).metadata();
    width = meta.width ?? 0;
    height = meta.height ?? 0;
  } catch (error) {
    throw invalid(field, `the SVG cannot be read (${(error as Error).message.split('\n')[0]}).`);
  }
  if (width <= 0 || height <= 0) throw invalid(field, 'the SVG has no size.');
  return {
    naturalWidth: width,
    naturalHeight: height,
    async draw(rect, opacity) {
      let target = rect;
      if (source.preserveAspectRatio) {
        const ratio = height / width;
        if ((source.aspectRatioAxis ?? 'x') === 'x') {
          const h = (rect[2] - rect[0]) * ratio;
          target = [rect[0], rect[3] - h, rect[2], rect[3]];
        } else {
          const w = (rect[3] - rect[1]) / ratio;
          target = [rect[0], rect[1], rect[0] + w, rect[3]];
        }
      }
      // Three pixels per point look sharp when zoomed; the longest side stays bounded.
      const drawWidth = target[2] - target[0];
      const drawHeight = target[3] - target[1];
      const scale = Math.min((3 * Math.max(drawWidth, drawHeight)) / Math.max(width, height), MAX_SVG_SIDE / Math.max(width, height));
      const density = Math.max(1, Math.min(72 * scale, 2400));
      let png: Buffer;
      try {
        png = await sharp(source.bytes, decodeOptions(MAX_PIXELS, { sequentialRead: false, density }))
          .resize({ width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), fit: 'fill' })
          .png()
          .toBuffer();
      } catch (error) {
        throw invalid(field, `the SVG cannot be rendered (${(error as Error).message.split('\n')[0]}).`);
      }
      const image = await document.embedPng(png);
      return { rect: target, ref: drawXObject(document, target, target, image.ref, 1, 1, opacity) };
    },
  };
}
