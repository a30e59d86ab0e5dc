import type { PoolWorker } from './worker.js';

/** A job for an in-process pool: the work itself. */
export type Task<R> = () => Promise<R>;

/**
 * A pool slot for work done inside this process (sharp, pdf-lib): it gives in-process engines the
 * same bounded concurrency, queue, 429s and metrics as the process pools. Such work cannot be
 * killed; a timed-out task is abandoned (its result ignored) and the slot replaced.
 */
export class InProcessWorker<R> implements PoolWorker<Task<R>, R> {
  readonly ended: Promise<Error>;
  private end!: (reason: Error) => void;

  constructor() {
    this.ended = new Promise<Error>((resolve) => (this.end = resolve));
  }

  run(task: Task<R>): Promise<R> {
    return task();
  }

  async ping(): Promise<void> {}

  async memoryBytes(): Promise<number> {
    return 0;
  }

  kill(): void {
    this.end(new Error('abandoned'));
  }

  async close(): Promise<void> {
    this.end(new Error('closed'));
  }
}
