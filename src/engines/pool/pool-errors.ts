import { EngineError } from '../engine-error.js';

/** Why the pool did not deliver a job's result (the job's own failures pass through unchanged). */
export type PoolErrorKind =
  /** The queue is full: try again after `retryAfterSeconds`. */
  | 'busy'
  /** The job ran longer than its time limit; the worker was killed and is being replaced. */
  | 'timeout'
  /** The worker died under the job twice (or the job already hung/crashed workers twice): refused. */
  | 'poisoned'
  /** The pool is closed, or none of its workers can start. */
  | 'unavailable';

export class PoolError extends EngineError<PoolErrorKind> {
  readonly engine: string;
  /** For `busy`: a hint for the client's Retry-After, in seconds. */
  readonly retryAfterSeconds: number;

  constructor(kind: PoolErrorKind, engine: string, message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(kind, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.engine = engine;
    this.retryAfterSeconds = options?.retryAfterSeconds ?? 1;
  }
}
