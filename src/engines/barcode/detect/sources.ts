import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { decodeOptions, loadSharp } from '../../image/load-sharp.js';
import { runTool, type ToolLimits } from '../../poppler/tool.js';
import { BarcodeError } from '../errors.js';

/**
 * The images detection reads: PDF pages rendered by poppler's pdftoppm (under its gate and limits),
 * or the frames of an image file decoded by sharp.
 */

/** A page as a reader sees it: its crop box in points and its /Rotate. */
export interface PageBox {
  page: number;
  /** [llx, lly, urx, ury] of the crop box, unrotated. */
  cropBox: [number, number, number, number];
  rotation: 0 | 90 | 180 | 270;
}

/** Every page's crop box and rotation, from pdfinfo. */
export async function pageBoxes(file: string, limits: ToolLimits): Promise<PageBox[]> {
  const { stdout } = await runTool('pdfinfo', ['-box', '-f', '1', '-l', '1000000', file], { ...limits, maxOutputBytes: 64 * 1024 * 1024 });
  const text = stdout.toString('latin1');
  const boxes = new Map<number, PageBox>();
  for (const match of text.matchAll(/^Page\s+(\d+)\s+CropBox:\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)/gm)) {
    const page = Number(match[1]);
    boxes.set(page, { page, cropBox: [Number(match[2]), Number(match[3]), Number(match[4]), Number(match[5])], rotation: 0 });
  }
  for (const match of text.matchAll(/^Page\s+(\d+)\s+rot:\s+(-?\d+)/gm)) {
    const box = boxes.get(Number(match[1]));
    if (box) box.rotation = ((((Math.round(Number(match[2]) / 90) * 90) % 360) + 360) % 360) as PageBox['rotation'];
  }
  return [...boxes.values()].sort((a, b) => a.page - b.page);
}

/** Pixels of a page as displayed (after /Rotate) to crop to, from its top-left corner. */
export interface PixelArea {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Renders one page (or an area of it) in grey at `dpi` as PNG, as zxing-wasm reads it. */
export async function renderPageImage(file: string, page: number, dpi: number, area: PixelArea | undefined, directory: string, limits: ToolLimits): Promise<Uint8Array> {
  const base = path.join(directory, `detect-${page}`);
  const crop = area ? ['-x', String(area.x), '-y', String(area.y), '-W', String(area.width), '-H', String(area.height)] : [];
  await runTool('pdftoppm', ['-q', '-cropbox', '-gray', '-png', '-r', String(dpi), '-f', String(page), '-l', String(page), ...crop, '-singlefile', file, base], limits);
  return new Uint8Array(await readFile(`${base}.png`));
}

/** Most pixels of one image frame the detector decodes (a 600-dpi A3 page is ~70 Mpx). */
const MAX_FRAME_PIXELS = 100_000_000;

/** The frames of an image file (every page of a multi-page TIFF) as PNG, with their resolution. */
export async function imageFrames(file: string): Promise<{ png: Uint8Array; width: number; height: number; dpi: number }[]> {
  const sharp = await loadSharp();
  let metadata;
  try {
    metadata = await sharp(file, decodeOptions(MAX_FRAME_PIXELS)).metadata();
  } catch (error) {
    throw new BarcodeError('unreadable', `the image cannot be decoded: ${(error as Error).message}`, { cause: error });
  }
  const count = Math.max(1, metadata.pages ?? 1);
  const frames = [];
  for (let page = 0; page < count; page++) {
    try {
      const { data, info } = await sharp(file, decodeOptions(MAX_FRAME_PIXELS, { page })).greyscale().png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
      frames.push({ png: new Uint8Array(data), width: info.width, height: info.height, dpi: metadata.density && metadata.density > 0 ? metadata.density : 72 });
    } catch (error) {
      throw new BarcodeError('unreadable', `frame ${page + 1} of the image cannot be decoded: ${(error as Error).message}`, { cause: error });
    }
  }
  return frames;
}
