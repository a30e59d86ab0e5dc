import { pageGeometry } from './geometry.js';
import { PopplerError } from './errors.js';
import { runTool, type ToolLimits } from './tool.js';

/** The tallest thumbnail, in multiples of its width: a long strip of a page stays a thumbnail. */
const MAX_ASPECT = 4;

/**
 * One page as a PNG `width` pixels wide (the crop box as viewers show it, turned by /Rotate), its
 * height in proportion, written to `output` (`.png` is appended by pdftoppm, so `output` is given
 * without it). Two poppler runs: pdfinfo for the page's size, pdftoppm for the picture, both under
 * the call's limits and the runner's gate. `input` must open without a password (a decrypted copy).
 */
export async function renderThumbnail(input: string, page: number, width: number, outputBase: string, limits: ToolLimits): Promise<{ width: number; height: number }> {
  const [geometry] = await pageGeometry(input, page, page, limits);
  if (!geometry || !(geometry.width > 0) || !(geometry.height > 0)) throw new PopplerError('damaged', `Page ${page} has no usable size.`);
  const height = Math.max(1, Math.min(width * MAX_ASPECT, Math.round((width * geometry.height) / geometry.width)));
  // pdftoppm's scale-to values refer to the unturned page (as in render.ts).
  const sideways = geometry.rotation === 90 || geometry.rotation === 270;
  await runTool(
    'pdftoppm',
    [
      '-q',
      '-png',
      '-singlefile',
      '-cropbox',
      '-scale-to-x',
      String(sideways ? height : width),
      '-scale-to-y',
      String(sideways ? width : height),
      '-f',
      String(page),
      '-l',
      String(page),
      input,
      outputBase,
    ],
    limits,
  );
  return { width, height };
}
