/**
 * The one durable queue of background work (async web-service jobs, webhook deliveries, deferred
 * deletions, statistics flushes), as a store: entries and their states. The embedded implementation
 * is a journal in the data dir (FileQueueStore); the cluster will put the same interface on Redis.
 *
 * States:
 * - PENDING: waiting for its first or next attempt (not before `runAfter`);
 * - RUNNING: claimed by a runner; a server that dies leaves it RUNNING, and the next start decides
 *   (the runner's `recover`);
 * - DONE: finished; the entry keeps its `result` until `expiresAt` (job results are polled);
 * - FAILED_PERMANENT: every attempt failed, or the work cannot be retried: the replay queue (DLQ) the
 *   administration lists, purges and requeues.
 */
export type QueueState = 'PENDING' | 'RUNNING' | 'DONE' | 'FAILED_PERMANENT';

export const QUEUE_STATES: readonly QueueState[] = ['PENDING', 'RUNNING', 'DONE', 'FAILED_PERMANENT'];

export interface QueueHistoryEvent {
  at: number;
  /** e.g. "enqueued", "started", "retry scheduled", "failed permanently", "requeued", "interrupted". */
  event: string;
  detail?: string;
}

export interface QueueEntry<P = unknown> {
  /** 32 hex digits. */
  id: string;
  /** What the entry is: names the handler that runs it ("job", "webhook", ...). */
  kind: string;
  state: QueueState;
  payload: P;
  /** The session the work belongs to, if any (jobs are visible to their session only). */
  sessionId?: string;
  /** Attempts started so far. */
  attempts: number;
  maxAttempts: number;
  createdAt: number;
  updatedAt: number;
  /** Epoch ms before which the next attempt must not start (retry backoff). */
  runAfter: number;
  startedAt?: number;
  finishedAt?: number;
  /** When the entry went to FAILED_PERMANENT. */
  failedAt?: number;
  lastError?: string;
  /** The handler's result (DONE), e.g. a job's DocumentFile or error structure. */
  result?: unknown;
  /** 0–100, as far as the handler reports it. */
  progress: number;
  /** Epoch ms after which a DONE entry may be dropped. */
  expiresAt?: number;
  history: QueueHistoryEvent[];
}

export interface QueueFilter {
  state?: QueueState;
  kind?: string;
  sessionId?: string;
  /** Most entries returned (oldest first). */
  limit?: number;
}

export interface QueueStore {
  open(): Promise<void>;
  /** Flushes and closes; later calls fail. */
  close(): Promise<void>;
  /** Stores a new entry; durable (fsynced) when the promise resolves. */
  add(entry: QueueEntry): Promise<void>;
  /** Replaces an existing entry (by id); durable when the promise resolves. */
  update(entry: QueueEntry): Promise<void>;
  /** Removes entries; durable when the promise resolves. Unknown ids are ignored. */
  remove(ids: readonly string[]): Promise<void>;
  get(id: string): Promise<QueueEntry | undefined>;
  list(filter?: QueueFilter): Promise<QueueEntry[]>;
  /**
   * Atomically moves the oldest due PENDING entry of one of `kinds` (runAfter ≤ now) to RUNNING,
   * counting the attempt, and returns it; undefined when none is due.
   */
  claim(kinds: readonly string[], now: number): Promise<QueueEntry | undefined>;
  /** Entries per state (and per kind), cheap: the metrics read it at every scrape. */
  counts(): Promise<{ byState: Record<QueueState, number>; byKind: Record<string, Record<QueueState, number>> }>;
  /** Epoch ms of the earliest runAfter among PENDING entries of `kinds`, or undefined. */
  nextDue(kinds: readonly string[]): Promise<number | undefined>;
}
