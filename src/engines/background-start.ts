import { PoolError } from './pool/pool-errors.js';

/** Where an engine that starts in the background is: `starting` until its start settles. */
export type StartState = 'starting' | 'ready' | 'failed';

/**
 * An engine started in the background, so that the server can listen at once (LibreOffice and
 * Chromium take seconds to warm up, more on a slow machine). A call that needs the engine while it
 * is still starting waits for it, at most `waitMs` (the engine's queue timeout: the same wait a full
 * queue would cost), and then gets the pool's own answer for a full queue (`busy`, 429 with
 * Retry-After); a call after a failed start gets `unavailable` (503), as a pool none of whose
 * workers start does.
 */
export class BackgroundStart<E> {
  private current: StartState = 'starting';
  private value?: E;
  private failure?: unknown;
  private readonly readyListeners: ((engine: E) => void)[] = [];
  /** Settles (never rejects) when the start has finished, with the engine or undefined. */
  readonly settled: Promise<E | undefined>;

  constructor(
    readonly name: string,
    start: () => Promise<E>,
    private readonly waitMs: number,
  ) {
    this.settled = start().then(
      (engine) => {
        this.value = engine;
        this.current = 'ready';
        for (const listener of this.readyListeners.splice(0)) listener(engine);
        return engine;
      },
      (error: unknown) => {
        this.failure = error;
        this.current = 'failed';
        return undefined;
      },
    );
  }

  get state(): StartState {
    return this.current;
  }

  /** The engine once it runs; undefined while starting or after a failed start. */
  get engine(): E | undefined {
    return this.value;
  }

  /** Calls `listener` with the engine once it is ready (at once when it already is). */
  onReady(listener: (engine: E) => void): void {
    if (this.value !== undefined) listener(this.value);
    else if (this.current === 'starting') this.readyListeners.push(listener);
  }

  /** The running engine, waiting for its start within the queue timeout (see the class comment). */
  async ready(signal?: AbortSignal): Promise<E> {
    if (this.value !== undefined) return this.value;
    if (this.current === 'starting') {
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const late = new Promise<'late'>((resolve, reject) => {
        timer = setTimeout(() => resolve('late'), this.waitMs);
        if (signal) {
          onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new PoolError('unavailable', this.name, 'The call was cancelled.'));
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }
      });
      try {
        const outcome = await Promise.race([this.settled, late]);
        if (outcome === 'late') {
          throw new PoolError('busy', this.name, `The server is busy: the ${this.name} engine is still starting. Try again in 1 s.`, { retryAfterSeconds: 1 });
        }
      } finally {
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
      }
    }
    if (this.value !== undefined) return this.value;
    const reason = this.failure instanceof Error ? this.failure.message : String(this.failure);
    throw new PoolError('unavailable', this.name, `The ${this.name} engine could not start on this server: ${reason}`, { cause: this.failure });
  }
}
