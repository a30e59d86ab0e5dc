import { listImages } from '../../engines/poppler/images.js';
import { PopplerError } from '../../engines/poppler/errors.js';
import type { CallDeadline } from './call-deadline.js';

/** pdfimages' page range end: it stops at the last page the document has. */
const ALL_PAGES = 2_147_483_647;

/**
 * Whether a finished PDF draws any image above `dpi`, so that Ghostscript has something to
 * down-sample.
 *
 * Ghostscript's pdfwrite rewrites the whole document, and its cost is in the text, not the images:
 * Ghostscript 10.0 spends ~0.1 ms per glyph, so the 133 pages of plain text Chromium printed from a
 * 1.1 MB XML file (fuzz crasher slow-converter-1165) took 92 s to "down-sample" a PDF without a
 * single image. `pdfimages -list` reads the same pages in ~65 ms and reports each image with the
 * resolution it is drawn at, which is what Ghostscript compares with the limit.
 *
 * When the listing fails (a file poppler reads worse than Ghostscript, a listing past its bound) or
 * reports an image whose resolution it could not compute, Ghostscript decides as before.
 */
export async function hasImagesAbove(file: string, dpi: number, deadline: CallDeadline): Promise<boolean> {
  let images;
  try {
    images = await listImages(file, 1, ALL_PAGES, { deadline: deadline.at, toolTimeoutMs: deadline.remainingMs() });
  } catch (error) {
    // Out of time or cancelled: the call is over, whatever the listing would have said.
    if (error instanceof PopplerError && error.kind === 'timeout') deadline.check();
    if (!(error instanceof PopplerError) || error.kind === 'timeout') throw error;
    return true;
  }
  return images.some((image) => !(image.xPpi > 0 && image.yPpi > 0) || Math.max(image.xPpi, image.yPpi) > dpi);
}
