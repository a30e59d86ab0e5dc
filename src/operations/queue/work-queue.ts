import { randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../../core/errors.js';
import type { QueueEntry, QueueFilter, QueueState, QueueStore } from '../../storage/queue/queue-store.js';
import type { BackgroundQueue } from './background-queue.js';

/**
 * Runs the entries of the durable queue: one handler per kind, each with its own concurrency, attempts
 * and backoff. A handler's `run` resolves (→ DONE, with its result), throws `PermanentFailure` (→
 * FAILED_PERMANENT at once) or throws anything else (→ retried after an exponential backoff with full
 * jitter, FAILED_PERMANENT once the attempts are used up). Entries found RUNNING at start belonged to
 * a server that died: their handler's `recover` decides whether they run again.
 *
 * The queue is bounded: past `maxPending` waiting or running entries, `enqueue` and `admit` throw
 * QUEUE_FULL (429 with Retry-After), so that synchronous calls are refused too while the server is
 * that far behind.
 */
export interface QueueHandler<P = unknown> {
  kind: string;
  /** Entries of this kind running at once. */
  concurrency: number;
  maxAttempts: number;
  /** Delay before attempt n+1 = random(0, min(maxMs, baseMs × 2^(n-1))) ("full jitter"). */
  backoff: { baseMs: number; maxMs: number };
  /** How long a DONE entry is kept (its result is polled); 0 removes it at once. */
  keepDoneMs: number;
  /** For entries found RUNNING at start: run again, or fail permanently with `reason`. */
  recover(entry: QueueEntry<P>): Promise<RecoveryDecision> | RecoveryDecision;
  /**
   * Does the work; `progress` reports 0–100 (persisted lazily, at the next state change). The cluster
   * queue passes `attempt`: the BullMQ lock this attempt holds (for at-most-once commits).
   */
  run(entry: QueueEntry<P>, progress: (percent: number) => void, attempt?: QueueAttempt): Promise<unknown>;
  /** After the entry reached DONE or FAILED_PERMANENT (e.g. to enqueue a webhook delivery). */
  settled?(entry: QueueEntry<P>): Promise<void> | void;
}

/** A cluster attempt: the token of the BullMQ lock it holds on its job, and that lock's key. */
export interface QueueAttempt {
  token: string;
  lockKey: string;
}

export type RecoveryDecision = { retry: true } | { retry: false; reason: string };

/** A failure that retrying cannot fix: the entry goes to FAILED_PERMANENT at once. */
export class PermanentFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentFailure';
  }
}

export interface WorkQueueOptions {
  /** Most PENDING + RUNNING entries; past it enqueue/admit throw QUEUE_FULL. */
  maxPending: number;
  /** Where purged failed entries are archived (JSON lines), e.g. <dataDir>/queue/failed-archive.jsonl. */
  archiveFile: string;
  /** Seconds suggested in Retry-After when the queue is full. */
  retryAfterSeconds?: number;
  /** How often due entries are looked for when nothing woke the queue up (ms). */
  pollMs?: number;
  now?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string, detail?: Record<string, unknown>) => void;
}

export interface EnqueueOptions {
  sessionId?: string;
  /** Overrides the handler's maxAttempts. */
  maxAttempts?: number;
  /** Not before this epoch ms. */
  runAfter?: number;
  /** Housekeeping the server itself needs done (deleting expired storage) is never refused for a full queue. */
  bypassBound?: boolean;
  /**
   * The cluster queue stores entries enqueued with the same key once (a settle hook that runs again on
   * another node after a node died must not enqueue a second webhook delivery). The embedded queue
   * settles each entry once, in-process, and ignores it.
   */
  dedupeKey?: string;
}

const MAX_HISTORY = 50;

export class WorkQueue implements BackgroundQueue {
  readonly jobPayloads = 'call' as const;
  private readonly handlers = new Map<string, QueueHandler<never>>();
  private readonly running = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly settledListeners = new Set<(entry: QueueEntry) => void>();
  /** Outcomes of attempts per kind since start (metrics). */
  readonly outcomes: Record<string, { done: number; retried: number; failedPermanently: number }> = {};
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopping = false;
  private pumping = false;
  private pumpAgain = false;
  private pending = 0;
  private readonly now: () => number;

  constructor(
    readonly store: QueueStore,
    private readonly options: WorkQueueOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  register<P>(handler: QueueHandler<P>): void {
    if (this.handlers.has(handler.kind)) throw new Error(`a handler for "${handler.kind}" is registered already`);
    this.handlers.set(handler.kind, handler as QueueHandler<never>);
    this.running.set(handler.kind, 0);
    this.outcomes[handler.kind] = { done: 0, retried: 0, failedPermanently: 0 };
  }

  /** Called with every entry that reached DONE or FAILED_PERMANENT. */
  onSettled(listener: (entry: QueueEntry) => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  /** Decides about entries a dead server left RUNNING, drops expired results, and starts running entries. */
  async start(): Promise<void> {
    const now = this.now();
    for (const entry of await this.store.list({ state: 'RUNNING' })) {
      const handler = this.handlers.get(entry.kind);
      const decision = handler ? await handler.recover(entry as never) : { retry: false as const, reason: `no handler for kind "${entry.kind}"` };
      if (decision.retry && entry.attempts < entry.maxAttempts) {
        await this.store.update(withEvent({ ...entry, state: 'PENDING', runAfter: now, updatedAt: now }, now, 'interrupted', 'the server stopped during the attempt; it runs again'));
      } else {
        const reason = decision.retry ? `the server stopped during the last of ${entry.maxAttempts} attempts` : decision.reason;
        await this.store.update(withEvent({ ...entry, state: 'FAILED_PERMANENT', failedAt: now, updatedAt: now, lastError: reason }, now, 'failed permanently', reason));
      }
    }
    await this.dropExpired();
    const counts = await this.store.counts();
    this.pending = counts.byState.PENDING + counts.byState.RUNNING;
    this.started = true;
    this.schedule(0);
  }

  /** Stops claiming new entries and waits for the running ones (they are left RUNNING if `timeoutMs` passes: the next start recovers them). */
  async stop(timeoutMs = 30_000): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const all = Promise.all([...this.inFlight]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }

  /** Throws QUEUE_FULL when the queue is at its bound: for synchronous calls, which must not overtake a full queue. */
  admit(): void {
    if (this.pending >= this.options.maxPending) throw this.fullError();
  }

  /** Adds durable work; resolves when it is on disk. */
  async enqueue<P>(kind: string, payload: P, options: EnqueueOptions = {}): Promise<QueueEntry<P>> {
    const handler = this.handlers.get(kind);
    if (!handler) throw new Error(`no handler for queue kind "${kind}"`);
    if (!options.bypassBound) this.admit();
    const now = this.now();
    const entry: QueueEntry<P> = {
      id: randomBytes(16).toString('hex'),
      kind,
      state: 'PENDING',
      payload,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      attempts: 0,
      maxAttempts: options.maxAttempts ?? handler.maxAttempts,
      createdAt: now,
      updatedAt: now,
      runAfter: options.runAfter ?? now,
      progress: 0,
      history: [{ at: now, event: 'enqueued' }],
    };
    this.pending++;
    try {
      await this.store.add(entry);
    } catch (error) {
      this.pending--;
      throw error;
    }
    this.schedule(Math.max(0, entry.runAfter - now));
    return entry;
  }

  get(id: string): Promise<QueueEntry | undefined> {
    return this.store.get(id);
  }

  list(filter: QueueFilter): Promise<QueueEntry[]> {
    return this.store.list(filter);
  }

  /**
   * Removes an entry that is still waiting (PENDING) and frees its place in the bound; false when it
   * is unknown, running or finished. (A claim between the check and the removal is not excluded by the
   * store interface; the embedded store applies both synchronously, so the window is a microtask.)
   */
  async cancel(id: string): Promise<boolean> {
    const entry = await this.store.get(id);
    if (entry?.state !== 'PENDING') return false;
    await this.store.remove([id]);
    this.pending--;
    return true;
  }

  // --- the replay queue (DLQ) of the administration ---

  listFailed(limit: number): Promise<QueueEntry[]> {
    return this.store.list({ state: 'FAILED_PERMANENT', limit });
  }

  /** Removes one failed entry; false when there is no failed entry with that id. */
  async deleteFailed(id: string): Promise<boolean> {
    const entry = await this.store.get(id);
    if (entry?.state !== 'FAILED_PERMANENT') return false;
    await this.store.remove([id]);
    return true;
  }

  /** Removes failed entries that failed more than `olderThanMs` ago, appending them to the archive first when asked. */
  async purgeFailed(olderThanMs: number, archive: boolean): Promise<number> {
    const limit = this.now() - olderThanMs;
    const old = (await this.store.list({ state: 'FAILED_PERMANENT' })).filter((entry) => (entry.failedAt ?? entry.updatedAt) <= limit);
    if (old.length === 0) return 0;
    if (archive) {
      await mkdir(path.dirname(this.options.archiveFile), { recursive: true, mode: 0o700 });
      const archivedAt = this.now();
      await appendFile(this.options.archiveFile, old.map((entry) => `${JSON.stringify({ archivedAt, ...entry })}\n`).join(''), { mode: 0o600 });
    }
    await this.store.remove(old.map((entry) => entry.id));
    return old.length;
  }

  /** Moves a failed entry back to PENDING with its attempts reset; false when there is no failed entry with that id. */
  async requeue(id: string, reason: string): Promise<boolean> {
    const entry = await this.store.get(id);
    if (entry?.state !== 'FAILED_PERMANENT') return false;
    const now = this.now();
    const { failedAt: _failedAt, finishedAt: _finishedAt, ...rest } = entry;
    await this.store.update(withEvent({ ...rest, state: 'PENDING', attempts: 0, runAfter: now, updatedAt: now, progress: 0 }, now, 'requeued', reason));
    this.pending++;
    this.schedule(0);
    return true;
  }

  async stats(): Promise<{ byState: Record<QueueState, number>; byKind: Record<string, Record<QueueState, number>>; maxPending: number }> {
    return { ...(await this.store.counts()), maxPending: this.options.maxPending };
  }

  // --- running entries ---

  private schedule(delayMs: number): void {
    if (!this.started || this.stopping) return;
    if (delayMs <= 0) {
      // Coalesce: one pump at a time; a request during a pump makes it look again.
      if (this.pumping) this.pumpAgain = true;
      else void this.pump();
      return;
    }
    const at = this.now() + delayMs;
    if (this.timer && this.timerAt !== undefined && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = undefined;
      this.schedule(0);
    }, delayMs);
    this.timer.unref();
  }

  private timerAt: number | undefined;

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        const kinds = [...this.handlers.values()].filter((h) => (this.running.get(h.kind) ?? 0) < h.concurrency).map((h) => h.kind);
        if (kinds.length === 0 || this.stopping) break;
        const entry = await this.store.claim(kinds, this.now());
        if (!entry) {
          const next = await this.store.nextDue([...this.handlers.keys()]);
          if (next !== undefined) this.schedule(Math.max(1, next - this.now()));
          else if (this.options.pollMs) this.schedule(this.options.pollMs);
          break;
        }
        this.launch(entry);
        this.pumpAgain = true;
      } while (this.pumpAgain);
    } catch (error) {
      this.options.log?.('error', 'queue: claiming work failed', { err: error });
      this.schedule(1000);
    } finally {
      this.pumping = false;
    }
  }

  private launch(entry: QueueEntry): void {
    const handler = this.handlers.get(entry.kind)!;
    this.running.set(entry.kind, (this.running.get(entry.kind) ?? 0) + 1);
    let progress = entry.progress;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.running.set(entry.kind, (this.running.get(entry.kind) ?? 1) - 1);
      this.schedule(0);
    };
    const task = (async () => {
      let next: QueueEntry;
      try {
        const result = await handler.run(entry as never, (percent) => {
          progress = Math.max(0, Math.min(100, Math.round(percent)));
        });
        const now = this.now();
        next = withEvent({ ...entry, state: 'DONE', result, progress: 100, finishedAt: now, updatedAt: now, ...(handler.keepDoneMs > 0 ? { expiresAt: now + handler.keepDoneMs } : {}) }, now, 'done');
      } catch (error) {
        const now = this.now();
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof PermanentFailure || entry.attempts >= entry.maxAttempts) {
          next = withEvent({ ...entry, state: 'FAILED_PERMANENT', lastError: message, failedAt: now, updatedAt: now, progress }, now, 'failed permanently', message);
        } else {
          const delay = Math.round(Math.random() * Math.min(handler.backoff.maxMs, handler.backoff.baseMs * 2 ** (entry.attempts - 1)));
          next = withEvent({ ...entry, state: 'PENDING', lastError: message, runAfter: now + delay, updatedAt: now, progress }, now, 'retry scheduled', `${message} (next attempt in ${delay} ms)`);
        }
      }
      const recording = next.state === 'DONE' && handler.keepDoneMs <= 0 ? this.store.remove([next.id]) : this.store.update(next);
      // Counted as the outcome becomes visible in the store (a reader of the entry sees the counts that include it).
      const outcome = this.outcomes[entry.kind]!;
      if (next.state === 'DONE') outcome.done++;
      else if (next.state === 'PENDING') outcome.retried++;
      else outcome.failedPermanently++;
      // The worker is free as soon as the outcome is handed to the store: the next claim is appended
      // after it in the journal and shares its sync (group commit) instead of waiting for it.
      release();
      try {
        await recording;
      } catch (error) {
        this.options.log?.('error', 'queue: recording the outcome failed', { err: error, id: entry.id });
      }
      if (next.state !== 'PENDING') {
        this.pending--;
        for (const listener of this.settledListeners) listener(next);
        try {
          await handler.settled?.(next as never);
        } catch (error) {
          this.options.log?.('warn', 'queue: settled hook failed', { err: error, id: entry.id });
        }
      } else {
        this.schedule(next.runAfter - this.now());
      }
    })().finally(() => {
      release();
      this.inFlight.delete(task);
    });
    this.inFlight.add(task);
  }

  private async dropExpired(): Promise<void> {
    const now = this.now();
    const expired = (await this.store.list({ state: 'DONE' })).filter((entry) => entry.expiresAt !== undefined && entry.expiresAt <= now);
    if (expired.length > 0) await this.store.remove(expired.map((entry) => entry.id));
  }

  /** Drops DONE entries past their expiry; the server calls it now and then. */
  sweep(): Promise<void> {
    return this.dropExpired();
  }

  private fullError(): QuireError {
    const seconds = this.options.retryAfterSeconds ?? 5;
    return new QuireError('QUEUE_FULL', `The server's work queue is full (${this.options.maxPending} waiting or running entries); retry after ${seconds} seconds.`, {
      headers: { 'retry-after': String(seconds) },
    });
  }
}

function withEvent<E extends QueueEntry>(entry: E, at: number, event: string, detail?: string): E {
  const history = [...entry.history, { at, event, ...(detail ? { detail } : {}) }];
  return { ...entry, history: history.length > MAX_HISTORY ? history.slice(history.length - MAX_HISTORY) : history };
}
