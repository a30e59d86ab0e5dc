import type { QueueEntry, QueueFilter, QueueState } from '../../storage/queue/queue-store.js';
import type { EnqueueOptions, QueueHandler } from './work-queue.js';

/**
 * What the server, the routes and the handlers need of the work queue, whichever runs it: the
 * embedded `WorkQueue` (a journal in the data dir) or, in cluster mode, `ClusterWorkQueue` (BullMQ on
 * Redis, one BullMQ queue per kind). Both run the same `QueueHandler`s with the same attempts, backoff
 * and replay queue (FAILED_PERMANENT).
 */
export interface BackgroundQueue {
  /** Outcomes of attempts per kind since start, on this node (metrics). */
  readonly outcomes: Record<string, { done: number; retried: number; failedPermanently: number }>;
  /**
   * How an asynchronous web-service job is carried: `call`, the recorded HTTP call replayed in-process
   * (embedded); `operation`, typed operation data any node runs without HTTP (cluster).
   */
  readonly jobPayloads: 'call' | 'operation';
  register<P>(handler: QueueHandler<P>): void;
  onSettled(listener: (entry: QueueEntry) => void): () => void;
  start(): Promise<void>;
  stop(timeoutMs?: number): Promise<void>;
  /** Throws QUEUE_FULL when the queue is at its bound. */
  admit(): void;
  enqueue<P>(kind: string, payload: P, options?: EnqueueOptions): Promise<QueueEntry<P>>;
  get(id: string): Promise<QueueEntry | undefined>;
  /** Entries matching `filter`, oldest first. */
  list(filter: QueueFilter): Promise<QueueEntry[]>;
  cancel(id: string): Promise<boolean>;
  listFailed(limit: number): Promise<QueueEntry[]>;
  deleteFailed(id: string): Promise<boolean>;
  purgeFailed(olderThanMs: number, archive: boolean): Promise<number>;
  requeue(id: string, reason: string): Promise<boolean>;
  stats(): Promise<{ byState: Record<QueueState, number>; byKind: Record<string, Record<QueueState, number>>; maxPending: number }>;
  /** Drops DONE entries past their expiry. */
  sweep(): Promise<void>;
}
