import type { Config } from '../../config/load.js';
import { Errors, QuireError } from '../../core/errors.js';
import type { JobCommitRecords } from '../../storage/queue/redis-job-commits.js';
import { CommitRefused, runAtMostOnce } from '../queue/at-most-once.js';
import type { BackgroundQueue } from '../queue/background-queue.js';
import { PermanentFailure, type QueueHandler } from '../queue/work-queue.js';
import { enqueueCompletionWebhook, failedOutcome } from './async-job.js';
import { withCommitGuard } from './commit-guard.js';
import type { JobOutcome } from './job-view.js';
import { JOB, type JobOperation, type OperationJobPayload } from './payloads.js';

/** Runs a web-service route's operation as the session (no HTTP): the document it changed or made. */
export type OperationRunner = (operation: JobOperation, sessionId: string) => Promise<{ documentId: string }>;

export interface ClusterJobDeps {
  config: Config;
  queue: BackgroundQueue;
  commits: JobCommitRecords;
  run: OperationRunner;
  /** The DocumentFile of a document, as `GET documents/{id}/info` answers it (the job's result). */
  documentFile(sessionId: string, documentId: string): Promise<Record<string, unknown>>;
}

/**
 * The "job" handler of cluster mode: an accepted asynchronous call is typed operation data that any
 * node runs through the web service's route (no HTTP replay), with the embedded handler's attempts,
 * backoff, results and webhook. It applies at most once to its document: the document transaction's
 * commit is guarded (commit-guard.ts → at-most-once.ts), so a job a stalled or dead node had started
 * either finishes with what that node committed, fails for an administrator to check (the node died
 * in the middle of its commit), or runs again (nothing was committed).
 */
export function clusterJobHandler(deps: ClusterJobDeps): QueueHandler<OperationJobPayload> {
  const { queue: settings } = deps.config;
  return {
    kind: JOB,
    concurrency: settings.jobWorkers,
    maxAttempts: settings.maxAttempts,
    backoff: { baseMs: settings.retryDelayMs, maxMs: settings.maxRetryDelayMs },
    keepDoneMs: settings.keepResultsMs,
    // The commit record decides what an interrupted job does (runAtMostOnce), not the document's date.
    recover: () => ({ retry: true }),
    run: async (entry, _progress, attempt) => {
      const sessionId = entry.sessionId;
      if (sessionId === undefined) throw new PermanentFailure('the job belongs to no session');
      if (attempt === undefined) throw new PermanentFailure('a cluster job runs on the cluster queue only');
      try {
        const done = await runAtMostOnce(deps.commits, entry.id, attempt, (guard) => withCommitGuard(guard, () => deps.run(entry.payload.operation, sessionId)));
        const documentId = done.ran ? done.result.documentId : done.outcome;
        return { status: 'succeeded', documentFile: await deps.documentFile(sessionId, documentId) } satisfies JobOutcome;
      } catch (error) {
        if (error instanceof PermanentFailure || error instanceof CommitRefused) throw error;
        if (error instanceof QuireError) return failedOutcome(error.status, { errorCode: error.errorCode, errorMessage: error.message, stackTrace: '' });
        // An unexpected failure (a bug, a store that broke): retried like a 500, then the replay queue.
        return failedOutcome(500, { errorCode: Errors.INTERNAL.errorCode, errorMessage: error instanceof Error ? error.message : String(error), stackTrace: '' });
      }
    },
    settled: (entry) => enqueueCompletionWebhook(deps.queue, entry),
  };
}
