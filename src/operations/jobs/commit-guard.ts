import { AsyncLocalStorage } from 'node:async_hooks';
import type { CommitGuard } from '../queue/at-most-once.js';

/**
 * The commit guard of the cluster job that runs the current operation, if any: the document
 * transaction asks it right before its commit (and tells it right after), so that a job re-run on
 * another node after a stall cannot commit a second time (operations/queue/at-most-once.ts). Carried
 * ambiently because the web services are called as they are from HTTP and know nothing of jobs.
 *
 * Only cluster jobs open a scope; embedded mode never does, so `activeCommitGuard()` is then a
 * `getStore()` of a storage never enabled. The storage is disabled again when the last scope ends:
 * an enabled AsyncLocalStorage hooks every promise of the process (see core/cancellation.ts).
 */
const scope = new AsyncLocalStorage<CommitGuard>();
let openScopes = 0;

export async function withCommitGuard<T>(guard: CommitGuard, work: () => Promise<T>): Promise<T> {
  openScopes += 1;
  try {
    return await scope.run(guard, work);
  } finally {
    openScopes -= 1;
    if (openScopes === 0) scope.disable();
  }
}

/** The guard of the cluster job the caller runs in, or undefined (an HTTP call, an embedded job). */
export function activeCommitGuard(): CommitGuard | undefined {
  return scope.getStore();
}
