import { GhostscriptError } from '../ghostscript/ghostscript.js';
import { run, RunError } from '../process/run.js';

/**
 * A PDF page as a grey image for Tesseract WITHOUT the page's text (Ghostscript's `-dFILTERTEXT`:
 * text objects are not drawn, images and vector graphics are). This is what `forceEachPage`
 * recognises on a page that already has text: only words that are pixels (a scan or a picture on
 * the page) become a new text layer, never the page's own text a second time. Same geometry as
 * pdftoppm's raster (crop box, /Rotate applied), so the layer lies over the page the same way.
 *
 * `gs` is resolved by `run()` to `engines.ghostscript.executable` under its memory cap
 * (process/tools.ts). It is not under the Ghostscript tool gate: the OCR call bounds its pages in
 * flight (ocr-service.ts, pool size + 1), so one call renders at most that many at once.
 */
export async function renderWithoutText(input: string, page: number, dpi: number, output: string, format: 'png' | 'pgm', timeoutMs: number): Promise<void> {
  const args = [
    '-q',
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    `-sDEVICE=${format === 'png' ? 'pnggray' : 'pgmraw'}`,
    `-r${dpi}`,
    '-dUseCropBox',
    '-dFILTERTEXT',
    '-dGraphicsAlphaBits=4',
    `-dFirstPage=${page}`,
    `-dLastPage=${page}`,
    `-sOutputFile=${output}`,
    input,
  ];
  let result;
  try {
    result = await run('gs', args, { timeoutMs, maxOutputBytes: 64 * 1024 });
  } catch (error) {
    if (error instanceof RunError && error.kind !== 'aborted') throw new GhostscriptError('toolMissing', `Ghostscript cannot be started: ${error.message}`);
    throw error;
  }
  if (result.timedOut) throw new GhostscriptError('timeout', `Ghostscript did not render page ${page} within ${timeoutMs} ms`);
  if (result.exitCode !== 0) throw new GhostscriptError('failed', `Ghostscript could not render page ${page} (exit ${result.exitCode ?? result.signal})`, result.stderr.slice(-2000));
}
