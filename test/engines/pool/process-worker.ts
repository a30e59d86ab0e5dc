import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WorkerDiedError, type PoolWorker, type WorkerFactory } from '../../../src/engines/pool/worker.js';

/**
 * A real process-based `PoolWorker` for the WorkerPool tests: a Node child (`child.mjs`) that leads
 * its own process group and speaks JSON lines over stdin/stdout.
 */

export type Job =
  | { op: 'echo'; value: unknown }
  /** Answers after `ms`: a hang from the pool's point of view. */
  | { op: 'sleep'; ms: number }
  /** Dies mid-job: `process.exit(1)`, or SIGKILL to itself with `signal`; with `onlyPid`, only that child dies (others answer). */
  | { op: 'exit'; signal?: boolean; onlyPid?: number }
  /** Answers with a job error; the worker lives on. */
  | { op: 'fail'; message?: string }
  /** Keeps `mb` MiB of touched memory alive. */
  | { op: 'grow'; mb: number }
  /** Adds `mb` MiB of touched memory every `ms` and never answers. */
  | { op: 'grow-forever'; mb: number; ms: number }
  /** Starts `sleep 1000` in the worker's process group; answers its pid. */
  | { op: 'spawn-grandchild' };

export interface JobResult {
  /** The child that ran the job. */
  pid: number;
  value?: unknown;
  grandchild?: number;
}

/** The job's own failure, as the child reported it. */
export class JobFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobFailedError';
  }
}

export interface ProcessWorkerOptions {
  /** The child exits (code 3) before it reports ready. */
  failStart?: boolean;
  /** The child waits this long before it reports ready. */
  startDelayMs?: number;
  /** The child never answers pings (jobs still work). */
  ignorePings?: boolean;
  /** The child stays alive this long after its stdin closed (a slow graceful close). */
  lingerOnCloseMs?: number;
  /** How long `close()` waits for a graceful exit before it kills the group. */
  closeTimeoutMs?: number;
  /** How long `start()` waits for the ready message. */
  startTimeoutMs?: number;
  /** (Factory only) the factory throws synchronously instead of returning a promise. */
  throwSync?: boolean;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./child.mjs', import.meta.url));

/** Workers whose child has not exited yet, for cleanup after a failed test. */
export const liveWorkers = new Set<ProcessWorker>();

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class ProcessWorker implements PoolWorker<Job, JobResult> {
  readonly ended: Promise<Error>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private exited = false;
  private resolveEnded!: (reason: Error) => void;

  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    private readonly options: ProcessWorkerOptions,
  ) {
    this.ended = new Promise<Error>((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  /** Spawns a child and resolves once it reported ready; rejects when it exits (or stalls) first. */
  static start(options: ProcessWorkerOptions = {}): Promise<ProcessWorker> {
    const args = [CHILD_SCRIPT];
    if (options.failStart) args.push('--fail-start');
    if (options.startDelayMs) args.push(`--start-delay=${options.startDelayMs}`);
    if (options.ignorePings) args.push('--ignore-pings');
    if (options.lingerOnCloseMs) args.push(`--linger-on-close=${options.lingerOnCloseMs}`);
    const child = spawn(process.execPath, args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const pid = child.pid;
    if (pid === undefined) {
      return new Promise((_, reject) => child.once('error', (error) => reject(error)));
    }
    const worker = new ProcessWorker(child, pid, options);
    liveWorkers.add(worker);
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    child.stdin!.on('error', () => undefined); // EPIPE after the child died: `exit` reports it.

    return new Promise<ProcessWorker>((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => {
        if (ready) return;
        worker.kill();
        reject(new Error(`child ${pid} did not report ready within ${options.startTimeoutMs ?? 10_000} ms`));
      }, options.startTimeoutMs ?? 10_000);
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        let message: { type?: string; id?: number; ok?: boolean; result?: unknown; error?: string };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          return;
        }
        if (message.type === 'ready') {
          ready = true;
          clearTimeout(timer);
          resolve(worker);
          return;
        }
        if (message.id === undefined) return;
        const pending = worker.pending.get(message.id);
        if (!pending) return;
        worker.pending.delete(message.id);
        if (message.ok) pending.resolve(message.result);
        else pending.reject(new JobFailedError(message.error ?? 'job failed'));
      });
      child.once('exit', (code, signal) => {
        worker.exited = true;
        liveWorkers.delete(worker);
        // Whatever the leader left behind in its group goes with it.
        killGroup(pid);
        const reason = new Error(`child ${pid} exited (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim()}` : ''}`);
        for (const pending of worker.pending.values()) pending.reject(new WorkerDiedError(reason.message, { cause: reason }));
        worker.pending.clear();
        if (!ready) {
          clearTimeout(timer);
          reject(reason);
        }
        worker.resolveEnded(reason);
      });
    });
  }

  run(job: Job): Promise<JobResult> {
    return this.request({ type: 'job', job }) as Promise<JobResult>;
  }

  async ping(): Promise<void> {
    await this.request({ type: 'ping' });
  }

  /** Resident memory of every process in the worker's group (from /proc/<pid>/statm). */
  async memoryBytes(): Promise<number> {
    let total = 0;
    for (const pid of await groupMembers(this.pid)) {
      try {
        const statm = await fs.promises.readFile(`/proc/${pid}/statm`, 'utf8');
        total += Number(statm.split(' ')[1] ?? 0) * pageSize();
      } catch {
        // Gone meanwhile.
      }
    }
    return total;
  }

  kill(): void {
    killGroup(this.pid);
  }

  async close(): Promise<void> {
    if (!this.exited) {
      this.child.stdin!.end();
      let timer: NodeJS.Timeout | undefined;
      const graceful = await Promise.race([
        this.ended.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), this.options.closeTimeoutMs ?? 1000);
        }),
      ]);
      clearTimeout(timer);
      if (!graceful) this.kill();
    }
    await this.ended;
  }

  private request(message: { type: 'job'; job: Job } | { type: 'ping' }): Promise<unknown> {
    if (this.exited) return Promise.reject(new WorkerDiedError(`child ${this.pid} is not running`));
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin!.write(`${JSON.stringify({ id, ...message })}\n`);
    });
  }
}

/** SIGKILL to a whole process group; a group that is already gone is fine. */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/** The pids of the live processes (zombies left out) whose process group is `pgid`. */
export async function groupMembers(pgid: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await fs.promises.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await fs.promises.readFile(`/proc/${entry}/stat`, 'utf8');
      // After the parenthesised command name: state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return members;
}

/** True when the process no longer runs: gone entirely, or a zombie waiting for a parent that does not reap. */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

let cachedPageSize: number | undefined;
function pageSize(): number {
  if (cachedPageSize === undefined) {
    try {
      cachedPageSize = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim()) || 4096;
    } catch {
      cachedPageSize = 4096;
    }
  }
  return cachedPageSize;
}

/**
 * A `WorkerFactory` that starts `ProcessWorker`s and counts its calls. `optionsFor` picks the options
 * of each call (slot, and the 0-based number of the call for that slot / overall).
 */
export class ProcessWorkerFactory {
  /** Factory calls, failed ones included. */
  calls = 0;
  readonly callsBySlot = new Map<number, number>();
  /** Workers that started, in order. */
  readonly workers: ProcessWorker[] = [];
  /** The latest worker started for each slot. */
  readonly bySlot = new Map<number, ProcessWorker>();

  constructor(public optionsFor: (slot: number, slotCall: number, call: number) => ProcessWorkerOptions = () => ({})) {}

  /** Times of the factory calls, per slot (ms since the epoch). */
  readonly callTimes = new Map<number, number[]>();

  /** Not `async`: with `throwSync` it throws before returning a promise, as a careless engine factory might. */
  readonly create: WorkerFactory<Job, JobResult> = (slot) => {
    const slotCall = this.callsBySlot.get(slot) ?? 0;
    this.callsBySlot.set(slot, slotCall + 1);
    this.callTimes.set(slot, [...(this.callTimes.get(slot) ?? []), Date.now()]);
    const call = this.calls++;
    const options = this.optionsFor(slot, slotCall, call);
    if (options.throwSync) throw new Error(`factory call ${call} for slot ${slot} threw`);
    return ProcessWorker.start(options).then((worker) => {
      this.workers.push(worker);
      this.bySlot.set(slot, worker);
      return worker;
    });
  };

  callsFor(slot: number): number {
    return this.callsBySlot.get(slot) ?? 0;
  }

  /** Pids of the workers that are still running. */
  livePids(): number[] {
    return this.workers.map((w) => w.pid).filter((pid) => !isGone(pid));
  }
}
