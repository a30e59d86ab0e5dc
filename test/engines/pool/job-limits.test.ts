import { afterEach, describe, expect, it } from 'vitest';
import { ambientCancellation, withCancellation } from '../../../src/core/cancellation.js';
import { InProcessWorker, type Task } from '../../../src/engines/pool/in-process-worker.js';
import { PoolError } from '../../../src/engines/pool/pool-errors.js';
import { WorkerPool, type JobOutcome, type WorkerPoolOptions } from '../../../src/engines/pool/worker-pool.js';
import { MemoryLimitError } from '../../../src/engines/process/memory-limit.js';
import { ProcessWorkerFactory, isGone, liveWorkers, type Job, type JobResult } from './process-worker.js';
import { rejection } from '../../helpers/rejection.js';

// The hard memory cap of a running job and the withdrawal of jobs whose caller is gone, with real
// worker processes (process-worker.ts, child.mjs). Waits are on conditions, never on guessed delays.

type Pool = WorkerPool<Job, JobResult>;
const MB = 1024 * 1024;
const pools: Pool[] = [];
const factories: ProcessWorkerFactory[] = [];

function setup(overrides: Partial<WorkerPoolOptions<Job, JobResult>> = {}): { pool: Pool; factory: ProcessWorkerFactory; outcomes: JobOutcome[] } {
  const factory = new ProcessWorkerFactory();
  const pool = new WorkerPool<Job, JobResult>({
    name: 'test',
    size: 1,
    queueLimit: 10,
    jobTimeoutMs: 60_000,
    queueTimeoutMs: 60_000,
    maxJobsPerWorker: 0,
    maxMemoryBytes: 0,
    healthIntervalMs: 0,
    create: factory.create,
    ...overrides,
  });
  const outcomes: JobOutcome[] = [];
  pool.on('job', (event) => outcomes.push(event.outcome));
  pools.push(pool);
  factories.push(factory);
  return { pool, factory, outcomes };
}

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
  try {
    for (const factory of factories.splice(0)) {
      for (const worker of factory.workers) expect(await until(() => isGone(worker.pid)), `worker ${worker.pid} still runs`).toBe(true);
    }
  } finally {
    for (const worker of liveWorkers) worker.kill();
  }
});

async function until(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

describe('WorkerPool: the hard memory cap of a running job', () => {
  it('kills a worker whose memory passes memoryLimitBytes mid-job, fails the job with MemoryLimitError and serves on with a fresh worker', async () => {
    const { pool, factory, outcomes } = setup({ memoryLimitBytes: 300 * MB, memoryCheckIntervalMs: 50, memoryLimitSetting: 'engines.test.memoryLimit' });
    await pool.start();
    const first = factory.workers[0]!;
    let peak = 0;
    const sampler = setInterval(() => void first.memoryBytes().then((bytes) => (peak = Math.max(peak, bytes))), 20);
    // 20 MiB every 20 ms: a job that would take its worker to any size.
    const error = await rejection(pool.run({ op: 'grow-forever', mb: 20, ms: 20 }, { key: 'doc-1' }));
    clearInterval(sampler);
    expect(error).toBeInstanceOf(MemoryLimitError);
    expect((error as Error).message).toBe('The test engine needed more memory than the 300 MB it may use (engines.test.memoryLimit); the document is too complex or malformed.');
    expect(await until(() => isGone(first.pid))).toBe(true);
    // Stopped near the cap, not at many GB (the job grows by ~1 GB/s).
    expect(peak).toBeLessThan(1024 * MB);
    expect(outcomes).toEqual(['memory']);
    // Not retried (one worker started for it, plus the replacement), and the pool serves on.
    const next = await pool.run({ op: 'echo', value: 'after' });
    expect(next.value).toBe('after');
    expect(next.pid).not.toBe(first.pid);
    expect(factory.workers).toHaveLength(2);
  });

  it('counts the cap as a strike: a document that hits it twice is refused without touching a worker', async () => {
    const { pool, factory } = setup({ memoryLimitBytes: 200 * MB, memoryCheckIntervalMs: 50 });
    await pool.start();
    for (let i = 0; i < 2; i++) expect(await rejection(pool.run({ op: 'grow-forever', mb: 20, ms: 20 }, { key: 'hungry' }))).toBeInstanceOf(MemoryLimitError);
    await until(() => pool.stats().ready === 1);
    const started = factory.workers.length;
    const refused = await rejection(pool.run({ op: 'echo', value: 1 }, { key: 'hungry' }));
    expect(refused).toBeInstanceOf(PoolError);
    expect((refused as PoolError).kind).toBe('poisoned');
    expect(factory.workers.length).toBe(started);
  });

  it('leaves jobs under the cap alone', async () => {
    const { pool, factory, outcomes } = setup({ memoryLimitBytes: 400 * MB, memoryCheckIntervalMs: 20 });
    await pool.start();
    const grown = await pool.run({ op: 'grow', mb: 100 });
    expect(grown.pid).toBe(factory.workers[0]!.pid);
    expect((await pool.run({ op: 'echo', value: 2 })).pid).toBe(grown.pid);
    expect(outcomes).toEqual(['ok', 'ok']);
  });
});

describe('WorkerPool: jobs whose caller is gone', () => {
  it('kills the worker of a running job when its signal aborts, rejects with the reason, no strike', async () => {
    const { pool, factory, outcomes } = setup();
    await pool.start();
    const first = factory.workers[0]!;
    const controller = new AbortController();
    const pending = rejection(pool.run({ op: 'sleep', ms: 60_000 }, { signal: controller.signal, key: 'doc' }));
    await until(() => pool.stats().busy === 1);
    const reason = new Error('client gone');
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(await until(() => isGone(first.pid))).toBe(true);
    expect(outcomes).toEqual(['cancelled']);
    // No strike: the same document runs again.
    expect((await pool.run({ op: 'echo', value: 'again' }, { key: 'doc' })).value).toBe('again');
  });

  it("takes the call's ambient cancellation (core/cancellation) and withdraws a queued job without touching a worker", async () => {
    const { pool, factory, outcomes } = setup();
    await pool.start();
    const busy = pool.run({ op: 'sleep', ms: 300 });
    const controller = new AbortController();
    const queued = rejection(withCancellation(controller.signal, () => pool.run({ op: 'echo', value: 'never' })));
    await until(() => pool.stats().queued === 1);
    controller.abort(new Error('gone while waiting'));
    expect(((await queued) as Error).message).toBe('gone while waiting');
    expect(pool.stats().queued).toBe(0);
    await busy;
    expect(outcomes).toEqual(['ok']);
    expect(factory.workers).toHaveLength(1);
  });

  it('runs a queued job outside the context of the call whose job end dispatched it', async () => {
    // A's end hands the worker to B from A's async context: B's work must not see A's cancellation
    // (a one-shot LibreOffice started under it would die with A's client).
    const pool = new WorkerPool<Task<unknown>, unknown>({
      name: 'in-process',
      size: 1,
      queueLimit: 10,
      jobTimeoutMs: 10_000,
      queueTimeoutMs: 10_000,
      maxJobsPerWorker: 0,
      maxMemoryBytes: 0,
      healthIntervalMs: 0,
      create: async () => new InProcessWorker<unknown>(),
    });
    await pool.start();
    try {
      const callA = new AbortController();
      const a = withCancellation(callA.signal, () => pool.run(() => new Promise((resolve) => setTimeout(resolve, 100))));
      const b = pool.run(async () => ambientCancellation());
      await a;
      expect(await b).toBeUndefined();
    } finally {
      await pool.close();
    }
  });
});
