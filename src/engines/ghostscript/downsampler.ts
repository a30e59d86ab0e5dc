import { run, RunError } from '../process/run.js';

export interface DownsampleOptions {
  /** Highest image resolution kept, in dpi. */
  dpi: number;
  /** Quality of re-encoded JPEG images, 1–100. */
  jpegQuality: number;
  timeoutMs: number;
}

export class GhostscriptError extends Error {
  constructor(
    readonly kind: 'timeout' | 'failed' | 'toolMissing',
    message: string,
    readonly detail = '',
  ) {
    super(message);
    this.name = 'GhostscriptError';
  }
}

/**
 * Image down-sampling of a finished PDF with Ghostscript's pdfwrite (AGPL, so it runs as a separate
 * process). Used where the producing engine cannot do it itself (Chromium, PDF input); LibreOffice
 * and the image converter reduce resolution while they write.
 */
export class GhostscriptDownsampler {
  constructor(private readonly gs = 'gs') {}

  async downsample(input: string, output: string, options: DownsampleOptions): Promise<void> {
    const dpi = Math.max(1, Math.round(options.dpi));
    const args = [
      '-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=pdfwrite',
      '-dCompatibilityLevel=1.7',
      // Down-sample every image above the limit (threshold 1.0), colour and grey through JPEG at the given quality.
      ...['Color', 'Gray', 'Mono'].flatMap((kind) => [
        `-dDownsample${kind}Images=true`,
        `-d${kind}ImageResolution=${dpi}`,
        `-d${kind}ImageDownsampleThreshold=1.0`,
        `-d${kind}ImageDownsampleType=/${kind === 'Mono' ? 'Subsample' : 'Bicubic'}`,
      ]),
      `-dJPEGQ=${Math.min(100, Math.max(1, Math.round(options.jpegQuality)))}`,
      `-sOutputFile=${output}`,
      input,
    ];
    let result;
    try {
      result = await run(this.gs, args, { timeoutMs: options.timeoutMs, maxOutputBytes: 64 * 1024 });
    } catch (error) {
      if (error instanceof RunError) throw new GhostscriptError('toolMissing', `Ghostscript cannot be started: ${error.message}`);
      throw error;
    }
    if (result.timedOut) throw new GhostscriptError('timeout', `Ghostscript did not finish within ${options.timeoutMs} ms`);
    if (result.exitCode !== 0) {
      throw new GhostscriptError('failed', `Ghostscript could not rewrite the PDF (exit ${result.exitCode ?? result.signal})`, result.stderr.slice(-2000));
    }
  }
}
