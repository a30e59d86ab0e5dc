import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { PopplerError } from './errors.js';
import { diagnostics, runTool, type ToolLimits } from './tool.js';

/**
 * Page rendering with poppler: pdftoppm for raster images (the crop box, as viewers show it, at an
 * exact pixel size, as uncompressed PPM/PGM that `encodePage` turns into the output format) and
 * pdftocairo for SVG.
 */

export interface RasterRun extends ToolLimits {
  /** A fresh directory for the page images (created). */
  directory: string;
  /** Exact size of every page image of the run, in pixels (pages of one run share it). */
  width: number;
  height: number;
  /** Resolution written into the images' metadata. */
  dpi: number;
  /** The pages are turned by 90 or 270 degrees: pdftoppm's scale-to values refer to the unturned page. */
  sideways: boolean;
  /** Colour (PPM), or grey (PGM, for black-and-white output). */
  gray?: boolean;
}

/** Renders pages first..last to PPM (or PGM) files; returns them in page order. */
export async function renderPages(file: string, first: number, last: number, options: RasterRun): Promise<{ page: number; path: string }[]> {
  await mkdir(options.directory, { recursive: true });
  const args = [
    '-q',
    '-cropbox',
    ...(options.gray ? ['-gray'] : []),
    '-r',
    String(options.dpi),
    // Both scale-to values given: an exact pixel size, independent of poppler's rounding of dpi × size.
    '-scale-to-x',
    String(options.sideways ? options.height : options.width),
    '-scale-to-y',
    String(options.sideways ? options.width : options.height),
    '-f',
    String(first),
    '-l',
    String(last),
    file,
    path.join(options.directory, 'page'),
  ];
  await runTool('pdftoppm', args, options);
  const out: { page: number; path: string }[] = [];
  for (const name of await readdir(options.directory)) {
    const m = /^page-(\d+)\.p[pg]m$/.exec(name);
    if (m) out.push({ page: Number(m[1]), path: path.join(options.directory, name) });
  }
  out.sort((a, b) => a.page - b.page);
  if (out.length !== last - first + 1) throw new PopplerError('failed', `pdftoppm wrote ${out.length} of ${last - first + 1} page images.`);
  return out;
}

/**
 * One page as SVG (pdftocairo crops vector output to the crop box). Fonts become glyph outlines;
 * images are embedded. Returns poppler's diagnostics of the page (damaged content it skipped or
 * repaired), which the transcription reports.
 */
export async function renderSvg(file: string, page: number, output: string, limits: ToolLimits): Promise<{ level: 'warning' | 'error'; message: string }[]> {
  const result = await runTool('pdftocairo', ['-svg', '-f', String(page), '-l', String(page), file, output], limits);
  return diagnostics(result.stderr);
}
