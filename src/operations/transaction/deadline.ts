import type { QuireError } from '../../core/errors.js';

/**
 * The time budget of one web-service call: every step of its transaction — waiting for a worker,
 * the engines' work, the nested steps — lives within it.
 *
 * A deadline that `aborts` (the converter's `converter.timeout`) has a `signal` that aborts when the
 * budget is spent or when the call is cancelled otherwise (the client went away: the HTTP layer's
 * ambient signal). The transaction runs its steps with that signal as the ambient cancellation
 * (core/cancellation.ts), so `run()` kills the call's tools and the engine pools withdraw or kill its
 * jobs without each step being handed a signal; steps that take a timeout get what is left of it.
 *
 * A deadline that does not abort (the toolbox's `toolbox.timeout`) is only handed to the tools as
 * their time limit and checked between operations: the outer ambient cancellation (the client's) still
 * applies, but the budget itself kills nothing — each operation maps its own tool's timeout.
 */
export class CallDeadline {
  /** Epoch milliseconds by which the call must be done. */
  readonly at: number;
  /** Aborts when the call is over: the budget spent (aborting deadlines only) or the client gone. */
  readonly signal: AbortSignal;
  readonly aborts: boolean;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(options: { timeoutMs: number; outer: AbortSignal | undefined; abortWith?: (timeoutMs: number) => QuireError }) {
    const { timeoutMs, outer, abortWith } = options;
    this.at = Date.now() + timeoutMs;
    this.aborts = abortWith !== undefined;
    if (abortWith) {
      const own = new AbortController();
      this.timer = setTimeout(() => own.abort(abortWith(timeoutMs)), timeoutMs);
      this.signal = outer ? AbortSignal.any([outer, own.signal]) : own.signal;
    } else {
      this.signal = outer ?? new AbortController().signal;
    }
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
    if (this.timer) clearTimeout(this.timer);
  }
}
