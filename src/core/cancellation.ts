import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The cancellation of the call whose work is running: an AbortSignal carried by the async context
 * rather than passed through every function. The HTTP layer opens a scope for a synchronous
 * web-service call and aborts it when the client disconnects; `engines/process/run` and the engine
 * pools read it, so a toolbox chain of 22 kinds of operations stops its processes without each
 * operation and engine taking a `signal` parameter.
 *
 * Work that outlives a call or is shared between calls (cached inspections, warm workers, queued
 * pool jobs dispatched from another call's context) must not inherit it: such work runs inside
 * `withCancellation(ownSignal, …)` or `withCancellation(undefined, …)`.
 */
const scope = new AsyncLocalStorage<AbortSignal | undefined>();

/** Runs `work` with `signal` as the ambient cancellation (replacing any outer one; `undefined`: none). */
export function withCancellation<T>(signal: AbortSignal | undefined, work: () => T): T {
  return scope.run(signal, work);
}

/** The ambient cancellation of the running call, if any. */
export function ambientCancellation(): AbortSignal | undefined {
  return scope.getStore();
}
