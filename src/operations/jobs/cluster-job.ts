import type { Config } from '../../config/load.js';
import { Errors, QuireError } from '../../core/errors.js';
import type { JobCommitRecords } from '../../storage/queue/redis-job-commits.js';
import { CommitRefused, runAtMostOnce } from '../queue/at-most-once.js';
import { failsWith, REDIS_AWAY_WAIT_MS, retryWhile, whileRedisAway } from '../../storage/redis/redis-away.js';
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
  /** The document's lastModified now; undefined when it is gone. */
  documentModified(sessionId: string, documentId: string): Promise<number | undefined>;
  /** How long an attempt keeps trying to record its commit while Redis is unreachable (default 10 s). */
  recordCommitForMs?: number;
  /** How long a job waits for its document while another operation holds its lock (default LOCKED_WAIT_MS). */
  lockedWaitMs?: number;
  /** How long an attempt runs again while Redis is unreachable before it counts as failed (default REDIS_AWAY_WAIT_MS). */
  redisAwayForMs?: number;
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
        // Run again (as a whole: the commit record says whether the change is in) while Redis is away.
        return await whileRedisAway(async () => {
          await releaseUncommittedClaim(deps, entry.id, entry.payload, sessionId);
          const done = await runAtMostOnce(deps.commits, entry.id, attempt, (guard) =>
            withCommitGuard({ ...guard, afterCommit: (outcome) => untilRecorded(() => guard.afterCommit(outcome), deps.recordCommitForMs ?? 10_000) }, () =>
              whileLocked(() => deps.run(entry.payload.operation, sessionId), entry.payload.synchronous ? 0 : (deps.lockedWaitMs ?? LOCKED_WAIT_MS)),
            ),
          );
          const documentId = done.ran ? done.result.documentId : done.outcome;
          return { status: 'succeeded', documentFile: await deps.documentFile(sessionId, documentId) } satisfies JobOutcome;
        }, deps.redisAwayForMs ?? REDIS_AWAY_WAIT_MS);
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

/** A document lease's lifetime (RedisDocumentLocks' 30 s) and some: a stale lease has expired by then. */
export const LOCKED_WAIT_MS = 35_000;

/**
 * Runs the operation again while its document is in use (409, -75), for up to `forMs` (0 for a
 * forwarded synchronous call, which answers 409 at once as on a single node). A job has no
 * caller waiting for a quick answer, and a lock is a passing state: another call's operation ends, and
 * a lease its holder could not release (Redis was down, or the job's own interrupted attempt held it)
 * expires. Failing the job instead would make a Redis restart or a concurrent call fail accepted jobs.
 */
function whileLocked<T>(run: () => Promise<T>, forMs: number): Promise<T> {
  return retryWhile(failsWith(Errors.DOCUMENT_LOCKED.errorCode), run, forMs, 250);
}

/**
 * An earlier attempt claimed the commit and never marked it committed. When the job's document is
 * still exactly as it was when the job was accepted, that attempt's commit did not happen (a commit
 * changes lastModified): typically its commit failed because Redis went away between the claim and
 * the document's index write. The claim is released and the job runs again instead of failing for an
 * administrator. A late commit of that attempt is still refused by the document lock's fencing token.
 * A changed document (or one without a recorded state: toolbox/new) leaves the claim in place.
 */
async function releaseUncommittedClaim(deps: ClusterJobDeps, jobId: string, payload: OperationJobPayload, sessionId: string): Promise<void> {
  const { documentId, documentModified } = payload;
  if (documentId === undefined || documentModified === undefined) return;
  const record = await deps.commits.read(jobId);
  if (record.state !== 'claimed') return;
  if ((await deps.documentModified(sessionId, documentId)) !== documentModified) return;
  await deps.commits.release(jobId, record.attempt);
}

/**
 * Records a done commit, trying again while Redis is unreachable (503) for up to `forMs`: the
 * document carries the change, and a record left "claimed" would make the job's next attempt fail
 * for an administrator instead of finishing with this outcome.
 */
function untilRecorded(record: () => Promise<void>, forMs: number): Promise<void> {
  return retryWhile(failsWith(Errors.STORE_UNAVAILABLE.errorCode), record, forMs, 100);
}
