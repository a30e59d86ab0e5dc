import { EventEmitter } from 'node:events';
import { BoundedCache } from '../../core/bounded-cache.js';
import { ambientCancellation, withCancellation } from '../../core/cancellation.js';
import { MemoryLimitError } from '../process/memory-limit.js';
import { PoolError } from './pool-errors.js';
import { WorkerDiedError, type PoolWorker, type WorkerFactory } from './worker.js';
import type { PoolStats } from '../../core/pool-stats.js';

/**
 * The supervisor of one engine: a fixed number of warm workers, a bounded queue in front of them,
 * and the rules that keep a bad document from taking the engine down.
 *
 * - A job runs on one idle worker; when none is idle it waits in the queue; when the queue is full
 *   the call is refused at once (`busy`, with a Retry-After hint from recent job times).
 * - Each job has a time limit. When it passes, the worker is killed (its whole process group) and
 *   replaced, and the job fails with `timeout`.
 * - A worker that dies under a job is replaced and the job is retried once on another worker; when it
 *   kills that one too, it fails with `poisoned`. A job key (the document's state) that hung or
 *   crashed workers twice is refused from then on without touching a worker.
 * - Workers are recycled after `maxJobsPerWorker` jobs or when their memory passes
 *   `maxMemoryBytes`: the replacement is started first, so capacity does not drop meanwhile. Each
 *   worker draws its own job limit, up to JOB_LIMIT_JITTER below `maxJobsPerWorker` (gunicorn's
 *   max_requests_jitter): workers started together and fed evenly would otherwise all be replaced at
 *   once, every `maxJobsPerWorker` jobs, and their start-ups (2–3 s of CPU each for LibreOffice) fall on
 *   the same seconds (three nodes of one worker each: 9.2 conversions/s in that round, 14–16 in the others).
 * - While a job runs, the worker's memory is polled every `memoryCheckIntervalMs`; past
 *   `memoryLimitBytes` the worker is killed and the job fails with `MemoryLimitError` (a strike, no
 *   retry): recycling between jobs cannot stop one document that takes a worker to many GB. Polling
 *   rather than RLIMIT_AS because Chromium (V8 reserves huge address ranges) does not run under one.
 * - A job whose caller is gone (its `signal`, or the call's ambient cancellation, aborts) leaves the
 *   queue, or, when it runs, its worker is killed and replaced; no strike, the document did nothing.
 * - Idle workers are pinged every `healthIntervalMs`; one that does not answer is replaced.
 * - A worker that cannot start is retried with exponential backoff; its slot serves nothing meanwhile.
 */

export interface WorkerPoolOptions<J, R> {
  /** Engine name, for messages and metrics. */
  name: string;
  size: number;
  /** Jobs that may wait for a worker; past it calls are refused with `busy`. */
  queueLimit: number;
  /** Default time limit of a job, in milliseconds. */
  jobTimeoutMs: number;
  /** How long a job may wait in the queue before it is refused with `busy`. */
  queueTimeoutMs: number;
  /** Recycle a worker after this many jobs (0: never). */
  maxJobsPerWorker: number;
  /** Recycle a worker whose memory passed this (0: never). */
  maxMemoryBytes: number;
  /** Kill a worker whose memory passes this while it runs a job, failing the job (0 or absent: never). */
  memoryLimitBytes?: number;
  /** How often a busy worker's memory is read; default 250 ms. */
  memoryCheckIntervalMs?: number;
  /** The configuration key of `memoryLimitBytes`, for the error; default `engines.<name>.memoryLimit`. */
  memoryLimitSetting?: string;
  /** Ping idle workers this often (0: never). */
  healthIntervalMs: number;
  /** How long a ping may take. */
  pingTimeoutMs?: number;
  create: WorkerFactory<J, R>;
}

/** The tunables of a pool, as engines take them from the configuration. */
export type PoolSettings = Pick<
  WorkerPoolOptions<unknown, unknown>,
  'size' | 'queueLimit' | 'jobTimeoutMs' | 'queueTimeoutMs' | 'maxJobsPerWorker' | 'maxMemoryBytes' | 'healthIntervalMs' | 'memoryLimitBytes'
>;

export interface RunOptions {
  /** Overrides the pool's job time limit. */
  timeoutMs?: number;
  /** Identifies the input (e.g. a document state) for the hung/crashed-twice rule. */
  key?: string;
  /** Aborting withdraws the job (see the class comment); the call's ambient cancellation applies too. */
  signal?: AbortSignal;
}

export type { PoolStats };

export type JobOutcome = 'ok' | 'failed' | 'timeout' | 'crashed' | 'poisoned' | 'memory' | 'cancelled';

/** Events: `job` ({engine, outcome, durationMs, queuedMs}), `restart` ({engine, slot, reason}), `error` is never emitted. */
export interface PoolEvents {
  job: [{ engine: string; outcome: JobOutcome; durationMs: number; queuedMs: number }];
  restart: [{ engine: string; slot: number; reason: string }];
}

interface Slot<J, R> {
  index: number;
  worker?: PoolWorker<J, R>;
  busy: boolean;
  jobs: number;
  /** The current worker is recycled after this many jobs (0: never): its draw from `maxJobsPerWorker`, made when it is adopted. */
  jobLimit: number;
  /** A replacement being started (recycling or after a death). */
  starting?: Promise<void>;
  /** Set when the current worker should be replaced once it is idle. */
  retire?: string;
  /** The replacement is ready: the current worker takes no new job and is swapped once idle. */
  swapping?: boolean;
  /** The recycle epoch when the current worker was being created (see `recycleAll`). */
  epoch: number;
  /** Rejects with WorkerDiedError when the current worker ends: one reaction per worker, not per job. */
  died?: Promise<never>;
  startFailures: number;
}

interface Waiter<J, R> {
  job: J;
  options: RunOptions;
  enqueuedAt: number;
  attempts: number;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
  timer?: NodeJS.Timeout;
  /** The caller's cancellation, captured when the job was submitted (dispatch runs in other calls' contexts). */
  signal?: AbortSignal;
  /** Withdraws the job while it waits in the queue. */
  onAbort?: () => void;
}

const STRIKE_LIMIT = 2;
const MAX_START_BACKOFF_MS = 30_000;
const DEFAULT_MEMORY_CHECK_MS = 250;

export class WorkerPool<J, R> extends EventEmitter<PoolEvents> {
  private readonly slots: Slot<J, R>[];
  private readonly queue: Waiter<J, R>[] = [];
  private readonly strikes = new BoundedCache<number>(10_000);
  /** The recycle epoch each worker was created in. */
  private readonly epochs = new WeakMap<PoolWorker<J, R>, number>();
  /**
   * Recycled workers still closing (`close()` is bounded: it kills after a grace period); `close()`
   * waits for them. Killed workers are not waited for: SIGKILL is immediate, and not every worker
   * settles `ended` on `kill()`.
   */
  private readonly ending = new Set<Promise<unknown>>();
  private closed = false;
  /** Raised by `recycleAll`: workers created in an older epoch are replaced. */
  private recycleEpoch = 0;
  private recycleReason = 'recycled';
  private healthTimer?: NodeJS.Timeout;
  private readonly counters = { completed: 0, failed: 0, timeouts: 0, crashes: 0, rejected: 0, restarts: 0 };
  /** Exponential moving average of job durations, for Retry-After hints. */
  private averageJobMs = 0;
  private readonly peaks = { peakBusy: 0, peakQueued: 0 };

  constructor(private readonly options: WorkerPoolOptions<J, R>) {
    super();
    if (options.size < 1) throw new RangeError(`${options.name}: pool size must be at least 1`);
    this.slots = Array.from({ length: options.size }, (_, index) => ({ index, busy: false, jobs: 0, jobLimit: 0, startFailures: 0, epoch: 0 }));
  }

  get name(): string {
    return this.options.name;
  }

  /** Starts every worker; rejects (and closes the pool) when not a single one starts. */
  async start(): Promise<void> {
    const results = await Promise.allSettled(this.slots.map((slot) => this.startWorker(slot, 'start', false)));
    if (results.every((r) => r.status === 'rejected')) {
      const reason = (results[0] as PromiseRejectedResult).reason as Error;
      await this.close();
      throw new PoolError('unavailable', this.name, `${this.name}: no worker could start: ${reason.message}`, { cause: reason });
    }
    // Slots that failed keep retrying in the background.
    for (const slot of this.slots) if (!slot.worker && !slot.starting) this.scheduleRestart(slot, 'start failed');
    if (this.options.healthIntervalMs > 0) {
      this.healthTimer = setInterval(() => void this.checkHealth(), this.options.healthIntervalMs);
      this.healthTimer.unref();
    }
  }

  /** Runs a job on a worker; see the class comment for the failure rules. */
  run(job: J, options: RunOptions = {}): Promise<R> {
    if (this.closed) return Promise.reject(new PoolError('unavailable', this.name, `The ${this.name} engine is shut down.`));
    if (options.key !== undefined && (this.strikes.get(options.key) ?? 0) >= STRIKE_LIMIT) {
      this.counters.rejected++;
      this.emit('job', { engine: this.name, outcome: 'poisoned', durationMs: 0, queuedMs: 0 });
      return Promise.reject(this.poisonedError());
    }
    const signal = anyOf(options.signal, ambientCancellation());
    if (signal?.aborted) return Promise.reject(cancellationReason(signal));
    return new Promise<R>((resolve, reject) => {
      const waiter: Waiter<J, R> = { job, options, enqueuedAt: Date.now(), attempts: 0, resolve, reject, ...(signal ? { signal } : {}) };
      // Jobs already waiting come first: a worker that has just become free (its job ended, the
      // recycling check still running) is theirs, not the newcomer's.
      const slot = this.queue.length === 0 ? this.idleSlot() : undefined;
      if (slot) {
        void this.execute(slot, waiter);
        return;
      }
      if (this.queue.length >= this.options.queueLimit) {
        this.counters.rejected++;
        reject(this.busyError(`all ${this.slots.length} ${this.name} workers are busy and ${this.queue.length} jobs are waiting`));
        return;
      }
      this.enqueue(waiter);
      this.dispatch();
    });
  }

  stats(): PoolStats {
    return {
      engine: this.name,
      size: this.slots.length,
      ready: this.slots.filter((s) => s.worker).length,
      busy: this.slots.filter((s) => s.busy).length,
      starting: this.slots.filter((s) => s.starting !== undefined).length,
      queued: this.queue.length,
      queueLimit: this.options.queueLimit,
      ...this.counters,
      averageJobMs: Math.round(this.averageJobMs),
      ...this.peaks,
    };
  }

  /** Pings one idle worker (or reports a busy pool as healthy): true when the engine answers. */
  async healthy(): Promise<boolean> {
    if (this.closed) return false;
    if (this.slots.some((s) => s.busy)) return true;
    const slot = this.slots.find((s) => s.worker && !s.busy);
    if (!slot?.worker) return false;
    try {
      await this.withTimeout(slot.worker.ping(), this.options.pingTimeoutMs ?? 10_000);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Replaces every worker (each once it is idle), e.g. after fonts were added. A worker whose start
   * began before this call is replaced too, even when it comes up afterwards.
   */
  recycleAll(reason: string): void {
    this.recycleEpoch++;
    this.recycleReason = reason;
    for (const slot of this.slots) {
      if (!slot.worker || slot.epoch >= this.recycleEpoch) continue;
      slot.retire = reason;
      if (!slot.busy) this.replaceIdle(slot);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Starts in flight now end their worker as soon as it is up (startWorker and replaceIdle check
    // `closed`); they clear `slot.starting` before that close finishes, so take them now.
    const starting = this.slots.map((s) => s.starting);
    if (this.healthTimer) clearInterval(this.healthTimer);
    for (const waiter of this.queue.splice(0)) {
      if (waiter.timer) clearTimeout(waiter.timer);
      this.unwatchQueued(waiter);
      waiter.reject(new PoolError('unavailable', this.name, `The ${this.name} engine is shutting down.`));
    }
    await Promise.allSettled(
      this.slots.map(async (slot) => {
        const worker = slot.worker;
        slot.worker = undefined;
        if (worker) await worker.close();
      }),
    );
    // Workers still starting are ended as soon as they come up (startWorker checks `closed`).
    await Promise.allSettled([...starting, ...this.slots.map((s) => s.starting)]);
    // Recycled workers still closing gracefully.
    await Promise.allSettled([...this.ending]);
  }

  // -------------------------------------------------------------------------------------------

  private idleSlot(): Slot<J, R> | undefined {
    return this.slots.find((s) => s.worker && !s.busy && !s.swapping);
  }

  private enqueue(waiter: Waiter<J, R>, front = false): void {
    if (front) this.queue.unshift(waiter);
    else this.queue.push(waiter);
    this.peaks.peakQueued = Math.max(this.peaks.peakQueued, this.queue.length);
    if (waiter.signal && !waiter.onAbort) {
      waiter.onAbort = () => {
        const index = this.queue.indexOf(waiter);
        if (index < 0) return;
        this.queue.splice(index, 1);
        if (waiter.timer) clearTimeout(waiter.timer);
        waiter.onAbort = undefined;
        waiter.reject(cancellationReason(waiter.signal!));
      };
      waiter.signal.addEventListener('abort', waiter.onAbort, { once: true });
    }
    waiter.timer = setTimeout(() => {
      const index = this.queue.indexOf(waiter);
      if (index < 0) return;
      this.queue.splice(index, 1);
      this.unwatchQueued(waiter);
      this.counters.rejected++;
      waiter.reject(this.busyError(`no ${this.name} worker became free within ${Math.round(this.options.queueTimeoutMs / 1000)} s`));
    }, this.options.queueTimeoutMs);
    waiter.timer.unref();
  }

  /** Hands queued jobs to idle workers. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.idleSlot();
      if (!slot) return;
      const waiter = this.queue.shift()!;
      if (waiter.timer) clearTimeout(waiter.timer);
      this.unwatchQueued(waiter);
      void this.execute(slot, waiter);
    }
  }

  private async execute(slot: Slot<J, R>, waiter: Waiter<J, R>): Promise<void> {
    const worker = slot.worker!;
    slot.busy = true;
    this.peaks.peakBusy = Math.max(this.peaks.peakBusy, this.slots.filter((s) => s.busy).length);
    waiter.attempts++;
    const started = Date.now();
    const queuedMs = started - waiter.enqueuedAt;
    const timeoutMs = waiter.options.timeoutMs ?? this.options.jobTimeoutMs;
    let timedOut = false;
    /** Why the pool killed the worker under the job, other than its time limit. */
    let killed: { why: 'memory'; bytes: number } | { why: 'cancelled' } | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      worker.kill();
    }, timeoutMs);
    const stopWatching = this.watchMemory(worker, (bytes) => {
      killed ??= { why: 'memory', bytes };
      worker.kill();
    });
    const onAbort = (): void => {
      killed ??= { why: 'cancelled' };
      worker.kill();
    };
    if (waiter.signal?.aborted) onAbort();
    else waiter.signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => {
      clearTimeout(timer);
      stopWatching();
      waiter.signal?.removeEventListener('abort', onAbort);
    };
    try {
      // Detached from the context that happens to dispatch the job: the worker's own processes must
      // not stop with that call (a queued job is dispatched when some other call's job ends).
      const result = await Promise.race([withCancellation(undefined, () => worker.run(waiter.job)), slot.died!]);
      settle();
      if (killed) throw new Error('killed by the pool after the job ended'); // the answer raced the kill: handled below
      this.finished(slot, 'ok', started, queuedMs);
      waiter.resolve(result);
      await this.afterJob(slot, worker);
    } catch (error) {
      settle();
      if (killed?.why === 'memory') {
        this.strike(waiter.options.key);
        this.counters.crashes++;
        this.finished(slot, 'memory', started, queuedMs);
        this.replaceDead(slot, worker, `worker passed its memory limit under a job (${Math.round(killed.bytes / 1048576)} MB)`);
        const limit = this.options.memoryLimitBytes ?? 0;
        waiter.reject(new MemoryLimitError(`The ${this.name} engine`, limit, this.options.memoryLimitSetting ?? `engines.${this.name}.memoryLimit`));
      } else if (killed?.why === 'cancelled') {
        this.finished(slot, 'cancelled', started, queuedMs);
        this.replaceDead(slot, worker, 'job cancelled: its caller is gone');
        waiter.reject(cancellationReason(waiter.signal!));
      } else if (timedOut) {
        this.strike(waiter.options.key);
        this.counters.timeouts++;
        this.finished(slot, 'timeout', started, queuedMs);
        this.replaceDead(slot, worker, `job timed out after ${timeoutMs} ms`);
        waiter.reject(new PoolError('timeout', this.name, `The ${this.name} engine did not finish within ${formatSeconds(timeoutMs)}; the document is too complex or malformed.`, { cause: error }));
      } else if (error instanceof WorkerDiedError && this.closed) {
        // close() ended the worker under the job: not the document's fault, no strike, no retry.
        this.finished(slot, 'failed', started, queuedMs);
        waiter.reject(new PoolError('unavailable', this.name, `The ${this.name} engine is shutting down.`, { cause: error }));
      } else if (error instanceof WorkerDiedError) {
        this.strike(waiter.options.key);
        this.counters.crashes++;
        this.finished(slot, 'crashed', started, queuedMs);
        this.replaceDead(slot, worker, `worker died under a job: ${error.message}`);
        if (waiter.attempts < STRIKE_LIMIT && !this.closed) {
          // Retry once: the worker may have been dying anyway. Another death refuses the job.
          const next = this.idleSlot();
          if (next) void this.execute(next, waiter);
          else this.enqueue(waiter, true);
        } else {
          waiter.reject(this.poisonedError(error));
        }
      } else {
        this.finished(slot, 'failed', started, queuedMs);
        waiter.reject(error);
        await this.afterJob(slot, worker);
      }
    }
    this.dispatch();
  }

  private finished(slot: Slot<J, R>, outcome: JobOutcome, started: number, queuedMs: number): void {
    const durationMs = Date.now() - started;
    slot.busy = false;
    slot.jobs++;
    if (outcome === 'ok') this.counters.completed++;
    else this.counters.failed++;
    this.averageJobMs = this.averageJobMs === 0 ? durationMs : this.averageJobMs * 0.9 + durationMs * 0.1;
    this.emit('job', { engine: this.name, outcome, durationMs, queuedMs });
  }

  /** Recycling after a job that left the worker alive. */
  private async afterJob(slot: Slot<J, R>, worker: PoolWorker<J, R>): Promise<void> {
    if (slot.worker !== worker || slot.retire) {
      if (slot.retire && slot.worker === worker) this.replaceIdle(slot);
      return;
    }
    const { maxMemoryBytes } = this.options;
    if (slot.jobLimit > 0 && slot.jobs >= slot.jobLimit) {
      slot.retire = `recycled after ${slot.jobs} jobs`;
    } else if (maxMemoryBytes > 0) {
      const bytes = await worker.memoryBytes().catch(() => 0);
      if (bytes > maxMemoryBytes) slot.retire = `recycled at ${Math.round(bytes / 1048576)} MB resident`;
    }
    if (slot.retire) this.replaceIdle(slot);
  }

  /**
   * Starts a replacement while the old worker keeps serving; swaps them when the new one is ready and
   * the old one is idle.
   */
  private replaceIdle(slot: Slot<J, R>): void {
    if (slot.starting || this.closed) return;
    const old = slot.worker;
    const reason = slot.retire ?? 'recycled';
    slot.starting = (async () => {
      let fresh: PoolWorker<J, R>;
      try {
        fresh = await this.create(slot);
      } catch {
        slot.starting = undefined;
        // Keep the old worker (the next job end tries again); if it died meanwhile, start over.
        if (!slot.worker) this.scheduleRestart(slot, reason);
        return;
      }
      // Wait for the old worker's current job to end before the swap.
      slot.swapping = true;
      while (slot.busy) await new Promise((resolve) => setTimeout(resolve, 10));
      slot.swapping = false;
      slot.starting = undefined;
      slot.retire = undefined;
      if (this.closed) {
        await fresh.close();
        return;
      }
      this.adopt(slot, fresh);
      this.counters.restarts++;
      this.emit('restart', { engine: this.name, slot: slot.index, reason });
      if (old) this.track(old.close());
      this.dispatch();
    })();
  }

  /** A worker died or was killed: its slot starts a new one. */
  private replaceDead(slot: Slot<J, R>, worker: PoolWorker<J, R>, reason: string): void {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    worker.kill();
    // A replacement already on its way (recycling) takes the slot over, and counts as the restart.
    if (slot.starting) return;
    this.counters.restarts++;
    this.emit('restart', { engine: this.name, slot: slot.index, reason });
    slot.retire = undefined;
    void this.startWorker(slot, reason, true).catch(() => undefined);
  }

  private adopt(slot: Slot<J, R>, worker: PoolWorker<J, R>): void {
    slot.worker = worker;
    slot.jobs = 0;
    slot.jobLimit = jobLimit(this.options.maxJobsPerWorker);
    slot.startFailures = 0;
    slot.epoch = this.epochs.get(worker) ?? this.recycleEpoch;
    slot.died = worker.ended.then((reason) => Promise.reject(new WorkerDiedError(reason.message, { cause: reason })));
    slot.died.catch(() => undefined);
    if (slot.epoch < this.recycleEpoch) {
      // recycleAll came while this worker was starting: it is already out of date.
      slot.retire = this.recycleReason;
      queueMicrotask(() => {
        if (slot.worker === worker && !slot.busy) this.replaceIdle(slot);
      });
    }
    // An idle worker that dies (killed from outside, OOM) is replaced without waiting for a job.
    void worker.ended.then((reason) => {
      if (slot.worker === worker && !slot.busy && !this.closed) this.replaceDead(slot, worker, `worker ended: ${reason.message}`);
    });
  }

  private startWorker(slot: Slot<J, R>, reason: string, retry: boolean): Promise<void> {
    if (this.closed) return Promise.resolve();
    const starting = (async () => {
      try {
        const worker = await this.create(slot);
        slot.starting = undefined;
        if (this.closed) {
          await worker.close();
          return;
        }
        this.adopt(slot, worker);
        this.dispatch();
      } catch (error) {
        slot.starting = undefined;
        slot.startFailures++;
        if (retry) this.scheduleRestart(slot, reason);
        throw error;
      }
    })();
    slot.starting = starting;
    return starting;
  }

  /**
   * The factory's promise; a factory that throws synchronously yields a rejected one. Either way the
   * caller's `await` settles asynchronously, after it stored the start in `slot.starting`: a
   * synchronous throw used to clear `slot.starting` before it was set, leaving the slot "starting"
   * forever (never retried, never replaced).
   */
  private create(slot: Slot<J, R>): Promise<PoolWorker<J, R>> {
    const epoch = this.recycleEpoch;
    try {
      return Promise.resolve(this.options.create(slot.index)).then((worker) => {
        this.epochs.set(worker, epoch);
        return worker;
      });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Keeps a recycled worker's `close()` until it settles, for `close()`. */
  private track(ending: Promise<unknown>): void {
    const tracked = ending.then(
      () => undefined,
      () => undefined,
    );
    this.ending.add(tracked);
    void tracked.then(() => this.ending.delete(tracked));
  }

  private scheduleRestart(slot: Slot<J, R>, reason: string): void {
    if (this.closed) return;
    const delay = Math.min(MAX_START_BACKOFF_MS, 500 * 2 ** Math.min(slot.startFailures, 10));
    const timer = setTimeout(() => void this.startWorker(slot, reason, true).catch(() => undefined), delay);
    timer.unref();
  }

  private async checkHealth(): Promise<void> {
    for (const slot of this.slots) {
      const worker = slot.worker;
      if (!worker || slot.busy || slot.starting) continue;
      try {
        await this.withTimeout(worker.ping(), this.options.pingTimeoutMs ?? 10_000);
      } catch (error) {
        if (slot.worker === worker && !slot.busy) this.replaceDead(slot, worker, `health check failed: ${(error as Error).message}`);
      }
    }
  }

  /**
   * Polls a busy worker's memory until the returned function is called; calls `exceeded` (once)
   * when it passes `memoryLimitBytes`. One read at a time: a slow read delays the next one.
   */
  private watchMemory(worker: PoolWorker<J, R>, exceeded: (bytes: number) => void): () => void {
    const limit = this.options.memoryLimitBytes ?? 0;
    if (limit <= 0) return () => undefined;
    const interval = this.options.memoryCheckIntervalMs ?? DEFAULT_MEMORY_CHECK_MS;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const check = async (): Promise<void> => {
      const bytes = await worker.memoryBytes().catch(() => 0);
      if (stopped) return;
      if (bytes > limit) {
        stopped = true;
        exceeded(bytes);
        return;
      }
      timer = setTimeout(() => void check(), interval);
      timer.unref();
    };
    timer = setTimeout(() => void check(), interval);
    timer.unref();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  private unwatchQueued(waiter: Waiter<J, R>): void {
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.onAbort = undefined;
  }

  private strike(key: string | undefined): void {
    if (key === undefined) return;
    this.strikes.set(key, (this.strikes.get(key) ?? 0) + 1);
  }

  private busyError(detail: string): PoolError {
    const perWorker = Math.max(this.averageJobMs, 100);
    const seconds = Math.max(1, Math.ceil(((this.queue.length + 1) * perWorker) / this.slots.length / 1000));
    return new PoolError('busy', this.name, `The server is busy: ${detail}. Try again in ${seconds} s.`, { retryAfterSeconds: seconds });
  }

  private poisonedError(cause?: unknown): PoolError {
    return new PoolError('poisoned', this.name, `The document hung or crashed the ${this.name} engine twice and is refused to protect the other jobs.`, { cause });
  }

  private withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error as Error);
        },
      );
    });
  }
}

/** One signal that aborts when either does. */
function anyOf(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a) return b;
  if (!b || a === b) return a;
  return AbortSignal.any([a, b]);
}

/** What a withdrawn job rejects with: the abort's reason (the HTTP layer's CALL_CANCELLED). */
function cancellationReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new PoolError('unavailable', 'pool', 'The call was cancelled.');
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** How far below `maxJobsPerWorker` a worker's own job limit may be drawn (a fraction of it). */
const JOB_LIMIT_JITTER = 0.2;

/** A worker's job limit: `max` minus a random share of up to JOB_LIMIT_JITTER of it (0 stays "never"; small limits stay exact). */
function jobLimit(max: number): number {
  return max > 0 ? max - Math.floor(max * JOB_LIMIT_JITTER * Math.random()) : 0;
}
