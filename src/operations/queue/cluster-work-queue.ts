import { createHash, randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { QuireError } from '../../core/errors.js';
import { closeRedis } from '../../storage/redis/connection.js';
import type { BullmqStore, StoredJobData } from '../../storage/queue/bullmq-store.js';
import type { QueueEntry, QueueFilter, QueueState } from '../../storage/queue/queue-store.js';
import type { JobCommitRecords } from '../../storage/queue/redis-job-commits.js';
import type { BackgroundQueue } from './background-queue.js';
import { REDIS_AWAY_WAIT_MS, whileRedisAway } from '../../storage/redis/redis-away.js';
import { PermanentFailure, type EnqueueOptions, type QueueHandler } from './work-queue.js';

/**
 * The work queue of cluster mode, on BullMQ: the same handlers, attempts, backoff (exponential with
 * full jitter, through BullMQ's custom backoff strategy) and replay queue as the embedded `WorkQueue`,
 * with the entries in Redis (`BullmqStore`) and a BullMQ worker per kind on every node that consumes.
 *
 * - A handler's `PermanentFailure` and the last attempt's failure become BullMQ's UnrecoverableError:
 *   the job rests in BullMQ's failed set, which is the replay queue (list, delete, purge with archive,
 *   requeue with reason, as `admin/dlq/failed…` expects).
 * - A node that dies mid-job stops renewing the job's lock; BullMQ's stalled check (on any node) puts
 *   the job back to wait after `lockDurationMs`, and another node runs it. That re-run is recognised
 *   (an attempt was started and never finished) and the handler's `recover` decides, as after a crash
 *   of the embedded server. The attempt's lock token goes to the handler (`QueueAttempt`), so a job that
 *   changes a document commits only while its attempt still holds the lock (redis-job-commits.ts).
 * - `settled` hooks run before the job is marked finished, so a node that dies in between runs them
 *   again on the re-run; what they enqueue carries a `dedupeKey` and is stored once.
 * - The bound (`maxPending`) is checked against Redis's count, refreshed in the background when older
 *   than `countRefreshMs`, plus what this node enqueued since: across nodes it is approximate, which is
 *   enough for back-pressure.
 */
export interface ClusterWorkQueueOptions {
  store: BullmqStore;
  /** A new connection for a BullMQ worker (blocking commands: `maxRetriesPerRequest: null`, no ioredis keyPrefix). */
  workerConnection: () => Redis;
  /** The idempotency records of document commits; cleared when an administrator requeues a job. */
  commits?: JobCommitRecords;
  maxPending: number;
  /** Where purged failed entries are archived (JSON lines): on the shared data dir. */
  archiveFile: string;
  retryAfterSeconds?: number;
  /** Run workers on this node (false: an `api` node only enqueues). Default true. */
  consume?: boolean;
  /** BullMQ's lock of a running job; a dead node's job runs again on another node after about this plus `stalledIntervalMs`. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  countRefreshMs?: number;
  /** How long an attempt's own bookkeeping in Redis (its entry, history, lock check) waits for Redis to come back before the attempt counts as failed (default REDIS_AWAY_WAIT_MS). */
  redisAwayForMs?: number;
  now?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string, detail?: Record<string, unknown>) => void;
}

const BACKOFF_TYPE = 'quire-full-jitter';
/**
 * How long a finished entry with a `dedupeKey` stays stored: BullMQ ignores an add of a stored id only.
 * A delivered webhook removed at once was stored and sent again when the job that enqueued it ran its
 * `settled` hook a second time (a node died between the two).
 */
const DEDUPE_KEEP_MS = 24 * 3_600_000;

export class ClusterWorkQueue implements BackgroundQueue {
  readonly jobPayloads = 'operation' as const;
  readonly outcomes: Record<string, { done: number; retried: number; failedPermanently: number }> = {};
  private readonly handlers = new Map<string, QueueHandler<never>>();
  private readonly workers = new Map<string, { worker: Worker; connection: Redis }>();
  private readonly settledListeners = new Set<(entry: QueueEntry) => void>();
  private readonly now: () => number;
  private started = false;
  private pending = 0;
  private refreshedAt = 0;
  private refreshing = false;

  constructor(private readonly options: ClusterWorkQueueOptions) {
    this.now = options.now ?? Date.now;
  }

  get store(): BullmqStore {
    return this.options.store;
  }

  register<P>(handler: QueueHandler<P>): void {
    if (this.handlers.has(handler.kind)) throw new Error(`a handler for "${handler.kind}" is registered already`);
    this.handlers.set(handler.kind, handler as QueueHandler<never>);
    this.outcomes[handler.kind] = { done: 0, retried: 0, failedPermanently: 0 };
    this.options.store.queue(handler.kind);
    if (this.started) this.startWorker(handler as QueueHandler<never>);
  }

  onSettled(listener: (entry: QueueEntry) => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  async start(): Promise<void> {
    // The count only feeds back-pressure: a node that starts while Redis is down or slow starts all the
    // same (its workers wait for Redis) and counts at the next admission instead of failing its start.
    await this.refreshCount().catch((error: unknown) => this.options.log?.('warn', 'queue: could not count the pending entries at start', { err: error }));
    this.started = true;
    for (const handler of this.handlers.values()) this.startWorker(handler);
  }

  /** Stops taking jobs and waits for the running ones; past `timeoutMs` they are left to BullMQ's stalled check (another node re-runs them). */
  async stop(timeoutMs = 30_000): Promise<void> {
    const workers = [...this.workers.values()];
    this.workers.clear();
    this.started = false;
    const graceful = Promise.all(workers.map(({ worker }) => worker.close().catch(() => undefined)));
    if (!(await within(graceful, timeoutMs))) {
      // Running jobs keep their locks until they expire; BullMQ's stalled check gives them to another node.
      // A forced close can wait for a connection that Redis left half-open: bounded too, then the sockets go.
      await within(Promise.all(workers.map(({ worker }) => worker.close(true).catch(() => undefined))), 1000);
    }
    await Promise.all(workers.map(({ connection }) => closeRedis(connection)));
  }

  admit(): void {
    this.refreshSoon();
    if (this.pending >= this.options.maxPending) {
      const seconds = this.options.retryAfterSeconds ?? 5;
      throw new QuireError('QUEUE_FULL', `The server's work queue is full (${this.options.maxPending} waiting or running entries); retry after ${seconds} seconds.`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
  }

  async enqueue<P>(kind: string, payload: P, options: EnqueueOptions = {}): Promise<QueueEntry<P>> {
    const handler = this.handlers.get(kind);
    if (!handler) throw new Error(`no handler for queue kind "${kind}"`);
    if (!options.bypassBound) this.admit();
    const now = this.now();
    const id = options.dedupeKey === undefined ? randomBytes(16).toString('hex') : createHash('sha256').update(`${kind}\0${options.dedupeKey}`).digest('hex').slice(0, 32);
    const data: StoredJobData<P> = { payload, ...(options.sessionId ? { sessionId: options.sessionId } : {}) };
    const runAfter = options.runAfter ?? now;
    const keepDoneS = Math.ceil(Math.max(handler.keepDoneMs, options.dedupeKey === undefined ? 0 : DEDUPE_KEEP_MS) / 1000);
    const job = await this.options.store.add(kind, id, data, {
      attempts: options.maxAttempts ?? handler.maxAttempts,
      backoff: { type: BACKOFF_TYPE },
      ...(runAfter > now ? { delay: runAfter - now } : {}),
      removeOnComplete: keepDoneS > 0 ? { age: keepDoneS } : true,
      removeOnFail: false,
    });
    this.pending++;
    return {
      id,
      kind,
      state: 'PENDING',
      payload,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      attempts: 0,
      maxAttempts: job.opts.attempts ?? 1,
      createdAt: job.timestamp,
      updatedAt: job.timestamp,
      runAfter,
      progress: 0,
      history: [{ at: job.timestamp, event: 'enqueued' }],
    };
  }

  async get(id: string): Promise<QueueEntry | undefined> {
    const entry = await this.options.store.get(id);
    return entry && !this.expired(entry) ? entry : undefined;
  }

  async list(filter: QueueFilter): Promise<QueueEntry[]> {
    const entries = (await this.options.store.list({ ...filter, limit: undefined })).filter((entry) => !this.expired(entry));
    return filter.limit === undefined ? entries : entries.slice(0, filter.limit);
  }

  /** Removes a waiting job; false when it is unknown, running or finished (BullMQ refuses to remove a locked job). */
  async cancel(id: string): Promise<boolean> {
    const found = await this.options.store.find(id);
    if (found?.state !== 'PENDING') return false;
    try {
      await found.job.remove();
    } catch {
      return false;
    }
    this.pending = Math.max(0, this.pending - 1);
    return true;
  }

  // --- the replay queue: BullMQ's failed set ---

  listFailed(limit: number): Promise<QueueEntry[]> {
    return this.options.store.list({ state: 'FAILED_PERMANENT', limit });
  }

  async deleteFailed(id: string): Promise<boolean> {
    const found = await this.options.store.find(id);
    if (found?.state !== 'FAILED_PERMANENT') return false;
    await found.job.remove();
    await this.options.commits?.forget(id);
    return true;
  }

  async purgeFailed(olderThanMs: number, archive: boolean): Promise<number> {
    const limit = this.now() - olderThanMs;
    const old = (await this.options.store.list({ state: 'FAILED_PERMANENT' })).filter((entry) => (entry.failedAt ?? entry.updatedAt) <= limit);
    if (old.length === 0) return 0;
    if (archive) {
      await mkdir(path.dirname(this.options.archiveFile), { recursive: true, mode: 0o700 });
      const archivedAt = this.now();
      await appendFile(this.options.archiveFile, old.map((entry) => `${JSON.stringify({ archivedAt, ...entry })}\n`).join(''), { mode: 0o600 });
    }
    let removed = 0;
    for (const entry of old) {
      const found = await this.options.store.find(entry.id, entry.kind);
      if (found?.state !== 'FAILED_PERMANENT') continue;
      await found.job.remove();
      await this.options.commits?.forget(entry.id);
      removed++;
    }
    return removed;
  }

  /** Back to waiting with its attempts reset; the reason goes into its history. */
  async requeue(id: string, reason: string): Promise<boolean> {
    const found = await this.options.store.find(id);
    if (found?.state !== 'FAILED_PERMANENT') return false;
    // The administrator decided the job runs anew: an earlier attempt's claim must not stop it.
    await this.options.commits?.forget(id);
    await this.options.store.addHistory(found.job.queueName, id, 'requeued', reason, this.now());
    try {
      await found.job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    } catch {
      return false; // requeued or removed by another node meanwhile
    }
    this.pending++;
    return true;
  }

  async stats(): Promise<{ byState: Record<QueueState, number>; byKind: Record<string, Record<QueueState, number>>; maxPending: number }> {
    return { ...(await this.options.store.counts()), maxPending: this.options.maxPending };
  }

  /** BullMQ drops expired results when later jobs complete; this removes them even when none do. */
  async sweep(): Promise<void> {
    for (const handler of this.handlers.values()) {
      if (handler.keepDoneMs > 0) await this.options.store.queue(handler.kind).clean(handler.keepDoneMs, 1000, 'completed');
    }
  }

  // --- running jobs ---

  private startWorker(handler: QueueHandler<never>): void {
    if (this.options.consume === false || this.workers.has(handler.kind)) return;
    const connection = this.options.workerConnection();
    const worker = new Worker(handler.kind, (job, token) => this.process(handler, job, token), {
      connection,
      prefix: this.options.store.bullPrefix,
      concurrency: handler.concurrency,
      lockDuration: this.options.lockDurationMs ?? 30_000,
      stalledInterval: this.options.stalledIntervalMs ?? 30_000,
      // Every interruption counts as an attempt (as in the embedded queue): re-run while attempts remain.
      maxStalledCount: handler.maxAttempts,
      settings: { backoffStrategy: (attemptsMade, _type, error, job) => this.backoff(handler, attemptsMade, error, job) },
    });
    worker.on('error', (error) => this.options.log?.('error', `queue: the ${handler.kind} worker failed`, { err: error }));
    this.workers.set(handler.kind, { worker, connection });
  }

  /** Delay before attempt n+1 = random(0, min(maxMs, baseMs × 2^(n-1))), as the embedded queue waits. */
  private backoff(handler: QueueHandler<never>, attemptsMade: number, error: Error | undefined, job: { id?: string } | undefined): number {
    const delay = Math.round(Math.random() * Math.min(handler.backoff.maxMs, handler.backoff.baseMs * 2 ** (attemptsMade - 1)));
    if (job?.id !== undefined) {
      void this.options.store.addHistory(handler.kind, job.id, 'retry scheduled', `${error?.message ?? 'failed'} (next attempt in ${delay} ms)`, this.now()).catch(() => undefined);
    }
    return delay;
  }

  private async process(handler: QueueHandler<never>, job: Job, token: string | undefined): Promise<unknown> {
    const kind = handler.kind;
    const id = job.id!;
    const entry = await this.waitingOutRedis(() => this.options.store.toEntry(job, 'RUNNING'));
    const outcome = this.outcomes[kind]!;
    // An attempt was started before this one and never finished: its node died or lost the lock.
    if (job.attemptsStarted > job.attemptsMade + 1) {
      const decision =
        job.attemptsStarted > entry.maxAttempts ? { retry: false as const, reason: `a node stopped during the last of ${entry.maxAttempts} attempts` } : await handler.recover(entry as never);
      if (!decision.retry) {
        await this.waitingOutRedis(() => this.stillHeld(kind, id, token));
        return this.fail(handler, entry, decision.reason);
      }
      await this.waitingOutRedis(() => this.options.store.addHistory(kind, id, 'interrupted', 'a node stopped during the attempt; it runs again', this.now()));
    }
    try {
      const result = await handler.run(
        entry as never,
        (percent) => void job.updateProgress(Math.max(0, Math.min(100, Math.round(percent)))).catch(() => undefined),
        token === undefined ? undefined : { token, lockKey: this.options.store.lockKey(kind, id) },
      );
      await this.waitingOutRedis(() => this.stillHeld(kind, id, token));
      const now = this.now();
      outcome.done++;
      await this.settle(handler, {
        ...entry,
        state: 'DONE',
        result,
        progress: 100,
        finishedAt: now,
        updatedAt: now,
        ...(handler.keepDoneMs > 0 ? { expiresAt: now + handler.keepDoneMs } : {}),
      });
      this.pending = Math.max(0, this.pending - 1);
      return result;
    } catch (error) {
      if (error instanceof LostLock) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof PermanentFailure || job.attemptsStarted >= entry.maxAttempts) {
        await this.waitingOutRedis(() => this.stillHeld(kind, id, token));
        return this.fail(handler, entry, message);
      }
      outcome.retried++;
      throw error instanceof Error ? error : new Error(message);
    }
  }

  /** An attempt's bookkeeping in Redis waits out a passing outage: failing it would use up the job's attempts in seconds. */
  private waitingOutRedis<T>(work: () => Promise<T>): Promise<T> {
    return whileRedisAway(work, this.options.redisAwayForMs ?? REDIS_AWAY_WAIT_MS);
  }

  /** Ends the job in the failed set (the replay queue), after its settle hooks ran. */
  private async fail(handler: QueueHandler<never>, entry: QueueEntry, reason: string): Promise<never> {
    const now = this.now();
    this.outcomes[handler.kind]!.failedPermanently++;
    await this.waitingOutRedis(() => this.options.store.addHistory(handler.kind, entry.id, 'failed permanently', reason, now));
    await this.settle(handler, { ...entry, state: 'FAILED_PERMANENT', lastError: reason, failedAt: now, updatedAt: now });
    this.pending = Math.max(0, this.pending - 1);
    throw new UnrecoverableError(reason);
  }

  private async settle(handler: QueueHandler<never>, entry: QueueEntry): Promise<void> {
    for (const listener of this.settledListeners) listener(entry);
    try {
      await handler.settled?.(entry as never);
    } catch (error) {
      this.options.log?.('warn', 'queue: settled hook failed', { err: error, id: entry.id });
    }
  }

  /**
   * Throws LostLock unless this attempt still holds the job's lock: an attempt that stalled (its node
   * paused or cut off) while another node took the job over must not report an outcome or run settle
   * hooks (BullMQ refuses its completion too).
   */
  private async stillHeld(kind: string, id: string, token: string | undefined): Promise<void> {
    if (token === undefined) return;
    if ((await this.options.store.connection.get(this.options.store.lockKey(kind, id))) !== token) throw new LostLock(id);
  }

  private expired(entry: QueueEntry): boolean {
    return entry.state === 'DONE' && entry.expiresAt !== undefined && entry.expiresAt <= this.now();
  }

  private async refreshCount(): Promise<void> {
    this.refreshedAt = this.now();
    const { byState } = await this.options.store.counts();
    this.pending = byState.PENDING + byState.RUNNING;
  }

  /**
   * Recounts in the background when the count is older than `countRefreshMs`: the other nodes enqueue
   * and finish work too (an `api` node never runs any), so the local count alone would drift.
   */
  private refreshSoon(): void {
    if (this.refreshing || this.now() - this.refreshedAt < (this.options.countRefreshMs ?? 1000)) return;
    this.refreshing = true;
    this.refreshCount()
      .catch(() => undefined)
      .finally(() => {
        this.refreshing = false;
      });
  }
}

/** Whether `work` settled within `ms` (it goes on in the background otherwise). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The attempt lost its job's lock to the stalled check: another node runs the job; this attempt's outcome is void. */
class LostLock extends Error {
  constructor(id: string) {
    super(`the attempt on ${id} lost its lock; another node runs the job`);
    this.name = 'LostLock';
  }
}
