import type { PopplerRunner } from '../../poppler/tool.js';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { PDFNumber, type PDFDocument, type PDFPageLeaf } from '@cantoo/pdf-lib';
import { RunError, run, type RunResult } from '../../process/run.js';
import { RedactionError } from './errors.js';
import type { Rect } from './geometry.js';
import { withOverlayFont, type Overlay } from './overlay.js';
import { N, numbersOf } from '../pdf-objects.js';
import { flateStream } from './stream-codec.js';

/**
 * Replaces pages by a picture of themselves: poppler renders the page content (annotations hidden —
 * they stay annotations), optional boxes are painted into the pixels, and the page's content becomes
 * that one image. Nothing of the old content survives: no text, no hidden layers, no vector data.
 * Used for `sanitize.pages` and, in `blacken`, for pages whose content cannot be edited glyph by glyph.
 */

export interface RasterJob {
  pageIndex: number;
  dpi: number;
  /** Boxes in default user space, painted in these RGB colours after rendering. */
  boxes: { rect: Rect; rgb: [number, number, number] }[];
  /** Vector content drawn over the image (redaction fills and overlay texts). */
  overlay?: Overlay;
}

export interface RasterEnvironment {
  scratch(extension: string): string;
  deadline: number;
  toolTimeoutMs: number;
  /** The server's one poppler runner (its folder and concurrency bound); absent: pdftoppm from PATH, unbounded (engine tests). */
  poppler?: PopplerRunner;
}

/** Pixels one page raster may have (RGB: three bytes each); A4 at 600 dpi is 35 million. */
export const MAX_RASTER_PIXELS = 64_000_000;

interface Box {
  x0: number;
  y0: number;
  width: number;
  height: number;
}

export function mediaBoxOf(leaf: PDFPageLeaf): Box {
  const box = numbersOf(leaf.context, leaf.MediaBox()) ?? [0, 0, 612, 792];
  const [a = 0, b = 0, c = 612, d = 792] = box.map((v) => (Number.isFinite(v) ? v : 0));
  return { x0: Math.min(a, c), y0: Math.min(b, d), width: Math.abs(c - a) || 612, height: Math.abs(d - b) || 792 };
}

/** Pixel size of a page at `dpi`. */
export function rasterSize(leaf: PDFPageLeaf, dpi: number): { width: number; height: number } {
  const box = mediaBoxOf(leaf);
  return { width: Math.ceil((box.width * dpi) / 72), height: Math.ceil((box.height * dpi) / 72) };
}

/** The highest dpi up to `wanted` whose raster of this page stays within the pixel budget. */
export function affordableDpi(leaf: PDFPageLeaf, wanted: number): number {
  const box = mediaBoxOf(leaf);
  const limit = Math.sqrt(MAX_RASTER_PIXELS / ((box.width / 72) * (box.height / 72)));
  return Math.max(1, Math.min(wanted, Math.floor(limit)));
}

export async function rasterizePages(document: PDFDocument, jobs: readonly RasterJob[], env: RasterEnvironment): Promise<void> {
  if (jobs.length === 0) return;
  const pages = document.getPages();
  const leaves = jobs.map((job) => pages[job.pageIndex]!.node);
  for (const [index, leaf] of leaves.entries()) {
    const { width, height } = rasterSize(leaf, jobs[index]!.dpi);
    if (width * height > MAX_RASTER_PIXELS) {
      throw new RedactionError(
        'unsupported',
        `A raster of page ${jobs[index]!.pageIndex + 1} at ${jobs[index]!.dpi} dpi would have ${width}×${height} pixels; this server renders at most ${MAX_RASTER_PIXELS / 1e6} million pixels per page.`,
      );
    }
  }
  // Render unrotated: the image then fills the media box as it is, and /Rotate keeps working on top.
  const rotations = leaves.map((leaf) => leaf.get(N('Rotate')));
  for (const leaf of leaves) leaf.set(N('Rotate'), PDFNumber.of(0));
  const source = env.scratch('pdf');
  try {
    await writeDocument(document, source);
  } finally {
    leaves.forEach((leaf, index) => {
      const rotation = rotations[index];
      if (rotation === undefined) leaf.delete(N('Rotate'));
      else leaf.set(N('Rotate'), rotation);
    });
  }
  try {
    for (const [index, job] of jobs.entries()) {
      const leaf = leaves[index]!;
      const raster = await render(source, job, env);
      paintBoxes(raster, mediaBoxOf(leaf), job.boxes);
      replaceContent(document, leaf, raster, job.overlay);
    }
  } finally {
    await rm(source, { force: true });
  }
}

async function writeDocument(document: PDFDocument, path: string): Promise<void> {
  await writeFile(path, await document.save({ useObjectStreams: false, updateFieldAppearances: false }));
}

interface Raster {
  width: number;
  height: number;
  rgb: Uint8Array;
}

async function render(source: string, job: RasterJob, env: RasterEnvironment): Promise<Raster> {
  const prefix = env.scratch('raster');
  const page = String(job.pageIndex + 1);
  const left = env.deadline - Date.now();
  if (left <= 0) throw new RedactionError('timeout', 'The call ran out of time while rasterising pages.');
  const timeoutMs = Math.max(1, Math.min(env.toolTimeoutMs || left, left));
  let result: RunResult;
  try {
    const args = ['-r', String(job.dpi), '-f', page, '-l', page, '-singlefile', '-hide-annotations', source, prefix];
    result = await (env.poppler ? env.poppler.run('pdftoppm', args, { timeoutMs, maxOutputBytes: 64 * 1024 }) : run('pdftoppm', args, { timeoutMs, maxOutputBytes: 64 * 1024 }));
  } catch (error) {
    if (error instanceof RunError) throw new RedactionError('renderFailed', `poppler (pdftoppm) could not be started: ${error.message}`, { cause: error });
    throw error;
  }
  if (result.timedOut) throw new RedactionError('timeout', `Rendering page ${page} took longer than the time limit.`);
  const file = `${prefix}.ppm`;
  try {
    if (result.exitCode !== 0) throw new RedactionError('renderFailed', `Page ${page} could not be rendered: ${result.stderr.trim().split('\n')[0] ?? 'pdftoppm failed'}`);
    return parsePpm(await readFile(file));
  } finally {
    await rm(file, { force: true });
  }
}

/** A binary PPM (P6, maxval 255) as poppler writes it. */
function parsePpm(data: Buffer): Raster {
  const fields: string[] = [];
  let pos = 0;
  while (fields.length < 4 && pos < data.length) {
    while (pos < data.length && /\s/.test(String.fromCharCode(data[pos]!))) pos++;
    if (data[pos] === 0x23) {
      while (pos < data.length && data[pos] !== 10) pos++;
      continue;
    }
    let end = pos;
    while (end < data.length && !/\s/.test(String.fromCharCode(data[end]!))) end++;
    fields.push(data.subarray(pos, end).toString('latin1'));
    pos = end;
  }
  pos++; // the single whitespace after maxval
  const [magic, w, h, max] = fields;
  const width = Number(w);
  const height = Number(h);
  if (magic !== 'P6' || max !== '255' || !(width > 0) || !(height > 0) || data.length - pos < width * height * 3) {
    throw new RedactionError('renderFailed', 'pdftoppm wrote an unexpected image.');
  }
  return { width, height, rgb: new Uint8Array(data.buffer, data.byteOffset + pos, width * height * 3) };
}

function paintBoxes(raster: Raster, media: Box, boxes: RasterJob['boxes']): void {
  const sx = raster.width / media.width;
  const sy = raster.height / media.height;
  for (const { rect, rgb } of boxes) {
    // Whole pixels the box touches: partly covered pixels are painted too.
    const x0 = Math.max(0, Math.floor((rect.x0 - media.x0) * sx));
    const x1 = Math.min(raster.width, Math.ceil((rect.x1 - media.x0) * sx));
    const y0 = Math.max(0, Math.floor((media.y0 + media.height - rect.y1) * sy));
    const y1 = Math.min(raster.height, Math.ceil((media.y0 + media.height - rect.y0) * sy));
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const i = (y * raster.width + x) * 3;
        raster.rgb[i] = rgb[0];
        raster.rgb[i + 1] = rgb[1];
        raster.rgb[i + 2] = rgb[2];
      }
    }
  }
}

function replaceContent(document: PDFDocument, leaf: PDFPageLeaf, raster: Raster, overlay: Overlay | undefined): void {
  const context = document.context;
  const media = mediaBoxOf(leaf);
  const image = context.register(
    flateStream(context, raster.rgb, {
      Type: N('XObject'),
      Subtype: N('Image'),
      Width: PDFNumber.of(raster.width),
      Height: PDFNumber.of(raster.height),
      ColorSpace: N('DeviceRGB'),
      BitsPerComponent: PDFNumber.of(8),
    }),
  );
  const content = `q ${media.width} 0 0 ${media.height} ${media.x0} ${media.y0} cm /QrPage Do Q\n${overlay?.content ?? ''}\n`;
  leaf.set(N('Contents'), context.register(flateStream(context, Buffer.from(content, 'latin1'))));
  const resources = context.obj({ XObject: context.obj({ QrPage: image }) });
  leaf.set(N('Resources'), overlay?.usesFont ? withOverlayFont(context, resources) : resources);
  for (const key of ['Thumb', 'PieceInfo', 'Group', 'SeparationInfo']) leaf.delete(N(key));
}
