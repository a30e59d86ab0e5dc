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
 *
 * Why scopes are counted: on Node 20 an enabled AsyncLocalStorage installs async and promise hooks
 * that run for every promise and async resource of the process, ~10 % of the CPU of a `GET info`
 * (measured with `npm run bench -- --only=info --cpu-prof`), and it stays enabled once used. So the
 * storage is enabled while at least one scope is open and disabled when the last one ends: calls
 * that run while no operation is in flight pay nothing. Work that escaped its scope (not awaited by
 * it) may then find no ambient cancellation, which is what it should find: its call is over.
 */
const scope = new AsyncLocalStorage<AbortSignal | undefined>();
let openScopes = 0;

/**
 * Keeps the ambient storage enabled until the returned release is called (idempotent): for a scope
 * whose work goes on after `withCancellation` returned, e.g. a request handler started from a hook.
 */
export function holdCancellationScope(): () => void {
  openScopes += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    openScopes -= 1;
    if (openScopes === 0) scope.disable();
  };
}

/**
 * Runs `work` with `signal` as the ambient cancellation (replacing any outer one; `undefined`: none).
 * The scope counts as open until `work`'s result settles (at once when it is not a promise).
 */
export function withCancellation<T>(signal: AbortSignal | undefined, work: () => T): T {
  const release = holdCancellationScope();
  let result: T;
  try {
    result = scope.run(signal, work);
  } catch (error) {
    release();
    throw error;
  }
  if (isThenable(result)) result.then(release, release);
  else release();
  return result;
}

/** How many scopes are open (the storage's hooks are installed while this is above zero). */
export function openCancellationScopes(): number {
  return openScopes;
}

/** The ambient cancellation of the running call, if any. */
export function ambientCancellation(): AbortSignal | undefined {
  return scope.getStore();
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
