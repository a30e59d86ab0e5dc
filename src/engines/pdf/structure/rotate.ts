import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { qpdfRange } from './page-ranges.js';

/**
 * Turns pages clockwise by a multiple of 90° with `qpdf --rotate=+D:pages` (relative to their
 * current /Rotate; qpdf writes the sum normalised to 0–270). Only the /Rotate entry changes: content,
 * annotations and links stay as they are, which is what viewers expect of a rotation.
 */
export async function rotatePages(qpdf: PdfStructureTool, input: string, output: string, pages: readonly number[], degrees: number, call: QpdfCall): Promise<void> {
  const turn = ((degrees % 360) + 360) % 360;
  const args = [input];
  if (turn !== 0 && pages.length > 0) args.push(`--rotate=+${turn}:${qpdfRange(pages)}`);
  args.push(output);
  await qpdf.run(args, call);
}
