import { access } from 'node:fs/promises';
import { run, RunError, type RunResult } from '../process/run.js';
import { WorkerDiedError, type PoolWorker } from '../pool/worker.js';
import { TesseractError } from './errors.js';
import type { OrientationResult, RecognizeJob, TesseractJob, TesseractResult } from './jobs.js';

export interface TesseractWorkerOptions {
  executable: string;
  /** Folder of the traineddata; empty: Tesseract's own (Debian: /usr/share/tesseract-ocr/5/tessdata). */
  tessdata: string;
  /** Address-space cap of one Tesseract run (RLIMIT_AS), bytes; 0 = none. */
  memoryCapBytes: number;
  env: NodeJS.ProcessEnv;
}

/**
 * One slot of the Tesseract pool. Tesseract has no server mode, so a job is one `tesseract` process
 * (loading the LSTM model costs ~0.1 s against ~2.5 s of recognition per 300-dpi page); what the pool
 * gives is the supervision of the processes: a bound of one run per core, the queue (429), the time
 * limit per page that kills the run, and the strikes of a page that hangs it twice.
 *
 * Every run is single-threaded (OMP_THREAD_LIMIT=1): Tesseract's OpenMP threads fight each other and
 * the other slots on a loaded machine (measured for issue 16: 2.6 s per page instead of 11.95 s), and
 * the pool's parallelism is across pages.
 */
export class TesseractWorker implements PoolWorker<TesseractJob, TesseractResult> {
  readonly ended: Promise<Error>;
  private endWorker!: (reason: Error) => void;
  private abort = new AbortController();
  private done = false;

  constructor(private readonly options: TesseractWorkerOptions) {
    this.ended = new Promise<Error>((resolve) => (this.endWorker = resolve));
  }

  async run(job: TesseractJob): Promise<TesseractResult> {
    if (this.done) throw new WorkerDiedError('Tesseract worker ended');
    return job.kind === 'recognize' ? this.recognize(job) : this.orientation(job.image, job.dpi);
  }

  /** A real run of the executable: `tesseract --version`. */
  async ping(): Promise<void> {
    const result = await this.tesseract(['--version']);
    if (result.exitCode !== 0) throw new TesseractError('failed', `tesseract --version exited with ${result.exitCode ?? result.signal}`);
  }

  async memoryBytes(): Promise<number> {
    // Nothing stays resident between jobs (one process per page); a run's memory is capped by prlimit.
    return 0;
  }

  kill(): void {
    this.done = true;
    this.abort.abort(new Error('killed'));
    this.endWorker(new Error('killed'));
  }

  async close(): Promise<void> {
    this.done = true;
    this.abort.abort(new Error('closed'));
    this.endWorker(new Error('closed'));
  }

  private async recognize(job: RecognizeJob): Promise<TesseractResult> {
    const args = [job.image, job.outputBase, '-l', job.language, '--psm', String(job.psm), '--dpi', String(Math.round(job.dpi))];
    // The text-only PDF: Tesseract's glyphless font, text render mode 3 (invisible), no page image.
    if (job.outputs.includes('pdf')) args.push('-c', 'textonly_pdf=1');
    args.push(...job.outputs);
    const result = await this.tesseract(args);
    this.check(result, job.language);
    const files: Partial<Record<'pdf' | 'hocr' | 'txt', string>> = {};
    for (const output of job.outputs) {
      const file = `${job.outputBase}.${output}`;
      try {
        await access(file);
      } catch {
        throw new TesseractError('failed', `Tesseract wrote no ${output} output for the page.`, { detail: result.stderr.slice(-4000) });
      }
      files[output] = file;
    }
    return { kind: 'recognize', files };
  }

  private async orientation(image: string, dpi: number): Promise<OrientationResult> {
    const result = await this.tesseract([image, 'stdout', '--psm', '0', '-l', 'osd', '--dpi', String(Math.round(dpi))]);
    const text = `${result.stdout.toString('utf8')}\n${result.stderr}`;
    const rotate = /Rotate:\s*(\d+)/.exec(text);
    const confidence = /Orientation confidence:\s*([\d.]+)/.exec(text);
    if (!rotate) {
      // Too little text to tell ("Too few characters"): upright is the only safe answer.
      if (/too few characters/i.test(text)) return { kind: 'orientation', rotate: 0, confidence: 0 };
      this.check(result, 'osd');
      return { kind: 'orientation', rotate: 0, confidence: 0 };
    }
    return { kind: 'orientation', rotate: Number(rotate[1]) % 360, confidence: confidence ? Number(confidence[1]) : 0 };
  }

  private check(result: RunResult, language: string): void {
    // Of several languages (eng+nld) Tesseract skips one it cannot load and exits 0: a language
    // asked for and missing is still a refusal, not a quietly poorer result.
    const languageMissing = /Failed loading language|Error opening data file/i.test(result.stderr);
    if (result.exitCode === 0 && !languageMissing) return;
    if (languageMissing) {
      // Tesseract names the one it could not load ("Failed loading language 'nld'"); of several, that one.
      const missing = /Failed loading language '([^']+)'/.exec(result.stderr)?.[1] ?? language.split('+')[0]!;
      const packageName = `tesseract-ocr-${missing.toLowerCase().replace(/_/g, '-')}`;
      throw new TesseractError('languageMissing', `The Tesseract language data "${missing}" is not installed (Debian package ${packageName}).`, {
        detail: result.stderr.slice(-4000),
      });
    }
    throw new TesseractError('failed', `Tesseract could not read the page image (exit ${result.exitCode ?? result.signal}).`, { detail: result.stderr.slice(-4000) });
  }

  private async tesseract(args: string[]): Promise<RunResult> {
    const env: NodeJS.ProcessEnv = { ...this.options.env, OMP_THREAD_LIMIT: '1' };
    if (this.options.tessdata) env.TESSDATA_PREFIX = this.options.tessdata;
    try {
      // The pool's time limit kills the run (kill() aborts it); prlimit caps its memory.
      return await run(this.options.executable, args, {
        env,
        signal: this.abort.signal,
        maxOutputBytes: 256 * 1024,
        maxMemoryBytes: this.options.memoryCapBytes,
        memorySetting: 'engines.tesseract.memoryLimit',
      });
    } catch (error) {
      if (error instanceof RunError && error.kind === 'aborted') throw new WorkerDiedError('Tesseract run killed', { cause: error });
      if (error instanceof RunError) throw new TesseractError('notFound', `Tesseract cannot be started: ${error.message} (engines.tesseract.executable).`, { cause: error });
      throw error;
    }
  }
}

/** Whether `worker` can start: the executable answers. */
export async function startTesseractWorker(options: TesseractWorkerOptions): Promise<TesseractWorker> {
  const worker = new TesseractWorker(options);
  await worker.ping();
  return worker;
}
