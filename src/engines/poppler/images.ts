import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { runTool, type ToolLimits } from './tool.js';

/** One image drawn on a page, as `pdfimages -list` reports it (a form XObject drawn twice is listed twice). */
export interface PageImage {
  /** Page in the file pdfimages read. */
  page: number;
  /** pdfimages' running number over the whole run (0-based); joins the listing with the extracted files. */
  index: number;
  /** image, mask, smask or stencil. */
  type: string;
  width: number;
  height: number;
  /** gray, rgb, cmyk, lab, icc, index, sep, devn, … */
  colorSpace: string;
  components: number;
  bitsPerComponent: number;
  /** The stored encoding: image (raw), jpeg, jpx, jbig2, ccitt. */
  encoding: string;
  interpolate: boolean;
  /** "num gen" of the image object, "" for inline images. */
  objectKey: string;
  /** Resolution at which the page draws the image. */
  xPpi: number;
  yPpi: number;
}

const ROW = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+(\d+))?\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s*$/;

export async function listImages(file: string, first: number, last: number, limits: ToolLimits): Promise<PageImage[]> {
  const result = await runTool('pdfimages', ['-list', '-f', String(first), '-l', String(last), file], { ...limits, maxOutputBytes: 64 * 1024 * 1024 });
  return parseImageList(result.stdout.toString('utf8'));
}

export function parseImageList(text: string): PageImage[] {
  const images: PageImage[] = [];
  for (const line of text.split('\n').slice(2)) {
    const m = ROW.exec(line);
    if (!m) continue;
    const object = m[11]!;
    images.push({
      page: Number(m[1]),
      index: Number(m[2]),
      type: m[3]!,
      width: Number(m[4]),
      height: Number(m[5]),
      colorSpace: m[6]!,
      components: Number(m[7]),
      bitsPerComponent: Number(m[8]),
      encoding: m[9]!,
      interpolate: m[10] === 'yes',
      objectKey: /^\d+$/.test(object) && m[12] !== undefined ? `${object} ${m[12]}` : '',
      xPpi: Number(m[13]) || 0,
      yPpi: Number(m[14]) || 0,
    });
  }
  return images;
}

/** The file extension pdfimages writes with `-j -png`: JPEG data as it is stored, everything else decoded to PNG. */
export function extractedSuffix(image: Pick<PageImage, 'encoding'>): 'jpg' | 'png' {
  return image.encoding === 'jpeg' ? 'jpg' : 'png';
}

export interface ExtractedImage {
  page: number;
  index: number;
  path: string;
  suffix: string;
}

/**
 * Writes the images of pages first..last into `directory` (`pdfimages -j -png -p`): JPEG data as
 * stored, everything else (raw, JPX, JBIG2, CCITT) decoded to PNG. Soft masks and masks come out as
 * images of their own, as pdfimages lists them.
 */
export async function extractImages(file: string, first: number, last: number, directory: string, limits: ToolLimits): Promise<ExtractedImage[]> {
  await runTool('pdfimages', ['-q', '-j', '-png', '-p', '-f', String(first), '-l', String(last), file, path.join(directory, 'img')], limits);
  const images: ExtractedImage[] = [];
  for (const name of await readdir(directory)) {
    const m = /^img-(\d+)-(\d+)\.([a-z0-9]+)$/.exec(name);
    if (!m) continue;
    images.push({ page: Number(m[1]), index: Number(m[2]), path: path.join(directory, name), suffix: m[3]! });
  }
  return images.sort((a, b) => a.page - b.page || a.index - b.index);
}
