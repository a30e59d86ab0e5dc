import type { JobCommitRecords } from '../../storage/queue/redis-job-commits.js';
import { PermanentFailure, type QueueAttempt } from './work-queue.js';

/**
 * What an attempt calls around the one write that must happen at most once (a document's commit):
 * `beforeCommit` right before it (throws when the attempt may not commit), `afterCommit` right after it,
 * with the outcome a later attempt finishes with (the document's id).
 */
export interface CommitGuard {
  beforeCommit(): Promise<void>;
  afterCommit(outcome: string): Promise<void>;
  /**
   * The job's commit record as the document store names it (without the key prefix its client adds)
   * and the attempt's token: the store's write marks it committed in the same atomic step, so that no
   * moment exists in which the document carries the change and the record says only "claimed".
   */
  record?: { key: string; attempt: string };
}

/** The attempt may not commit: it lost its lock, or another attempt of the job claimed the commit. */
export class CommitRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommitRefused';
  }
}

/** Why a job whose earlier attempt claimed the commit and vanished is not run again. */
export const INTERRUPTED_AFTER_CLAIM = 'interrupted by a node that stopped while it committed its change to the document; check the document and resubmit';

/**
 * Runs `work` for a cluster job so that its commit applies at most once (redis-job-commits.ts):
 * an earlier attempt that committed → `{ ran: false, outcome }` without running; an earlier attempt
 * that claimed the commit and never finished → PermanentFailure (the replay queue), since the document
 * may carry its change; otherwise `work` runs with a guard whose claim succeeds only while this
 * attempt holds the job's BullMQ lock and no other attempt claimed first.
 */
export async function runAtMostOnce<R>(
  commits: JobCommitRecords,
  jobId: string,
  attempt: QueueAttempt,
  work: (guard: CommitGuard) => Promise<R>,
): Promise<{ ran: true; result: R } | { ran: false; outcome: string }> {
  const record = await commits.read(jobId);
  if (record.state === 'committed') return { ran: false, outcome: record.outcome };
  if (record.state === 'claimed' && record.attempt !== attempt.token) throw new PermanentFailure(INTERRUPTED_AFTER_CLAIM);
  const guard: CommitGuard = {
    beforeCommit: async () => {
      const claim = await commits.claim(jobId, attempt.token, attempt.lockKey);
      if (claim === 'lost-lock') throw new CommitRefused(`job ${jobId}: this attempt lost its lock to another node; its result is not committed`);
      if (claim !== 'ok') throw new CommitRefused(`job ${jobId}: another attempt ${claim === 'committed' ? 'committed' : 'is committing'} it; this one is not committed`);
    },
    afterCommit: async (outcome) => {
      await commits.committed(jobId, attempt.token, outcome);
    },
    record: { key: commits.unprefixedKey(jobId), attempt: attempt.token },
  };
  return { ran: true, result: await work(guard) };
}
