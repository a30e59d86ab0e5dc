import { ambientCancellation } from '../../core/cancellation.js';
import { PoolError } from './pool-errors.js';

export interface ToolGateSettings {
  /** The tool, for messages and errors (`qpdf`, `poppler`, `ghostscript`). */
  name: string;
  /** Runs at once; more wait in the queue. */
  concurrency: number;
  /** Runs that may wait; past it a run is refused at once with `busy` (429 with Retry-After). */
  queueLimit: number;
  /** Longest wait for a free slot; past it the run is refused with `busy`. */
  queueTimeoutMs: number;
}

interface Waiter {
  admit: () => void;
  refuse: (error: unknown) => void;
}

/**
 * The supervisor rules of the pools (engines/pool) for tools that run as one process per call (qpdf,
 * poppler, Ghostscript): a bound on the runs at once, a bounded queue (full → PoolError `busy`, the
 * same 429 ENGINE_BUSY with Retry-After the pools answer), a queue timeout, and a call that is
 * cancelled while it waits leaves the queue. The time limit and the kill of each run are `run()`'s
 * (process/run.ts). One gate per tool, built by the wiring and shared by every caller of the tool.
 */
export class ToolGate {
  private running = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly settings: ToolGateSettings) {}

  /** Runs `work` once a slot is free. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  stats(): { running: number; queued: number } {
    return { running: this.running, queued: this.queue.length };
  }

  private acquire(): Promise<void> {
    if (this.running < this.settings.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    if (this.queue.length >= this.settings.queueLimit) return Promise.reject(this.busy('its queue is full'));
    const signal = ambientCancellation();
    return new Promise<void>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
      };
      const waiter: Waiter = {
        admit: () => {
          leave();
          resolve();
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
      };
      const onAbort = () => waiter.refuse(signal?.reason instanceof Error ? signal.reason : new PoolError('unavailable', this.settings.name, 'The call was cancelled.'));
      const timer = setTimeout(() => waiter.refuse(this.busy(`no ${this.settings.name} slot became free within ${Math.round(this.settings.queueTimeoutMs / 1000)} s`)), this.settings.queueTimeoutMs);
      timer.unref();
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private release(): void {
    const next = this.queue[0];
    if (next) {
      // The slot passes straight to the next waiter: `running` stays.
      next.admit();
      return;
    }
    this.running--;
  }

  private busy(detail: string): PoolError {
    return new PoolError('busy', this.settings.name, `The server is busy: ${detail}. Try again in 1 s.`, { retryAfterSeconds: 1 });
  }
}
