import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ambientCancellation } from '../../core/cancellation.js';
import { MemoryLimitError, reportsAllocationFailure } from './memory-limit.js';
import { parentDeathPrefix, withOwner } from './parent-death.js';
import { resolveCommand, type ToolName } from './tools.js';
import { EngineError } from '../engine-error.js';

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
 * - Every child of a known tool (see tools.ts) has a memory cap: util-linux `prlimit --as=N` sets
 *   RLIMIT_AS and then execs the tool (same pid, no extra process). A child that hits it fails with
 *   `MemoryLimitError`, whatever the tool made of its failed allocation (exit 2, abort, a "repaired"
 *   exit 3, or pdftoppm's exit 0 with a blank page). The same prlimit sets a CPU-time limit of twice
 *   the timeout as a backstop: a child orphaned by a server that died without cleanup still ends.
 * - A known tool also stops when the call it works for is cancelled (core/cancellation.ts: the
 *   HTTP client went away), and every child still running is killed when this process exits.
 * - Every child dies with this process, however it dies (`kill -9`, a heap abort: no exit handler
 *   runs): util-linux `setpriv --pdeathsig KILL` sets PR_SET_PDEATHSIG and execs prlimit, which execs
 *   the tool, so the chain collapses into one pid; setpriv's exec costs ~0.9 ms per spawn (100 ×
 *   `qpdf --version`: 6.8 ms each against 5.9 ms before). See parent-death.ts.
 *   The child's environment names its owner (`QUIRE_ENGINE_OWNER`) for the start-up sweep.
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
  /**
   * Address-space cap (RLIMIT_AS) in bytes; 0: none. Default: the configured cap of the tool the
   * command is (tools.ts), none for other commands.
   */
  maxMemoryBytes?: number;
  /** The configuration key of an explicit `maxMemoryBytes`, named when the child hits it. */
  memorySetting?: string;
  /** Which tool this is when its name does not say (the administrator's print command). */
  tool?: ToolName;
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
export class RunError extends EngineError<RunErrorKind> {
  readonly command: string;

  constructor(kind: RunErrorKind, command: string, message: string, options?: { cause?: unknown }) {
    super(kind, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.command = command;
  }
}

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** util-linux prlimit (always present on Debian); without it children run uncapped. */
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find((file) => existsSync(file));

/** Whether children can be given memory caps on this machine (for a warning at start). */
export function memoryCapsAvailable(): boolean {
  return PRLIMIT !== undefined;
}

/** The wrappers' own message (prlimit, setpriv) when they cannot exec the tool (exit 126/127). */
const WRAPPER_EXEC_FAILED = /^(?:prlimit|setpriv): failed to execute [^\n]*?: ([^\n]*)$/m;

/** Process groups of children still running, killed when this process exits (see `trackGroup`). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Children lead their own process groups, so they would outlive a server that exits (or a test
 * worker that ends) with work in flight. Synchronous: 'exit' handlers cannot wait.
 */
function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) killGroup(group);
  });
}

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
  const { executable, tool } = resolveCommand(command, options.tool);
  const memoryCap = PRLIMIT === undefined ? 0 : (options.maxMemoryBytes ?? tool?.maxMemoryBytes ?? 0);
  const signal = combined(options.signal, tool?.cancellable ? ambientCancellation() : undefined);
  const name = displayName(tool?.name, executable);

  return new Promise<RunResult>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new RunError('aborted', command, `${command}: aborted before start`, { cause: signal.reason }));
      return;
    }

    const limits: string[] = [];
    // No core files: a tool that aborts on a failed allocation would otherwise dump gigabytes.
    if (memoryCap > 0) limits.push(`--as=${Math.floor(memoryCap)}`, '--core=0');
    if (memoryCap > 0 && options.timeoutMs !== undefined && options.timeoutMs > 0) {
      // Seconds of CPU; soft:hard, SIGXCPU then SIGKILL. Never reached while the timeout works.
      const cpu = Math.ceil((options.timeoutMs * 2) / 1000) + 10;
      limits.push(`--cpu=${cpu}:${cpu + 5}`);
    }
    // setpriv first: the parent-death signal is set before anything else runs, and prlimit's cap then
    // applies to the tool alone (a cap too small to load anything is still reported as the cap).
    const wrappers = [...parentDeathPrefix(), ...(limits.length > 0 ? [PRLIMIT!, ...limits, '--'] : [])];
    const [program, ...argv] = [...wrappers, executable, ...args];
    const env = withOwner(options.env);
    const child = spawn(program!, argv, {
      detached: true,
      shell: false,
      windowsHide: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(env === undefined ? {} : { env }),
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
      signal?.removeEventListener('abort', onAbort);
      if (child.pid !== undefined) liveGroups.delete(child.pid);
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
    trackGroup(child.pid);

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
    signal?.addEventListener('abort', onAbort, { once: true });

    child.on('exit', () => {
      // Grandchildren still holding our pipes would keep 'close' from firing until they end.
      if (killGroupOnExit) killGroup(child.pid);
    });

    child.on('close', (exitCode: number | null, sig: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      cleanup();
      if (aborted) {
        reject(new RunError('aborted', command, `${command}: aborted`, { cause: signal?.reason }));
        return;
      }
      const err = stderr.buffer().toString('utf8');
      const out = stdout.buffer();
      if (wrappers.length > 0 && (exitCode === 126 || exitCode === 127)) {
        const failed = WRAPPER_EXEC_FAILED.exec(err);
        if (failed) {
          const reason = failed[1] ?? '';
          if (/no such file/i.test(reason)) return reject(new RunError('notFound', command, `command not found: ${executable} (ENOENT)`));
          if (/permission denied/i.test(reason)) return reject(new RunError('notExecutable', command, `command not executable: ${executable} (EACCES)`));
          if (!reportsAllocationFailure(reason)) return reject(new RunError('spawnFailed', command, `could not start: ${executable} (${reason})`));
        }
      }
      if (memoryCap > 0 && !timedOut && ranOutOfMemory(exitCode, sig, err, tool?.name === 'ghostscript' ? out : undefined)) {
        reject(new MemoryLimitError(name, memoryCap, options.maxMemoryBytes === undefined && tool ? tool.setting : (options.memorySetting ?? 'maxMemoryBytes'), err.slice(-4000)));
        return;
      }
      resolve({
        exitCode,
        signal: sig,
        stdout: out,
        stderr: err,
        timedOut: timedOut || sig === 'SIGXCPU',
        truncated: stdout.truncated || stderr.truncated,
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      });
    });
  });
}

/**
 * Whether a capped child failed for lack of memory: its diagnostics say an allocation failed. stderr
 * counts whatever the exit (pdftoppm exits 0 after "Out of memory", qpdf exits 3 after "error
 * reading object: std::bad_alloc"); `errorReport` is Ghostscript's stdout, where it writes its error
 * report, and counts only after a failure (a successful run's stdout may hold the document's text).
 */
function ranOutOfMemory(exitCode: number | null, signal: NodeJS.Signals | null, stderr: string, errorReport: Buffer | undefined): boolean {
  if (reportsAllocationFailure(stderr)) return true;
  if ((exitCode === 0 && signal === null) || errorReport === undefined) return false;
  return reportsAllocationFailure(errorReport.subarray(-64 * 1024).toString('latin1'));
}

function displayName(tool: ToolName | undefined, executable: string): string {
  if (tool === 'print') return 'The print command';
  if (tool === 'ghostscript') return 'Ghostscript';
  if (tool === 'libreoffice') return 'LibreOffice';
  return executable.slice(executable.lastIndexOf('/') + 1);
}

/** One signal that aborts when either does. */
function combined(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a) return b;
  if (!b || a === b) return a;
  return AbortSignal.any([a, b]);
}
