import { spawn } from 'node:child_process';

/**
 * Runs an external tool as a child process, the one way engines start processes.
 *
 * - No shell: `command` and `args` go to execve as they are, so nothing in them is interpreted.
 * - The child leads its own process group (`detached: true`), so that a timeout, an abort, or the
 *   end of the call can kill everything it started (SIGKILL to the negative pid), not only the
 *   direct child.
 * - Output is captured up to `maxOutputBytes` per stream; the excess is read and dropped (the child
 *   never blocks on a full pipe) and the result says so.
 * - Secrets go through `stdin`, never argv: any local user can read another process's argv from
 *   /proc/<pid>/cmdline.
 */

export interface RunOptions {
  /** Kill the whole process group after this many milliseconds; the result then has `timedOut: true`. 0 or absent: no limit. */
  timeoutMs?: number;
  /** Bytes of stdout and of stderr kept (each); the rest is dropped and `truncated` set. Default 1 MiB. */
  maxOutputBytes?: number;
  /** Written to the child's stdin, which is then closed. Without it stdin is /dev/null. */
  stdin?: string | Buffer;
  /** Aborting kills the process group and rejects the call with a `RunError` of kind `aborted`. */
  signal?: AbortSignal;
  cwd?: string;
  /** The child's whole environment; default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /**
   * SIGKILL what is left of the process group once the direct child has exited (default true), so
   * that a tool's stray background children cannot outlive the call or hold its pipes open.
   */
  killGroupOnExit?: boolean;
}

export interface RunResult {
  /** Exit status, or null when the child was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Captured standard output (binary-safe; decode as needed). */
  stdout: Buffer;
  /** Captured standard error, decoded as UTF-8 (diagnostics only). */
  stderr: string;
  /** The timeout expired and the process group was killed. */
  timedOut: boolean;
  /** stdout or stderr exceeded `maxOutputBytes` and was cut; see also the per-stream flags. */
  truncated: boolean;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
}

export type RunErrorKind = 'notFound' | 'notExecutable' | 'spawnFailed' | 'aborted';

/** The process could not be started, or the call was aborted. A non-zero exit is not an error: see `exitCode`. */
export class RunError extends Error {
  readonly kind: RunErrorKind;
  readonly command: string;

  constructor(kind: RunErrorKind, command: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RunError';
    this.kind = kind;
    this.command = command;
  }
}

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** Collects a stream's chunks up to a byte limit and counts what it dropped. */
class BoundedSink {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (chunk.length <= room) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(chunk.subarray(0, room));
      this.kept += room;
    }
    this.truncated = true;
  }

  buffer(): Buffer {
    return Buffer.concat(this.chunks, this.kept);
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const killGroupOnExit = options.killGroupOnExit ?? true;
  const started = performance.now();

  return new Promise<RunResult>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new RunError('aborted', command, `${command}: aborted before start`, { cause: options.signal.reason }));
      return;
    }

    const child = spawn(command, args, {
      detached: true,
      shell: false,
      windowsHide: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: options.env }),
    });

    const stdout = new BoundedSink(maxOutputBytes);
    const stderr = new BoundedSink(maxOutputBytes);
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;

    const onAbort = (): void => {
      aborted = true;
      killGroup(child.pid);
    };

    const cleanup = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };

    child.on('error', (error: NodeJS.ErrnoException) => {
      // Spawn failures arrive here; after a successful spawn errors only concern kill(), which we do ourselves.
      if (settled) return;
      settled = true;
      cleanup();
      killGroup(child.pid);
      const kind: RunErrorKind = error.code === 'ENOENT' ? 'notFound' : error.code === 'EACCES' ? 'notExecutable' : 'spawnFailed';
      const what = kind === 'notFound' ? 'command not found' : kind === 'notExecutable' ? 'command not executable' : 'could not start';
      reject(new RunError(kind, command, `${what}: ${command} (${error.code ?? error.message})`, { cause: error }));
    });

    if (child.pid === undefined) return; // 'error' follows

    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

    if (child.stdin) {
      // The child may exit without reading its input (EPIPE); that is its business, not a failure of the call.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.stdin);
    }

    if (options.timeoutMs !== undefined && options.timeoutMs > 0) {
      timer = setTimeout(() => {
        timedOut = true;
        killGroup(child.pid);
      }, options.timeoutMs);
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('exit', () => {
      // Grandchildren still holding our pipes would keep 'close' from firing until they end.
      if (killGroupOnExit) killGroup(child.pid);
    });

    child.on('close', (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      cleanup();
      if (aborted) {
        reject(new RunError('aborted', command, `${command}: aborted`, { cause: options.signal?.reason }));
        return;
      }
      resolve({
        exitCode,
        signal,
        stdout: stdout.buffer(),
        stderr: stderr.buffer().toString('utf8'),
        timedOut,
        truncated: stdout.truncated || stderr.truncated,
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      });
    });
  });
}
