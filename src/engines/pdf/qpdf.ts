import { RunError, run } from '../process/run.js';
import type { RunResult } from '../process/run.js';
import type { PdfStructureTool } from '../contracts.js';
import type { ToolGate } from '../pool/tool-gate.js';
import { PdfEngineError } from './errors.js';
import { rm, writeFile } from 'node:fs/promises';

/**
 * Runs qpdf and turns its failures into `PdfEngineError`s.
 *
 * qpdf's exit status: 0 success, 2 error, 3 success with warnings (a damaged file it repaired).
 * Passwords go through `--password-file=-` and stdin (qpdf 10.2+ reads "-" as stdin and takes the
 * first line, without its line end; spaces are kept), never through argv.
 */

export interface QpdfRunnerOptions {
  /**
   * The qpdf binary. The bare name "qpdf" stands for `engines.qpdf.executable`, and every run is capped
   * at `engines.qpdf.maxMemory` (engines/process/tools.ts): a run that hits the cap rejects with
   * `MemoryLimitError`, never with a "damaged PDF" (qpdf reports allocations that failed as damage).
   */
  qpdfPath: string;
  /** Per-invocation timeout. */
  timeoutMs: number;
  /**
   * The concurrency bound and queue shared by every qpdf run of the server (process/tool-gate.ts);
   * the wiring's one runner has it. Without it (a runner of a test) runs are not bounded.
   */
  gate?: ToolGate;
}

export interface QpdfCall {
  /** Supplied as the document password; `undefined` and "" both mean "no password". */
  password?: string;
  /** Bound of stdout; exceeding it is an `outputTooLarge` error unless `allowTruncated`. */
  maxOutputBytes?: number;
  allowTruncated?: boolean;
  signal?: AbortSignal;
  /** Epoch milliseconds by which the whole operation must be done; the invocation gets what is left (at most `timeoutMs`). */
  deadline?: number;
}

export interface QpdfResult {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
  /** Exit status 3: qpdf recovered from damage (the warnings are in stderr). */
  warnings: boolean;
  truncated: boolean;
  durationMs: number;
}

/** qpdf's message when the encryption dictionary names a handler other than /Standard. */
export const UNSUPPORTED_FILTER = /unsupported encryption filter/i;
const INVALID_PASSWORD = /invalid password/i;
const FILE_UNREADABLE = /: open .*(No such file|Permission denied|Is a directory)/i;

/** The password-file protocol carries one line: a password with a line break cannot be passed. */
export function passableAsLine(password: string): boolean {
  return !/[\n\r]/.test(password);
}

export class QpdfRunner implements PdfStructureTool {
  constructor(readonly options: QpdfRunnerOptions) {}

  /** Runs qpdf; exit 0 and 3 resolve, everything else is classified and thrown. */
  async run(args: readonly string[], call: QpdfCall = {}): Promise<QpdfResult> {
    const result = await this.raw(args, call);
    if (result.exitCode === 0 || result.exitCode === 3) {
      if (result.stdoutTruncated && !call.allowTruncated) {
        throw new PdfEngineError('outputTooLarge', `qpdf output exceeded ${call.maxOutputBytes ?? 0} bytes`, { detail: result.stderr });
      }
      return {
        exitCode: result.exitCode,
        stdout: result.stdout,
        stderr: result.stderr,
        warnings: result.exitCode === 3,
        truncated: result.stdoutTruncated,
        durationMs: result.durationMs,
      };
    }
    throw classifyFailure(result, call.password);
  }

  /**
   * Runs qpdf with secrets (passwords other than the input's) in `file` instead of argv, which any
   * local user can read from /proc/<pid>/cmdline: the file is written with mode 0600, `args` refer
   * to it (`@file`, `--job-json-file=file`), and it is removed when qpdf is done.
   */
  async runWithSecretFile(file: string, content: string, args: readonly string[], call: QpdfCall = {}): Promise<QpdfResult> {
    await writeFile(file, content, { mode: 0o600 });
    try {
      return await this.run(args, call);
    } finally {
      await rm(file, { force: true });
    }
  }

  /** Runs qpdf and returns whatever happened, except timeouts and missing binaries (thrown). */
  async raw(args: readonly string[], call: QpdfCall = {}): Promise<RunResult & { exitCode: number }> {
    const gate = this.options.gate;
    return gate ? gate.run(() => this.runOnce(args, call)) : this.runOnce(args, call);
  }

  private async runOnce(args: readonly string[], call: QpdfCall): Promise<RunResult & { exitCode: number }> {
    const password = call.password ?? '';
    if (!passableAsLine(password)) {
      throw new PdfEngineError('passwordWrong', 'The password contains a line break, which no PDF password this server can pass to qpdf does.');
    }
    const timeoutMs = call.deadline === undefined ? this.options.timeoutMs : Math.min(this.options.timeoutMs, call.deadline - Date.now());
    if (timeoutMs <= 0) throw new PdfEngineError('timeout', 'The PDF operation ran out of time');
    let result: RunResult;
    try {
      result = await run(this.options.qpdfPath, ['--password-file=-', ...args], {
        stdin: password,
        timeoutMs,
        maxOutputBytes: call.maxOutputBytes ?? 1024 * 1024,
        ...(call.signal === undefined ? {} : { signal: call.signal }),
      });
    } catch (error) {
      if (error instanceof RunError && (error.kind === 'notFound' || error.kind === 'notExecutable' || error.kind === 'spawnFailed')) {
        throw new PdfEngineError('toolMissing', `qpdf cannot be started: ${error.message}`, { cause: error });
      }
      throw error;
    }
    if (result.timedOut) {
      throw new PdfEngineError('timeout', `qpdf did not finish within ${timeoutMs} ms`, { detail: result.stderr });
    }
    return { ...result, exitCode: result.exitCode ?? -1 };
  }
}

/** What a failed qpdf run means for the caller. */
export function classifyFailure(result: { exitCode: number; stderr: string; signal?: NodeJS.Signals | null }, password?: string): PdfEngineError {
  const stderr = result.stderr;
  const detail = stderr.slice(-4000);
  if (INVALID_PASSWORD.test(stderr)) {
    return password
      ? new PdfEngineError('passwordWrong', 'The password does not open the PDF.', { detail })
      : new PdfEngineError('passwordRequired', 'The PDF is protected by an open password.', { detail });
  }
  if (UNSUPPORTED_FILTER.test(stderr)) {
    return new PdfEngineError('unsupportedEncryption', 'The PDF uses an encryption handler qpdf does not support.', { detail });
  }
  if (FILE_UNREADABLE.test(stderr)) return new PdfEngineError('fileUnreadable', 'The file cannot be read.', { detail });
  if (result.exitCode === 2) return new PdfEngineError('invalidPdf', 'The file is not a PDF or is damaged beyond repair.', { detail });
  return new PdfEngineError('toolFailed', `qpdf failed (exit ${result.exitCode}${result.signal ? `, ${result.signal}` : ''})`, { detail });
}
