import { run, RunError } from '../process/run.js';
import { PrintError } from './errors.js';

/**
 * A PDF whose pages are images (Ghostscript's pdfimage24 device, in its -dSAFER sandbox): for
 * print modes `raster` and `image`, where the printer gets pictures of the pages instead of PDF
 * content it might render differently (fonts, transparency).
 */
export async function rasterizePdf(input: string, output: string, options: { dpi: number; timeoutMs: number; gs?: string }): Promise<void> {
  const args = ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=pdfimage24', `-r${options.dpi}`, '-dTextAlphaBits=4', '-dGraphicsAlphaBits=4', `-sOutputFile=${output}`, input];
  let result;
  try {
    result = await run(options.gs ?? 'gs', args, { timeoutMs: options.timeoutMs, maxOutputBytes: 64 * 1024 });
  } catch (error) {
    if (error instanceof RunError && error.kind !== 'aborted') throw new PrintError('failed', `Ghostscript cannot be started: ${error.message}`, { cause: error });
    throw error;
  }
  if (result.timedOut) throw new PrintError('timeout', `rasterizing the pages did not finish within ${options.timeoutMs} ms`);
  if (result.exitCode !== 0) throw new PrintError('failed', `Ghostscript could not rasterize the pages (exit ${result.exitCode ?? result.signal})`);
}
