import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PermanentFailure, type QueueHandler } from '../../../src/operations/queue/work-queue.js';
import type { QueueEntry } from '../../../src/storage/queue/queue-store.js';
import { applyOnceHandler, KIND } from './fixtures/bullmq-apply-once.js';
import { until, useClusterQueueTests } from './fixtures/bullmq-harness.js';

const t = useClusterQueueTests();

/** A handler that fails with a passing error until `failures` attempts have failed. */
function flaky(kind: string, state: { failures: number; permanent?: boolean }): QueueHandler<{ n: number }> {
  return {
    kind,
    concurrency: 2,
    maxAttempts: 3,
    backoff: { baseMs: 20, maxMs: 40 },
    keepDoneMs: 60_000,
    recover: () => ({ retry: true }),
    run: async (entry) => {
      if (state.permanent) throw new PermanentFailure('errorCode -5008: wrong password');
      if (state.failures > 0) {
        state.failures--;
        throw new Error('errorCode -105: engine busy');
      }
      return { n: entry.payload.n };
    },
  };
}

describe('ClusterWorkQueue on BullMQ (real redis-server)', () => {
  it('enqueues, runs and completes an entry; its result, state and session listing come from Redis', async () => {
    const keyPrefix = t.prefix();
    const q = t.open(keyPrefix);
    q.queue.register(applyOnceHandler(q.connections, keyPrefix));
    await q.queue.start();
    const entry = await q.queue.enqueue(KIND, { n: 7 }, { sessionId: 'session-a' });
    expect(entry.id).toMatch(/^[0-9a-f]{32}$/);
    const done = await t.settled(q, entry.id);
    expect(done).toMatchObject({ state: 'DONE', attempts: 1, progress: 100, sessionId: 'session-a', result: { applied: 'now', document: 'document-of-7' } });
    // What BullMQ stored, read with a plain client: the job hash under the key prefix, finished, with its return value.
    const hash = await t.raw.hgetall(`${keyPrefix}bull:${KIND}:${entry.id}`);
    expect(Number(hash.finishedOn)).toBeGreaterThan(0);
    expect(JSON.parse(hash.returnvalue!)).toEqual({ applied: 'now', document: 'document-of-7' });
    expect(await t.applied(keyPrefix, entry.id)).toBe(1);
    expect((await q.queue.list({ kind: KIND, sessionId: 'session-a' })).map((e) => e.id)).toEqual([entry.id]);
    expect(await q.queue.list({ kind: KIND, sessionId: 'session-b' })).toEqual([]);
    expect((await q.queue.stats()).byKind[KIND]).toMatchObject({ DONE: 1, PENDING: 0, RUNNING: 0, FAILED_PERMANENT: 0 });
  });

  it('stores an entry with a dedupeKey once, also when it is enqueued again after it finished (a settled hook run twice)', async () => {
    const keyPrefix = t.prefix();
    const q = t.open(keyPrefix);
    const runs: number[] = [];
    q.queue.register({ ...flaky('once', { failures: 0 }), keepDoneMs: 0, run: async (entry) => (runs.push(entry.payload.n), { n: entry.payload.n }) });
    await q.queue.start();
    const first = await q.queue.enqueue('once', { n: 1 }, { dedupeKey: 'job.completed:x:0' });
    expect((await t.settled(q, first.id)).state).toBe('DONE');
    const again = await q.queue.enqueue('once', { n: 2 }, { dedupeKey: 'job.completed:x:0' });
    expect(again.id).toBe(first.id);
    const other = await q.queue.enqueue('once', { n: 3 }, { dedupeKey: 'job.completed:x:1' });
    expect((await t.settled(q, other.id)).state).toBe('DONE');
    expect(runs).toEqual([1, 3]);
  });

  it('retries passing failures with backoff, parks the last failure in the failed set (DLQ), requeues it with a reason, and purges with an archive', async () => {
    const keyPrefix = t.prefix();
    const q = t.open(keyPrefix);
    const state = { failures: 3 };
    q.queue.register(flaky('flaky', state));
    await q.queue.start();
    const entry = await q.queue.enqueue('flaky', { n: 1 });
    const failed = await t.settled(q, entry.id);
    expect(failed).toMatchObject({ state: 'FAILED_PERMANENT', attempts: 3, maxAttempts: 3, lastError: 'errorCode -105: engine busy' });
    const retries = failed.history.filter((event) => event.event === 'retry scheduled');
    expect(retries).toHaveLength(2);
    // Full jitter: each delay lies in [0, min(maxMs, baseMs × 2^(n-1))].
    for (const [i, event] of retries.entries()) {
      const delay = Number(/next attempt in (\d+) ms/.exec(event.detail ?? '')?.[1]);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(Math.min(40, 20 * 2 ** i));
    }
    expect(failed.history.at(-1)).toMatchObject({ event: 'failed permanently', detail: 'errorCode -105: engine busy' });
    // BullMQ's failed set holds it: that is the replay queue.
    expect(await t.raw.zscore(`${keyPrefix}bull:flaky:failed`, entry.id)).not.toBeNull();
    expect((await q.queue.listFailed(100)).map((e) => e.id)).toEqual([entry.id]);

    // Requeued with a reason, it runs anew with its attempts reset (the engine is back: no failures left).
    expect(await q.queue.requeue(entry.id, 'engine repaired')).toBe(true);
    expect(await q.queue.requeue('0'.repeat(32), 'unknown')).toBe(false);
    const done = await t.settled(q, entry.id);
    expect(done).toMatchObject({ state: 'DONE', attempts: 1, result: { n: 1 } });
    expect(done.history).toContainEqual(expect.objectContaining({ event: 'requeued', detail: 'engine repaired' }));
    expect(await q.queue.listFailed(100)).toEqual([]);

    // A permanent failure goes to the failed set after one attempt; purging archives it first, then removes it.
    state.failures = 0;
    const permanent = t.open(keyPrefix, { consume: true });
    permanent.queue.register({ ...flaky('hopeless', { failures: 0, permanent: true }) });
    await permanent.queue.start();
    const hopeless = await permanent.queue.enqueue('hopeless', { n: 2 });
    expect(await t.settled(permanent, hopeless.id)).toMatchObject({ state: 'FAILED_PERMANENT', attempts: 1, lastError: 'errorCode -5008: wrong password' });
    expect(await permanent.queue.purgeFailed(60_000, true)).toBe(0); // not old enough
    expect(await permanent.queue.purgeFailed(0, true)).toBe(1);
    const archived = readFileSync(path.join(t.dir, `${keyPrefix}archive.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as QueueEntry & { archivedAt: number });
    expect(archived.map((e) => [e.id, e.kind, e.state])).toEqual([[hopeless.id, 'hopeless', 'FAILED_PERMANENT']]);
    expect(archived[0]!.archivedAt).toBeGreaterThan(0);
    expect(await t.raw.exists(`${keyPrefix}bull:hopeless:${hopeless.id}`)).toBe(0);
    expect(await permanent.queue.deleteFailed(hopeless.id)).toBe(false);
  });

  it('redis-server restarted (AOF): every accepted job is still there and completes exactly once', async () => {
    const keyPrefix = t.prefix();
    const producer = t.open(keyPrefix, { consume: false });
    producer.queue.register(applyOnceHandler(producer.connections, keyPrefix));
    await producer.queue.start();
    const ids: string[] = [];
    for (let n = 0; n < 40; n++) ids.push((await producer.queue.enqueue(KIND, { n })).id);
    await t.redis.restart();
    // The producer reconnects on its own (it failed fast meanwhile); a job accepted after the restart counts too.
    ids.push(
      (await until('the producer to reconnect', async () =>
        producer.queue
          .enqueue(KIND, { n: 40 })
          .then((e) => e.id)
          .catch(() => undefined),
      )) as string,
    );
    const consumer = t.open(keyPrefix);
    consumer.queue.register(applyOnceHandler(consumer.connections, keyPrefix));
    await consumer.queue.start();
    for (const id of ids) expect((await t.settled(consumer, id)).state).toBe('DONE');
    const counts = await Promise.all(ids.map((id) => t.applied(keyPrefix, id)));
    expect(counts).toEqual(ids.map(() => 1));

    // While Redis is down, enqueueing fails at once with the store's 503 (-91), not a hang or a 500.
    await t.redis.kill();
    await expect(producer.queue.enqueue(KIND, { n: 41 })).rejects.toMatchObject({ status: 503, errorCode: -91 });
    await t.redis.restart();
  });
});
