import type { Redis } from 'ioredis';
import { redisCall } from '../redis/connection.js';

/**
 * The idempotency record that makes a cluster job apply at most once to its document. A job's attempt
 * is named by the token of the BullMQ lock it holds. Before the document's commit (the rename into the
 * store) the attempt *claims* the record; the claim succeeds only
 * - while that attempt still holds the job's BullMQ lock (a worker that stalled — paused, cut off, or
 *   presumed dead — has lost it once the stalled check gave the job to another worker: its late commit
 *   is refused, so the lock token works as a fencing token), and
 * - when no other attempt claimed it before (the first claim wins; Redis runs the script atomically).
 * The document store's write of the commit marks the record *committed* with its outcome (the
 * document's id) in the same Redis script (redis-document-store.ts, `commitRecord`), and the attempt
 * marks it again after the commit (the same values).
 *
 * A later attempt (the job re-run by the stalled check, or a retry) reads the record first:
 * - committed: the job's work is done; it finishes with the recorded outcome instead of running again;
 * - claimed by an attempt that never marked it: that attempt died between its claim and the end of its
 *   commit, so the document may or may not carry the change — the job fails for an administrator to
 *   check (as the embedded queue does after a crash that may have changed the document), never twice;
 * - none: nothing was committed, the job runs.
 */
export type CommitRecord = { state: 'none' } | { state: 'claimed'; attempt: string } | { state: 'committed'; attempt: string; outcome: string };

export type ClaimResult = 'ok' | 'lost-lock' | 'claimed' | 'committed';

// KEYS[1] the record, KEYS[2] the job's BullMQ lock; ARGV[1] the attempt's lock token, ARGV[2] the record's lifetime (ms).
const CLAIM = `
local holder = redis.call('HGET', KEYS[1], 'attempt')
if holder then
  if holder == ARGV[1] then return 'ok' end
  return redis.call('HGET', KEYS[1], 'state')
end
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 'lost-lock' end
redis.call('HSET', KEYS[1], 'state', 'claimed', 'attempt', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 'ok'
`;

// KEYS[1] the record; ARGV[1] the attempt, ARGV[2] the outcome.
const COMMITTED = `
if redis.call('HGET', KEYS[1], 'attempt') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'committed', 'outcome', ARGV[2])
return 1
`;

// KEYS[1] the record; ARGV[1] the attempt whose claim is released.
const RELEASE = `
if redis.call('HGET', KEYS[1], 'attempt') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'claimed' then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

export class JobCommitRecords {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    /** How long a record is kept: longer than a job can wait in the replay queue before it is requeued. */
    private readonly lifetimeMs = 30 * 24 * 3600_000,
  ) {}

  /** Claims the right to commit for `attempt` (the BullMQ lock token) while it holds `lockKey`. */
  async claim(jobId: string, attempt: string, lockKey: string): Promise<ClaimResult> {
    return (await redisCall(() => this.redis.eval(CLAIM, 2, this.key(jobId), lockKey, attempt, String(this.lifetimeMs)))) as ClaimResult;
  }

  /** Marks the claim of `attempt` committed with its outcome; false when another attempt holds the record. */
  async committed(jobId: string, attempt: string, outcome: string): Promise<boolean> {
    return (await redisCall(() => this.redis.eval(COMMITTED, 1, this.key(jobId), attempt, outcome))) === 1;
  }

  async read(jobId: string): Promise<CommitRecord> {
    const fields = await redisCall(() => this.redis.hgetall(this.key(jobId)));
    if (fields.attempt === undefined) return { state: 'none' };
    if (fields.state === 'committed') return { state: 'committed', attempt: fields.attempt, outcome: fields.outcome ?? '' };
    return { state: 'claimed', attempt: fields.attempt };
  }

  /**
   * Releases the claim of `attempt` if it is still only claimed (never marked committed): the caller
   * established that its commit did not happen (the document is unchanged), so the job may run again.
   * False when another attempt holds the record or it is committed.
   */
  async release(jobId: string, attempt: string): Promise<boolean> {
    return (await redisCall(() => this.redis.eval(RELEASE, 1, this.key(jobId), attempt))) === 1;
  }

  /** Forgets the record: an administrator requeued the job after checking its document, so it runs anew. */
  async forget(jobId: string): Promise<void> {
    await redisCall(() => this.redis.del(this.key(jobId)));
  }

  private key(jobId: string): string {
    return `${this.keyPrefix}${this.unprefixedKey(jobId)}`;
  }

  /** The record's key for a client that adds the cluster's key prefix itself (the document store's). */
  unprefixedKey(jobId: string): string {
    return `queue:commit:${jobId}`;
  }
}
