import { EngineError } from '../engine-error.js';

/**
 * What the supervisor (`WorkerPool`) needs from one warm worker of an engine: a LibreOffice listener,
 * a Chromium browser, or an in-process slot. The pool owns the worker's life: it starts it through
 * the engine's factory, sends it one job at a time, pings it when idle, and kills or closes it.
 */
export interface PoolWorker<J, R> {
  /** Runs one job. Rejects with `WorkerDiedError` when the worker dies meanwhile; other rejections are the job's own failure. */
  run(job: J): Promise<R>;
  /** A real round trip through the engine; rejects when it does not answer. */
  ping(): Promise<void>;
  /** Resident memory of everything the worker runs (all its processes), in bytes; 0 when unknown. */
  memoryBytes(): Promise<number>;
  /** Ends the worker at once (SIGKILL to its process group). Pending `run` calls reject with `WorkerDiedError`. */
  kill(): void;
  /** Ends the worker gracefully; kills it when that takes too long. */
  close(): Promise<void>;
  /** Settles (with the reason) when the worker dies or is ended, expectedly or not. */
  readonly ended: Promise<Error>;
}

/** Creates a started, ready worker for a pool slot; rejects when the engine cannot start. */
export type WorkerFactory<J, R> = (slot: number) => Promise<PoolWorker<J, R>>;

/** The worker process died or was killed while it held a job. */
export class WorkerDiedError extends EngineError<'workerDied'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('workerDied', message, options);
  }
}
