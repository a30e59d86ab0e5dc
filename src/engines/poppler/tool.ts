import path from 'node:path';
import { RunError, run, type RunOptions, type RunResult } from '../process/run.js';
import type { ToolGate } from '../pool/tool-gate.js';
import { PopplerError } from './errors.js';

/** The limits every poppler invocation runs under: the call's deadline and the per-tool timeout. */
export interface ToolLimits {
  /** Epoch milliseconds by which the whole call must be done. */
  deadline: number;
  /** Most milliseconds one tool run may take. */
  toolTimeoutMs: number;
  /** The server's one configured poppler (folder, concurrency bound); absent: found on PATH, unbounded (engine tests). */
  poppler?: PopplerRunner;
}

/**
 * poppler as the server runs it: the tools from `engines.poppler.directory` (empty: PATH), every run
 * under the one gate of the tool (process/tool-gate.ts: concurrency, bounded queue → 429). Built once
 * by the wiring and handed to the operations, which pass it in `ToolLimits`.
 */
export class PopplerRunner {
  constructor(private readonly options: { directory: string; gate?: ToolGate }) {}

  /** The executable of `tool` (pdftotext, pdftoppm, ...). */
  executable(tool: string): string {
    return this.options.directory ? path.join(this.options.directory, tool) : tool;
  }

  run(tool: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
    const start = () => run(this.executable(tool), args, options);
    return this.options.gate ? this.options.gate.run(start) : start();
  }
}

export interface ToolRun extends ToolLimits {
  /** Bytes of stdout kept; exceeding them is `tooLarge`. Default 1 MiB. */
  maxOutputBytes?: number;
  cwd?: string;
}

/**
 * Runs a poppler tool (pdftotext, pdfimages, pdftoppm, pdftocairo, pdfinfo) as a separate process.
 * Inputs are always unencrypted scratch copies, so no password ever reaches argv. `run` finds the
 * tool in `engines.poppler.directory` and caps it at `engines.poppler.maxMemory` (process/tools.ts).
 * poppler's exit codes: 0 ok, 1 the PDF cannot be opened, 2 the output cannot be written,
 * 3 permissions, 99 other.
 * Its "Syntax Warning/Error" lines on stderr are diagnostics of a damaged file it still read;
 * callers that report them (transcribe) get stderr in the result.
 */
export async function runTool(tool: string, args: readonly string[], limits: ToolRun): Promise<RunResult> {
  const timeoutMs = Math.min(limits.toolTimeoutMs, limits.deadline - Date.now());
  if (timeoutMs <= 0) throw new PopplerError('timeout', `The call ran out of time before ${tool} could start.`);
  let result: RunResult;
  try {
    result = await (limits.poppler ? limits.poppler.run.bind(limits.poppler) : run)(tool, args, {
      timeoutMs,
      maxOutputBytes: limits.maxOutputBytes ?? 1024 * 1024,
      ...(limits.cwd === undefined ? {} : { cwd: limits.cwd }),
    });
  } catch (error) {
    // A cancelled call (RunError 'aborted') and a memory cap (MemoryLimitError) pass unchanged.
    if (error instanceof RunError && error.kind !== 'aborted') throw new PopplerError('toolMissing', `${tool} cannot be started: ${error.message}`, { cause: error });
    throw error;
  }
  if (result.timedOut) throw new PopplerError('timeout', `${tool} did not finish within ${timeoutMs} ms.`, { detail: result.stderr });
  if (result.stdoutTruncated) {
    throw new PopplerError('tooLarge', `The output of ${tool} exceeds ${limits.maxOutputBytes ?? 1024 * 1024} bytes.`, { detail: result.stderr });
  }
  if (result.exitCode === 1) {
    throw new PopplerError('damaged', `${tool} cannot open the PDF (${lastLine(result.stderr) || 'damaged or not a PDF'}).`, { detail: result.stderr });
  }
  if (result.exitCode !== 0) {
    throw new PopplerError('failed', `${tool} failed (exit ${result.exitCode ?? result.signal})${lastLine(result.stderr) ? `: ${lastLine(result.stderr)}` : ''}.`, {
      detail: result.stderr,
    });
  }
  return result;
}

/** The last diagnostic line, without file paths (they name the server's scratch directory). */
function lastLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const last = lines[lines.length - 1] ?? '';
  return last.replace(/\/[^\s'"]+/g, '<file>').slice(0, 200);
}

/** poppler's diagnostics of a file it still read ("Syntax Warning: …", "Syntax Error (123): …", "Internal Error: …"). */
export function diagnostics(stderr: string): { level: 'warning' | 'error'; message: string }[] {
  const out: { level: 'warning' | 'error'; message: string }[] = [];
  for (const raw of stderr.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const level = /^(Syntax Warning|Warning)/i.test(line) ? 'warning' : 'error';
    out.push({ level, message: line.replace(/\/[^\s'"]+/g, '<file>').slice(0, 500) });
  }
  return out;
}
