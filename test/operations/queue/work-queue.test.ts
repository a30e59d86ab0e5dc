import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { QuireError } from '../../../src/core/errors.js';
import { PermanentFailure, WorkQueue, type QueueHandler, type RecoveryDecision } from '../../../src/operations/queue/work-queue.js';
import { FileQueueStore } from '../../../src/storage/queue/file-queue-store.js';
import type { QueueEntry } from '../../../src/storage/queue/queue-store.js';

const dirs: string[] = [];
const queues: WorkQueue[] = [];

afterEach(async () => {
  for (const queue of queues.splice(0)) {
    await queue.stop(1000);
    await queue.store.close().catch(() => undefined);
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function openQueue(options: { maxPending?: number; dir?: string } = {}): Promise<{ queue: WorkQueue; dir: string }> {
  const dir = options.dir ?? mkdtempSync(path.join(os.tmpdir(), 'quire-work-queue-'));
  if (!options.dir) dirs.push(dir);
  const store = new FileQueueStore(path.join(dir, 'queue'));
  await store.open();
  const queue = new WorkQueue(store, { maxPending: options.maxPending ?? 100, archiveFile: path.join(dir, 'queue', 'failed-archive.jsonl') });
  queues.push(queue);
  return { queue, dir };
}

/** A handler whose behaviour each test sets; it records the attempts it saw. */
function handler(kind: string, run: (entry: QueueEntry<{ n: number }>) => Promise<unknown>, recover: RecoveryDecision = { retry: true }): QueueHandler<{ n: number }> & { seen: number[] } {
  const seen: number[] = [];
  return {
    kind,
    concurrency: 2,
    maxAttempts: 3,
    backoff: { baseMs: 5, maxMs: 20 },
    keepDoneMs: 60_000,
    recover: () => recover,
    run: async (entry) => {
      seen.push(entry.attempts);
      return run(entry);
    },
    seen,
  };
}

async function settledState(queue: WorkQueue, id: string): Promise<QueueEntry> {
  for (let i = 0; i < 400; i++) {
    const entry = await queue.get(id);
    if (entry && (entry.state === 'DONE' || entry.state === 'FAILED_PERMANENT')) return entry;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`entry ${id} did not settle`);
}

describe('WorkQueue', () => {
  it('runs entries to DONE with their result, and retries passing failures with backoff', async () => {
    const { queue } = await openQueue();
    let failures = 2;
    const work = handler('work', async (entry) => {
      if (entry.payload.n === 2 && failures-- > 0) throw new Error('engine busy');
      return { doubled: entry.payload.n * 2 };
    });
    queue.register(work);
    await queue.start();
    const first = await queue.enqueue('work', { n: 1 });
    const second = await queue.enqueue('work', { n: 2 });
    expect(await settledState(queue, first.id)).toMatchObject({ state: 'DONE', result: { doubled: 2 }, attempts: 1, progress: 100 });
    const retried = await settledState(queue, second.id);
    expect(retried).toMatchObject({ state: 'DONE', result: { doubled: 4 }, attempts: 3, lastError: 'engine busy' });
    expect(retried.history.map((event) => event.event)).toEqual(['enqueued', 'started', 'retry scheduled', 'started', 'retry scheduled', 'started', 'done']);
    expect(queue.outcomes.work).toEqual({ done: 2, retried: 2, failedPermanently: 0 });
  });

  it('moves an entry to FAILED_PERMANENT after its last attempt, or at once for a PermanentFailure; requeue runs it again', async () => {
    const { queue } = await openQueue();
    let healthy = false;
    const work = handler('work', async (entry) => {
      if (entry.payload.n === 0) throw new PermanentFailure('cannot ever work');
      if (!healthy) throw new Error('receiver down');
      return 'delivered';
    });
    queue.register(work);
    await queue.start();
    const flaky = await queue.enqueue('work', { n: 1 });
    const doomed = await queue.enqueue('work', { n: 0 });
    expect(await settledState(queue, flaky.id)).toMatchObject({ state: 'FAILED_PERMANENT', attempts: 3, lastError: 'receiver down' });
    expect(await settledState(queue, doomed.id)).toMatchObject({ state: 'FAILED_PERMANENT', attempts: 1, lastError: 'cannot ever work' });
    expect((await queue.listFailed(10)).map((entry) => entry.id).sort()).toEqual([flaky.id, doomed.id].sort());

    healthy = true;
    expect(await queue.requeue(flaky.id, 'receiver fixed')).toBe(true);
    expect(await queue.requeue('f'.repeat(32), 'unknown')).toBe(false);
    const replayed = await settledState(queue, flaky.id);
    expect(replayed).toMatchObject({ state: 'DONE', result: 'delivered', attempts: 1 });
    expect(replayed.history).toContainEqual(expect.objectContaining({ event: 'requeued', detail: 'receiver fixed' }));
    expect(await queue.requeue(flaky.id, 'not failed any more')).toBe(false);
  });

  it('purges failed entries older than a limit, archiving them as JSON lines first when asked', async () => {
    const { queue, dir } = await openQueue();
    queue.register(handler('work', async () => Promise.reject(new PermanentFailure('no'))));
    await queue.start();
    const ids = [];
    for (let n = 0; n < 3; n++) ids.push((await queue.enqueue('work', { n })).id);
    for (const id of ids) await settledState(queue, id);
    expect(await queue.purgeFailed(60_000, true)).toBe(0);
    expect(await queue.deleteFailed(ids[0]!)).toBe(true);
    expect(await queue.deleteFailed(ids[0]!)).toBe(false);
    expect(await queue.purgeFailed(0, true)).toBe(2);
    const archive = path.join(dir, 'queue', 'failed-archive.jsonl');
    const archived = readFileSync(archive, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as QueueEntry & { archivedAt: number });
    expect(archived.map((entry) => entry.id).sort()).toEqual([ids[1], ids[2]].sort());
    expect(archived[0]!.archivedAt).toBeGreaterThan(0);
    await settledState(queue, (await queue.enqueue('work', { n: 9 })).id);
    expect(await queue.purgeFailed(0, false)).toBe(1);
    expect(readFileSync(archive, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(await queue.listFailed(10)).toEqual([]);
  });

  it('refuses work past its bound with QUEUE_FULL (429, Retry-After), except housekeeping', async () => {
    const { queue } = await openQueue({ maxPending: 2 });
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    queue.register(handler('work', async () => gate));
    await queue.start();
    const first = await queue.enqueue('work', { n: 1 });
    await queue.enqueue('work', { n: 2 });
    const refused = await queue.enqueue('work', { n: 3 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(QuireError);
    expect((refused as QuireError).status).toBe(429);
    expect((refused as QuireError).errorCode).toBe(-140);
    expect((refused as QuireError).headers['retry-after']).toMatch(/^\d+$/);
    expect(() => queue.admit()).toThrow(QuireError);
    await queue.enqueue('work', { n: 4 }, { bypassBound: true });
    open();
    await settledState(queue, first.id);
    // Once entries settle the bound frees up again.
    for (let i = 0; i < 100 && (await queue.stats()).byState.PENDING + (await queue.stats()).byState.RUNNING > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(() => queue.admit()).not.toThrow();
  });

  it("decides about entries a dead server left RUNNING: run again, or fail with the handler's reason", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-work-queue-'));
    dirs.push(dir);
    // A first server claims three entries and dies without recording anything (no stop, store closed as a crash would leave it).
    const store = new FileQueueStore(path.join(dir, 'queue'));
    await store.open();
    const dead = new WorkQueue(store, { maxPending: 10, archiveFile: path.join(dir, 'queue', 'failed-archive.jsonl') });
    dead.register(handler('again', async () => new Promise(() => undefined)));
    dead.register(handler('refused', async () => new Promise(() => undefined)));
    const again = await dead.enqueue('again', { n: 1 });
    const refused = await dead.enqueue('refused', { n: 2 });
    const exhausted = await dead.enqueue('again', { n: 3 }, { maxAttempts: 1 });
    await dead.start();
    for (let i = 0; i < 100 && (await store.counts()).byState.RUNNING < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await store.counts()).byState.RUNNING).toBe(3);
    await store.close();

    const { queue } = await openQueue({ dir });
    const rerun = handler('again', async () => 'ran again');
    queue.register(rerun);
    queue.register(handler('refused', async () => 'must not run', { retry: false, reason: 'it may have been applied' }));
    await queue.start();
    expect(await settledState(queue, again.id)).toMatchObject({ state: 'DONE', result: 'ran again', attempts: 2 });
    expect(await settledState(queue, refused.id)).toMatchObject({ state: 'FAILED_PERMANENT', lastError: 'it may have been applied' });
    expect(await settledState(queue, exhausted.id)).toMatchObject({ state: 'FAILED_PERMANENT', lastError: 'the server stopped during the last of 1 attempts' });
    expect(rerun.seen).toEqual([2]);
  });
});
