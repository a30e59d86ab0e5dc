import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { WorkerDiedError, type PoolWorker } from '../pool/worker.js';
import { parentDeathPrefix, withOwner } from '../process/parent-death.js';
import { EngineError } from '../engine-error.js';

/**
 * One warm LibreOffice: `resources/uno_worker.py` under Debian's `/usr/bin/python3` (the only Python
 * here with the `uno` module), which starts soffice with its own user profile, connects over a UNO
 * pipe and then converts one document per request line. Python and soffice share one process group
 * that this worker leads, so `kill()` ends both and any helper soffice started.
 *
 * Neither outlives the server: Python runs under `setpriv --pdeathsig KILL` (setpriv and the
 * network namespace launcher exec, so Python is our direct child) and sets the signal again itself,
 * and it starts soffice with the same signal (see parent-death.ts and uno_worker.py). Without that,
 * a server killed under a long conversion left Python and soffice running: Python notices its
 * closed stdin only between jobs.
 */

export interface UnoJob {
  input: string;
  output: string;
  /** PDF export options (LibreOffice's FilterData: PageRange, Quality, EmbedStandardFonts, ...). */
  filterData: Record<string, string | number | boolean>;
  /** Opens protected Office files. */
  password?: string;
  /** LibreOffice import filter and its options, for inputs it must not sniff (CSV, encoded text). */
  inputFilter?: string;
  inputFilterOptions?: string;
}

export interface UnoResult {
  pages: number | null;
}

/** LibreOffice could open or export the document (a job failure, the worker lives on). */
export type UnoJobErrorKind = 'load' | 'export' | 'password';

export class UnoJobError extends EngineError<UnoJobErrorKind> {}

export interface UnoWorkerOptions {
  python: string;
  script: string;
  soffice: string;
  /** A directory of its own: the user profile of this worker's soffice. */
  profileDir: string;
  env: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  /** argv prefix the worker runs under (the network namespace, see isolation.ts); empty: none. */
  launcher?: readonly string[];
  /** argv prefix soffice runs under (the Landlock sandbox); empty: none. */
  sandbox?: readonly string[];
}

interface Reply {
  id?: number;
  ok?: boolean;
  ready?: boolean;
  sofficePid?: number;
  kind?: string;
  error?: string;
  pages?: number | null;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

export class UnoWorker implements PoolWorker<UnoJob, UnoResult> {
  readonly ended: Promise<Error>;
  private sofficePid = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  private stderrTail = '';
  private dead?: Error;
  private endWorker!: (reason: Error) => void;

  private constructor(private readonly child: Child) {
    this.ended = new Promise<Error>((resolve) => (this.endWorker = resolve));
  }

  static async start(options: UnoWorkerOptions, pipeName: string): Promise<UnoWorker> {
    const profileUrl = `file://${options.profileDir}`;
    // The launcher and setpriv exec the Python script (same pid): it stays the leader of the process
    // group. spawn() runs on the main thread (libuv forks from the calling thread), which the
    // parent-death signal is tied to.
    const [command, ...args] = [...parentDeathPrefix(), ...(options.launcher ?? []), options.python, options.script, options.soffice, profileUrl, pipeName, JSON.stringify(options.sandbox ?? [])];
    const child = spawn(command!, args, {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: withOwner(options.env) ?? process.env,
    });
    const worker = new UnoWorker(child);
    await worker.attach(options.startTimeoutMs);
    return worker;
  }

  private attach(startTimeoutMs: number): Promise<void> {
    const { child } = this;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      // Keep the last few lines for the error message of a death; soffice is chatty about javaldx.
      this.stderrTail = (this.stderrTail + text).slice(-4000);
    });
    child.stdin.on('error', () => undefined); // EPIPE after a death is reported through 'exit'
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(new Error(`LibreOffice did not start within ${startTimeoutMs} ms`));
      }, startTimeoutMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        this.die(error);
        reject(error);
      });
      // Also after the start: an exit at any time ends the worker and fails its pending job.
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const reason = new Error(`LibreOffice worker exited (${signal ?? `code ${code}`})${this.diagnostics()}`);
        this.die(reason);
        reject(reason);
      });
      const lines = createInterface({ input: child.stdout });
      lines.on('line', (line) => {
        let reply: Reply;
        try {
          reply = JSON.parse(line) as Reply;
        } catch {
          return; // not a protocol line
        }
        if (reply.ready) {
          clearTimeout(timer);
          this.sofficePid = reply.sofficePid ?? 0;
          resolve();
          return;
        }
        if (reply.id === undefined) return;
        const waiter = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        waiter?.resolve(reply);
      });
    });
  }

  async run(job: UnoJob): Promise<UnoResult> {
    const reply = await this.request({ ...job });
    if (reply.ok) return { pages: reply.pages ?? null };
    if (reply.kind === 'crash') throw new WorkerDiedError(`LibreOffice lost its connection: ${reply.error ?? ''}`);
    throw new UnoJobError(reply.kind === 'export' || reply.kind === 'password' ? reply.kind : 'load', reply.error ?? 'LibreOffice failed');
  }

  async ping(): Promise<void> {
    const reply = await this.request({ ping: true });
    if (!reply.ok) throw new Error('LibreOffice did not answer the health check');
  }

  async memoryBytes(): Promise<number> {
    const pages = await Promise.all([this.child.pid, this.sofficePid].map((pid) => residentPages(pid)));
    return pages.reduce((sum, n) => sum + n, 0) * 4096;
  }

  kill(): void {
    const pid = this.child.pid;
    if (pid === undefined || this.child.exitCode !== null || this.child.signalCode !== null) {
      this.die(new Error('LibreOffice worker killed'));
      return;
    }
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  async close(): Promise<void> {
    if (this.dead) return;
    // A closed stdin ends the Python loop, which terminates soffice; kill what is left after a grace period.
    this.child.stdin.end();
    const timer = setTimeout(() => this.kill(), 5000);
    await this.ended;
    clearTimeout(timer);
    this.kill(); // soffice may linger in the group after Python's exit
  }

  private request(message: Record<string, unknown>): Promise<Reply> {
    if (this.dead) return Promise.reject(new WorkerDiedError(this.dead.message));
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ ...message, id })}\n`);
    });
  }

  private die(reason: Error): void {
    if (this.dead) return;
    this.dead = reason;
    for (const waiter of this.pending.values()) waiter.reject(new WorkerDiedError(reason.message, { cause: reason }));
    this.pending.clear();
    this.endWorker(reason);
    // Whatever soffice left behind in the group goes too.
    if (this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // nothing left
      }
    }
  }

  private diagnostics(): string {
    const lines = this.stderrTail.split('\n').filter((l) => l.trim() !== '' && !/javaldx/.test(l));
    return lines.length > 0 ? `: ${lines.slice(-3).join(' | ')}` : '';
  }
}

async function residentPages(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  try {
    const statm = await readFile(`/proc/${pid}/statm`, 'utf8');
    return Number(statm.split(' ')[1] ?? 0);
  } catch {
    return 0;
  }
}
