import path from 'node:path';
import { encodePage, type PageEncoding } from '../poppler/encode.js';
import { runTool, type ToolLimits } from '../poppler/tool.js';
import { toPoints } from '../pdf-edit/content/units.js';
import { BarcodeError } from './errors.js';
import { newDocumentWithCodes, type CodeStamp } from './stamp.js';

export type CodeImageFormat = 'png' | 'jpg' | 'bmp' | 'tif';

/** Most pixels of a code image: a whole A4 page at 1200 dpi is ~140 Mpx. */
const MAX_PIXELS = 150_000_000;

const ENCODINGS: Record<CodeImageFormat, PageEncoding> = {
  png: { format: 'png' },
  jpg: { format: 'jpeg', quality: 90 },
  bmp: { format: 'bmp' },
  tif: { format: 'tiff', compression: 'lzw', quality: 90, blackAndWhite: 'middle' },
};

/**
 * An image containing only the codes (webPDF's `outputFormat` bmp/jpg/png/tif): they are drawn on a
 * page of `pageSize` points as `add` would draw them, and pdftoppm renders only the smallest area
 * holding every code's rectangle, at `dpi`, encoded like the toolbox's page images (poppler/encode).
 */
export async function renderCodesImage(
  output: string,
  format: CodeImageFormat,
  dpi: number,
  pageSize: [number, number],
  stamps: readonly CodeStamp[],
  directory: string,
  limits: ToolLimits,
): Promise<void> {
  const pdf = path.join(directory, 'codes.pdf');
  await newDocumentWithCodes(pdf, pageSize, stamps);
  // The union of the rectangles, in points from the page's top-left corner.
  let [left, top, right, bottom] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, 0, 0];
  for (const { position: p } of stamps) {
    const x = toPoints(p.x, p.metrics);
    const w = toPoints(p.width, p.metrics);
    const h = toPoints(p.height, p.metrics);
    const y = p.coordinates === 'pdf' ? pageSize[1] - toPoints(p.y, p.metrics) - h : toPoints(p.y, p.metrics);
    left = Math.min(left, x);
    top = Math.min(top, y);
    right = Math.max(right, x + w);
    bottom = Math.max(bottom, y + h);
  }
  const px = (points: number) => Math.round((points * dpi) / 72);
  const width = Math.max(1, px(right) - px(left));
  const height = Math.max(1, px(bottom) - px(top));
  if (width * height > MAX_PIXELS) throw new BarcodeError('invalidValue', `the code image would be ${width} × ${height} pixels at ${dpi} dpi; at most ${MAX_PIXELS / 1e6} million`);
  const base = path.join(directory, 'codes');
  await runTool('pdftoppm', ['-q', '-cropbox', '-r', String(dpi), '-x', String(px(left)), '-y', String(px(top)), '-W', String(width), '-H', String(height), '-singlefile', pdf, base], limits);
  await encodePage(`${base}.ppm`, output, ENCODINGS[format], dpi);
}
