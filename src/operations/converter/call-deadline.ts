import { QuireError } from '../../core/errors.js';

/**
 * The time budget of one converter call (`converter.timeout`): every step — waiting for a worker,
 * rendering, page selection, compression, down-sampling, the nested steps — lives within it.
 *
 * Its `signal` aborts when the budget is spent or when the call is cancelled otherwise (the client
 * went away: the HTTP layer's ambient signal). The call runs with it as its ambient cancellation
 * (core/cancellation.ts), so `run()` kills the call's tools and the engine pools withdraw or kill its
 * jobs without each step being handed a signal; steps that take a timeout get what is left of it.
 */
export class CallDeadline {
  /** Epoch milliseconds by which the call must be done. */
  readonly at: number;
  readonly signal: AbortSignal;
  private readonly timer: NodeJS.Timeout;

  constructor(timeoutMs: number, outer: AbortSignal | undefined) {
    this.at = Date.now() + timeoutMs;
    const own = new AbortController();
    this.timer = setTimeout(() => own.abort(timeoutError(timeoutMs)), timeoutMs);
    this.signal = outer ? AbortSignal.any([outer, own.signal]) : own.signal;
  }

  /** Milliseconds left, at least 1 (a tool started with 0 would get no limit at all). */
  remainingMs(): number {
    return Math.max(1, this.at - Date.now());
  }

  /** Throws why the call is over (the budget spent, the client gone), between steps. */
  check(): void {
    if (this.signal.aborted) throw this.signal.reason;
  }

  /** Ends the timer; the call is answered. */
  dispose(): void {
    clearTimeout(this.timer);
  }
}

function timeoutError(timeoutMs: number): QuireError {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return new QuireError(
    'PROCESSING_TIMEOUT',
    `The conversion did not finish within ${seconds} s (converter.timeout): it was stopped and the document is unchanged; the document is too complex or malformed for this server's limits.`,
  );
}
