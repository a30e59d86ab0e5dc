import { EngineError } from '../engine-error.js';
import { run, RunError } from '../process/run.js';
import type { ToolGate } from '../pool/tool-gate.js';
import type { PostScriptConverter } from '../contracts.js';
import { pdfaAborted, pdfaArgs, writePdfaPrefix, type PdfaDistilOptions } from './pdfa.js';

export interface DownsampleOptions {
  /** Highest image resolution kept, in dpi. */
  dpi: number;
  /** Quality of re-encoded JPEG images, 1–100. */
  jpegQuality: number;
  timeoutMs: number;
}

export type GhostscriptErrorKind = 'timeout' | 'failed' | 'toolMissing';

export class GhostscriptError extends EngineError<GhostscriptErrorKind> {
  /** `detail`: Ghostscript's diagnostics, for the log. */
  constructor(kind: GhostscriptErrorKind, message: string, detail = '') {
    super(kind, message, { detail });
  }
}

/**
 * Ghostscript's pdfwrite (AGPL, so it runs as a separate process): PostScript to PDF, and image
 * down-sampling of a finished PDF where the producing engine cannot do it itself (Chromium, PDF
 * input); LibreOffice and the image converter reduce resolution while they write. Each run is capped
 * at `engines.ghostscript.maxMemory` by `run` (process/tools.ts knows `gs` and the configured executable).
 */
export class Ghostscript implements PostScriptConverter {
  /** `gate`: the concurrency bound of every Ghostscript run of the server (process/tool-gate.ts); none in engine tests. */
  constructor(
    private readonly gs = 'gs',
    private readonly gate?: ToolGate,
  ) {}

  /**
   * PostScript or EPS to PDF (pdfwrite), in a sandbox (-dSAFER: no file access beyond the input);
   * with `downsample`, images are down-sampled in the same pass (a second pdfwrite of the result
   * would cost as much again: pdfwrite's time goes into the text).
   */
  async postscriptToPdf(input: string, output: string, timeoutMs: number, downsample?: Omit<DownsampleOptions, 'timeoutMs'>): Promise<void> {
    const args = [...(downsample ? downsampleArgs(downsample) : []), '-dEPSCrop', `-sOutputFile=${output}`, input];
    await this.pdfwrite(args, timeoutMs, 'convert the PostScript');
  }

  async downsample(input: string, output: string, options: DownsampleOptions): Promise<void> {
    const args = ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=pdfwrite', '-dCompatibilityLevel=1.7', ...downsampleArgs(options), `-sOutputFile=${output}`, input];
    await this.pdfwrite(args, options.timeoutMs, 'rewrite the PDF');
  }

  /**
   * PDF/A part N by pdfwrite (see pdfa.ts): its exit code is not trusted, its diagnostics are read for
   * an aborted PDF/A run; the caller still validates the result. Returns Ghostscript's warnings.
   */
  async pdfa(input: string, output: string, options: PdfaDistilOptions & { timeoutMs: number }): Promise<string> {
    await writePdfaPrefix(options);
    const stderr = await this.pdfwrite(pdfaArgs(input, output, options), options.timeoutMs, 'convert the PDF to PDF/A');
    const aborted = pdfaAborted(stderr);
    if (aborted) throw new GhostscriptError('failed', `Ghostscript could not write PDF/A-${options.part}: ${aborted}`, stderr.slice(-2000));
    return stderr;
  }

  private async pdfwrite(extra: string[], timeoutMs: number, what: string): Promise<string> {
    const args = extra[0] === '-q' ? extra : ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=pdfwrite', ...extra];
    let result;
    try {
      const start = () => run(this.gs, args, { timeoutMs, maxOutputBytes: 64 * 1024 });
      result = await (this.gate ? this.gate.run(start) : start());
    } catch (error) {
      // A cancelled call (RunError 'aborted') and a memory cap (MemoryLimitError) pass unchanged.
      if (error instanceof RunError && error.kind !== 'aborted') throw new GhostscriptError('toolMissing', `Ghostscript cannot be started: ${error.message}`);
      throw error;
    }
    if (result.timedOut) throw new GhostscriptError('timeout', `Ghostscript did not finish within ${timeoutMs} ms`);
    if (result.exitCode !== 0) {
      throw new GhostscriptError('failed', `Ghostscript could not ${what} (exit ${result.exitCode ?? result.signal})`, result.stderr.slice(-2000));
    }
    return result.stderr;
  }
}

/** Down-sample every image above the limit (threshold 1.0), colour and grey through JPEG at the given quality. */
function downsampleArgs(options: Pick<DownsampleOptions, 'dpi' | 'jpegQuality'>): string[] {
  const dpi = Math.max(1, Math.round(options.dpi));
  return [
    ...['Color', 'Gray', 'Mono'].flatMap((kind) => [
      `-dDownsample${kind}Images=true`,
      `-d${kind}ImageResolution=${dpi}`,
      `-d${kind}ImageDownsampleThreshold=1.0`,
      `-d${kind}ImageDownsampleType=/${kind === 'Mono' ? 'Subsample' : 'Bicubic'}`,
    ]),
    `-dJPEGQ=${Math.min(100, Math.max(1, Math.round(options.jpegQuality)))}`,
  ];
}
