import { jsonRecord } from '../../core/json-record.js';
import { Job, Queue, type JobsOptions, type JobState, type JobType } from 'bullmq';
import type { Redis } from 'ioredis';
import { redisCall } from '../redis/connection.js';
import { REDIS_AWAY_WAIT_MS, whileRedisAway } from '../redis/redis-away.js';
import { QUEUE_STATES, type QueueEntry, type QueueFilter, type QueueHistoryEvent, type QueueState } from './queue-store.js';

/**
 * The entries of the cluster's work queue, kept by BullMQ on Redis: one BullMQ queue per kind
 * (`job`, `webhook`, `session-cleanup`), because each kind has its own concurrency and BullMQ sets
 * concurrency per worker of a queue; a kind that backs off for hours (a receiver that is down) then
 * never holds up another. Entry ids are the server's 32-hex ids, used as BullMQ job ids: the `Location`
 * of an accepted job and the `X-Quire-Delivery` of a webhook stay what they are in embedded mode.
 *
 * States map onto BullMQ's: PENDING = waiting/delayed/prioritized/paused, RUNNING = active (a worker
 * holds its lock), DONE = completed, FAILED_PERMANENT = failed (the replay queue). The history an entry
 * shows (DLQ listing) is BullMQ's job log, one JSON event per line, plus "enqueued" from the job's
 * timestamp. Jobs of a session are found through a sorted set per session (BullMQ has no index by data).
 * While Redis is down every call fails at once with StoreUnavailableError (503, -91).
 */
export interface BullmqStoreOptions {
  /**
   * The connection of the producer side (adding, reading, removing): commands fail fast while Redis is
   * down. It must have no ioredis `keyPrefix` (BullMQ refuses one): keys are prefixed by `keyPrefix`.
   */
  connection: Redis;
  /** Prefix of every key: BullMQ's are `<keyPrefix>bull:<kind>:…`, the session index `<keyPrefix>queue:session:<id>`. */
  keyPrefix: string;
  /** Kept per DONE entry of a kind, for `expiresAt` (results are polled until then). */
  keepDoneMs?: (kind: string) => number;
}

/** What a BullMQ job of this queue carries. */
export interface StoredJobData<P = unknown> {
  payload: P;
  sessionId?: string;
}

/** The history kept per entry (BullMQ `keepLogs`), as the embedded queue keeps it. */
export const MAX_HISTORY = 50;

const TYPES_OF: Record<QueueState, JobType[]> = {
  PENDING: ['waiting', 'delayed', 'prioritized', 'waiting-children'],
  RUNNING: ['active'],
  DONE: ['completed'],
  FAILED_PERMANENT: ['failed'],
};

export class BullmqStore {
  private readonly queues = new Map<string, Queue>();

  constructor(private readonly options: BullmqStoreOptions) {}

  /** BullMQ's key prefix (workers of the same queues must use it too). */
  get bullPrefix(): string {
    return `${this.options.keyPrefix}bull`;
  }

  get connection(): Redis {
    return this.options.connection;
  }

  /** The BullMQ queue of a kind (made at the first use). */
  queue(kind: string): Queue {
    let queue = this.queues.get(kind);
    if (!queue) {
      queue = new Queue(kind, { connection: this.options.connection, prefix: this.bullPrefix });
      // Errors reach the caller of each command; without a listener an 'error' event would throw.
      queue.on('error', () => undefined);
      this.queues.set(kind, queue);
    }
    return queue;
  }

  get kinds(): string[] {
    return [...this.queues.keys()];
  }

  /** Adds an entry; a job with the same id already stored is left as it is (BullMQ ignores the duplicate). */
  async add<P>(kind: string, id: string, data: StoredJobData<P>, options: JobsOptions): Promise<Job> {
    const job = await redisCall(() => this.queue(kind).add(kind, data, { ...options, jobId: id, keepLogs: MAX_HISTORY }));
    // The job exists from here on and will run: its caller must not hear 503. The session's index of
    // jobs waits out a passing outage (Redis stopped right after the add) instead.
    const sessionId = data.sessionId;
    if (sessionId !== undefined) await whileRedisAway(() => redisCall(() => this.options.connection.zadd(this.sessionKey(sessionId), String(job.timestamp), id)), REDIS_AWAY_WAIT_MS);
    return job;
  }

  /** The stored entry with this id in one of the known kinds (or in `kind`). */
  find(id: string, kind?: string): Promise<{ job: Job; state: QueueState } | undefined> {
    return redisCall(async () => {
      const kinds = kind === undefined ? this.kinds : [kind];
      const found = await Promise.all(kinds.map((k) => Job.fromId(this.queue(k), id)));
      const job = found.find((j): j is Job => j !== undefined);
      if (!job) return undefined;
      const state = stateOf(await job.getState());
      return state === undefined ? undefined : { job, state };
    });
  }

  get(id: string, kind?: string): Promise<QueueEntry | undefined> {
    return redisCall(async () => {
      const found = await this.find(id, kind);
      return found ? this.toEntry(found.job, found.state) : undefined;
    });
  }

  /** Entries matching the filter, oldest first. A session's are read through its index. */
  list(filter: QueueFilter = {}): Promise<QueueEntry[]> {
    return redisCall(async () => {
      const kinds = filter.kind === undefined ? this.kinds : [filter.kind];
      let entries: QueueEntry[];
      if (filter.sessionId !== undefined) {
        const key = this.sessionKey(filter.sessionId);
        const ids = await this.options.connection.zrange(key, '0', '-1');
        const found = await Promise.all(ids.map(async (id) => ({ id, entry: await this.get(id) })));
        // Ids whose job is gone (expired results, cancelled, purged) leave the index as they are met.
        const gone = found.filter((f) => f.entry === undefined).map((f) => f.id);
        if (gone.length > 0) await this.options.connection.zrem(key, ...gone);
        entries = found.flatMap((f) => (f.entry && f.entry.sessionId === filter.sessionId && kinds.includes(f.entry.kind) ? [f.entry] : []));
        if (filter.state !== undefined) entries = entries.filter((e) => e.state === filter.state);
      } else {
        const states = filter.state === undefined ? QUEUE_STATES : [filter.state];
        entries = [];
        for (const kind of kinds) {
          for (const state of states) {
            const jobs = await this.queue(kind).getJobs(TYPES_OF[state], 0, -1, true);
            entries.push(...(await Promise.all(jobs.map((job) => this.toEntry(job, state)))));
          }
        }
      }
      entries.sort((a, b) => a.createdAt - b.createdAt);
      return filter.limit === undefined ? entries : entries.slice(0, filter.limit);
    });
  }

  /** Appends an event to an entry's history (its BullMQ log). */
  addHistory(kind: string, id: string, event: string, detail?: string, at = Date.now()): Promise<void> {
    return redisCall(async () => {
      const row: QueueHistoryEvent = { at, event, ...(detail ? { detail } : {}) };
      await Job.addJobLog(this.queue(kind), id, JSON.stringify(row), MAX_HISTORY);
    });
  }

  /** Entries per state and kind (BullMQ's counters: a few commands per kind). */
  counts(): Promise<{ byState: Record<QueueState, number>; byKind: Record<string, Record<QueueState, number>> }> {
    return redisCall(async () => {
      const byState = zeroCounts();
      const byKind: Record<string, Record<QueueState, number>> = {};
      for (const kind of this.kinds) {
        const raw = await this.queue(kind).getJobCounts(...Object.values(TYPES_OF).flat());
        const counts = zeroCounts();
        for (const state of QUEUE_STATES) counts[state] = TYPES_OF[state].reduce((sum, type) => sum + (raw[type] ?? 0), 0);
        byKind[kind] = counts;
        for (const state of QUEUE_STATES) byState[state] += counts[state];
      }
      return { byState, byKind };
    });
  }

  /** The key of BullMQ's lock of a running job: its value is the token of the attempt that holds it. */
  lockKey(kind: string, id: string): string {
    return `${this.queue(kind).toKey(id)}:lock`;
  }

  async toEntry(job: Job, state: QueueState): Promise<QueueEntry> {
    const data = (job.data ?? {}) as StoredJobData;
    const kind = job.queueName;
    const { logs } = await this.queue(kind).getJobLogs(job.id!, 0, MAX_HISTORY - 1, true);
    const history: QueueHistoryEvent[] = [{ at: job.timestamp, event: 'enqueued' }, ...logs.flatMap(parseEvent)];
    const finished = job.finishedOn;
    const keepDoneMs = this.options.keepDoneMs?.(kind) ?? 0;
    const updatedAt = Math.max(job.timestamp, job.processedOn ?? 0, finished ?? 0);
    return {
      id: job.id!,
      kind,
      state,
      payload: data.payload,
      ...(data.sessionId === undefined ? {} : { sessionId: data.sessionId }),
      attempts: job.attemptsStarted,
      maxAttempts: job.opts.attempts ?? 1,
      createdAt: job.timestamp,
      updatedAt,
      runAfter: job.timestamp + (job.delay ?? 0),
      ...(job.processedOn ? { startedAt: job.processedOn } : {}),
      ...(state === 'DONE' && finished ? { finishedAt: finished, ...(keepDoneMs > 0 ? { expiresAt: finished + keepDoneMs } : {}) } : {}),
      ...(state === 'FAILED_PERMANENT' && finished ? { failedAt: finished } : {}),
      ...(job.failedReason ? { lastError: job.failedReason } : {}),
      ...(state === 'DONE' ? { result: job.returnvalue as unknown } : {}),
      progress: state === 'DONE' ? 100 : typeof job.progress === 'number' ? job.progress : 0,
      history: history.slice(-MAX_HISTORY),
    };
  }

  /** Closes the queues; bounded, since a queue waiting for a Redis that is gone must not hold up a shutdown. */
  async close(timeoutMs = 2000): Promise<void> {
    const closing = Promise.all([...this.queues.values()].map((queue) => queue.close().catch(() => undefined)));
    this.queues.clear();
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }

  private sessionKey(sessionId: string): string {
    return `${this.options.keyPrefix}queue:session:${sessionId}`;
  }
}

function stateOf(state: JobState | 'unknown'): QueueState | undefined {
  for (const s of QUEUE_STATES) if ((TYPES_OF[s] as string[]).includes(state)) return s;
  return undefined;
}

function zeroCounts(): Record<QueueState, number> {
  return { PENDING: 0, RUNNING: 0, DONE: 0, FAILED_PERMANENT: 0 };
}

function parseEvent(line: string): QueueHistoryEvent[] {
  return jsonRecord<QueueHistoryEvent>(line, (value) => typeof value.at === 'number' && typeof value.event === 'string');
}
