import { afterEach, describe, expect, it } from 'vitest';
import { PoolError, type PoolErrorKind } from '../../../src/engines/pool/pool-errors.js';
import { WorkerPool, type JobOutcome, type PoolEvents, type WorkerPoolOptions } from '../../../src/engines/pool/worker-pool.js';
import { JobFailedError, ProcessWorkerFactory, groupMembers, isGone, liveWorkers, type Job, type JobResult, type ProcessWorker, type ProcessWorkerOptions } from './process-worker.js';
import { rejection } from '../../helpers/rejection.js';

// The supervisor's rules, exercised with real child processes (see process-worker.ts and child.mjs).
// Waits are on events or on conditions polled every few milliseconds, never on a guessed delay.

type Pool = WorkerPool<Job, JobResult>;

const pools: Pool[] = [];
const factories: ProcessWorkerFactory[] = [];

function setup(
  overrides: Partial<WorkerPoolOptions<Job, JobResult>> = {},
  optionsFor?: (slot: number, slotCall: number, call: number) => ProcessWorkerOptions,
): { pool: Pool; factory: ProcessWorkerFactory } {
  const factory = new ProcessWorkerFactory(optionsFor);
  const pool = new WorkerPool<Job, JobResult>({
    name: 'test',
    size: 1,
    queueLimit: 10,
    jobTimeoutMs: 10_000,
    queueTimeoutMs: 10_000,
    maxJobsPerWorker: 0,
    maxMemoryBytes: 0,
    healthIntervalMs: 0,
    pingTimeoutMs: 500,
    create: factory.create,
    ...overrides,
  });
  pools.push(pool);
  factories.push(factory);
  return { pool, factory };
}

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
  try {
    // Whatever a test did, a closed pool leaves no worker process behind.
    for (const factory of factories.splice(0)) {
      for (const worker of factory.workers) expect(await waitUntilGone(worker.pid), `worker ${worker.pid} still runs`).toBe(true);
    }
  } finally {
    for (const worker of liveWorkers) worker.kill();
  }
});

async function waitFor(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function waitUntilGone(pid: number, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!isGone(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/** The next `name` event (matching `filter`). */
function nextEvent<K extends keyof PoolEvents>(pool: Pool, name: K, filter: (event: PoolEvents[K][0]) => boolean = () => true): Promise<PoolEvents[K][0]> {
  return new Promise((resolve) => {
    const listener = (event: PoolEvents[K][0]): void => {
      if (!filter(event)) return;
      pool.off(name, listener as never);
      resolve(event);
    };
    pool.on(name, listener as never);
  });
}

function recordJobs(pool: Pool): JobOutcome[] {
  const outcomes: JobOutcome[] = [];
  pool.on('job', (event) => outcomes.push(event.outcome));
  return outcomes;
}

/** The rejection of `promise`; fails when it resolves. */
function expectPoolError(error: unknown, kind: PoolErrorKind): PoolError {
  expect(error).toBeInstanceOf(PoolError);
  const poolError = error as PoolError;
  expect(poolError.kind, poolError.message).toBe(kind);
  expect(poolError.engine).toBe('test');
  return poolError;
}

function slotWorker(factory: ProcessWorkerFactory, slot: number): ProcessWorker {
  const worker = factory.bySlot.get(slot);
  if (!worker) throw new Error(`no worker started for slot ${slot}`);
  return worker;
}

function lastWorker(factory: ProcessWorkerFactory): ProcessWorker {
  const worker = factory.workers.at(-1);
  if (!worker) throw new Error('no worker started');
  return worker;
}

describe('WorkerPool with real processes: queue', () => {
  it('runs jobs concurrently up to size, queues the rest, and refuses past queueLimit with busy', async () => {
    const { pool, factory } = setup({ size: 2, queueLimit: 2 });
    const jobEvents: PoolEvents['job'][0][] = [];
    pool.on('job', (event) => jobEvents.push(event));
    await pool.start();
    expect(pool.stats()).toMatchObject({ size: 2, ready: 2, busy: 0, starting: 0 });

    const a = pool.run({ op: 'sleep', ms: 300 });
    const b = pool.run({ op: 'sleep', ms: 300 });
    expect(pool.stats()).toMatchObject({ busy: 2, queued: 0 });
    const c = pool.run({ op: 'echo', value: 'c' });
    const d = pool.run({ op: 'echo', value: 'd' });
    expect(pool.stats()).toMatchObject({ busy: 2, queued: 2 });

    const refused = expectPoolError(await rejection(pool.run({ op: 'echo', value: 'e' })), 'busy');
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true);
    expect(refused.message).toMatch(/Try again in \d+ s/);
    expect(pool.stats().rejected).toBe(1);

    const [ra, rb, rc, rd] = await Promise.all([a, b, c, d]);
    // The two hung jobs ran side by side, one on each worker.
    expect(new Set([ra.pid, rb.pid])).toEqual(new Set(factory.workers.map((w) => w.pid)));
    expect([rc.value, rd.value]).toEqual(['c', 'd']);
    // The queued ones could only start once a sleeping one had finished.
    // (The other two were dispatched at once: their queuedMs is 0, or 1 when the clock ticked.)
    expect(jobEvents).toHaveLength(4);
    expect(jobEvents.filter((e) => e.queuedMs >= 250)).toHaveLength(2);
    expect(pool.stats()).toMatchObject({ busy: 0, queued: 0, completed: 4, failed: 0, restarts: 0 });
    expect(factory.calls).toBe(2);
  });

  it('refuses a job that waited longer than queueTimeoutMs with busy', async () => {
    const { pool } = setup({ size: 1, queueTimeoutMs: 150 });
    await pool.start();
    const hung = pool.run({ op: 'sleep', ms: 400 });
    const started = Date.now();
    const refused = expectPoolError(await rejection(pool.run({ op: 'echo', value: 1 })), 'busy');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // Refused while the first job still held the only worker.
    expect(pool.stats()).toMatchObject({ busy: 1, queued: 0, rejected: 1 });
    await expect(hung).resolves.toMatchObject({ pid: expect.any(Number) });
    expect(pool.stats()).toMatchObject({ completed: 1, failed: 0 });
  });

  it('hands a freed worker to the longest-waiting job, not to one that arrives just then', async () => {
    const { pool } = setup({ size: 1 });
    await pool.start();
    const order: string[] = [];
    let c: Promise<unknown> | undefined;
    const a = pool.run({ op: 'sleep', ms: 100 }).then(() => {
      order.push('A');
      // Arrives the moment A's worker is free, while B is already waiting.
      c = pool.run({ op: 'echo', value: 'C' }).then(() => order.push('C'));
    });
    const b = pool.run({ op: 'echo', value: 'B' }).then(() => order.push('B'));
    await Promise.all([a, b]);
    await c;
    expect(order).toEqual(['A', 'B', 'C']);
  });
});

describe('WorkerPool with real processes: timeouts', () => {
  it('kills the whole process group of a hung job, fails it with timeout and runs the next job on a fresh worker', async () => {
    const { pool, factory } = setup({ size: 1 });
    await pool.start();
    const first = await pool.run({ op: 'spawn-grandchild' });
    const grandchild = first.grandchild ?? 0;
    expect(grandchild).toBeGreaterThan(1);
    expect(isGone(grandchild)).toBe(false);
    expect((await groupMembers(first.pid)).sort()).toEqual([first.pid, grandchild].sort());

    const restart = nextEvent(pool, 'restart');
    const started = Date.now();
    const error = expectPoolError(await rejection(pool.run({ op: 'sleep', ms: 60_000 }, { timeoutMs: 300 })), 'timeout');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(300 + 2000);
    expect(error.message).toMatch(/did not finish within 0\.3 s/);

    // The pool reports the timeout once the worker is dead; its grandchild went with the group.
    expect(isGone(first.pid)).toBe(true);
    expect(await waitUntilGone(grandchild)).toBe(true);
    expect(await groupMembers(first.pid)).toEqual([]);
    expect(await restart).toMatchObject({ engine: 'test', slot: 0, reason: 'job timed out after 300 ms' });

    const next = await pool.run({ op: 'echo', value: 'after' });
    expect(next).toEqual({ pid: lastWorker(factory).pid, value: 'after' });
    expect(next.pid).not.toBe(first.pid);
    expect(factory.calls).toBe(2);
    expect(pool.stats()).toMatchObject({ timeouts: 1, restarts: 1, crashes: 0, completed: 2, failed: 1, ready: 1 });
  });

  it('refuses a key that hung workers twice without touching a worker', async () => {
    const { pool, factory } = setup({ size: 1, jobTimeoutMs: 250 });
    const outcomes = recordJobs(pool);
    await pool.start();
    for (let i = 0; i < 2; i++) {
      expectPoolError(await rejection(pool.run({ op: 'sleep', ms: 60_000 }, { key: 'doc-slow' })), 'timeout');
    }
    await waitFor(() => pool.stats().ready === 1, 'the replacement worker');
    const calls = factory.calls;
    const running = factory.livePids();

    const started = Date.now();
    const refused = expectPoolError(await rejection(pool.run({ op: 'sleep', ms: 60_000 }, { key: 'doc-slow' })), 'poisoned');
    expect(Date.now() - started).toBeLessThan(500);
    expect(refused.message).toMatch(/twice/);
    expect(factory.calls).toBe(calls);
    expect(factory.livePids()).toEqual(running);
    expect(pool.stats()).toMatchObject({ busy: 0, timeouts: 2, rejected: 1 });

    // Other documents are served as before.
    await expect(pool.run({ op: 'echo', value: 1 }, { key: 'doc-fine' })).resolves.toMatchObject({ value: 1 });
    expect(outcomes).toEqual(['timeout', 'timeout', 'poisoned', 'ok']);
  });
});

describe('WorkerPool with real processes: crashes', () => {
  it('replaces a worker that dies under a job and retries the job once on the replacement', async () => {
    const { pool, factory } = setup({ size: 1 });
    const outcomes = recordJobs(pool);
    await pool.start();
    const doomed = slotWorker(factory, 0).pid;
    const restart = nextEvent(pool, 'restart');

    const result = await pool.run({ op: 'exit', signal: true, onlyPid: doomed }, { key: 'doc-once' });
    expect(result.pid).not.toBe(doomed);
    expect(result.pid).toBe(lastWorker(factory).pid);
    expect(isGone(doomed)).toBe(true);
    expect((await restart).reason).toMatch(/^worker died under a job: .*SIGKILL/);
    expect(outcomes).toEqual(['crashed', 'ok']);
    expect(pool.stats()).toMatchObject({ crashes: 1, restarts: 1, completed: 1, timeouts: 0 });
    expect(factory.calls).toBe(2);
  });

  it('retries on another idle worker at once when there is one', async () => {
    const { pool, factory } = setup({ size: 2 });
    await pool.start();
    const doomed = slotWorker(factory, 0).pid;
    const survivor = slotWorker(factory, 1).pid;
    // The first idle slot (0) takes the job and dies; slot 1 runs the retry.
    const result = await pool.run({ op: 'exit', onlyPid: doomed });
    expect(result.pid).toBe(survivor);
    expect(pool.stats()).toMatchObject({ crashes: 1, completed: 1 });
    await waitFor(() => pool.stats().ready === 2, 'the replacement of slot 0');
    expect(factory.calls).toBe(3);
  });

  it('fails a job that kills every worker it touches with poisoned and refuses its key from then on', async () => {
    const { pool, factory } = setup({ size: 2 });
    const outcomes = recordJobs(pool);
    await pool.start();
    const first = factory.workers.map((w) => w.pid);

    const error = expectPoolError(await rejection(pool.run({ op: 'exit' }, { key: 'doc-bad' })), 'poisoned');
    expect(error.cause).toBeInstanceOf(Error);
    expect(outcomes).toEqual(['crashed', 'crashed']);
    for (const pid of first) expect(isGone(pid)).toBe(true);
    expect(pool.stats()).toMatchObject({ crashes: 2, restarts: 2, completed: 0 });

    // The pool recovers: both slots get a new worker, and a normal job succeeds.
    await waitFor(() => pool.stats().ready === 2, 'both replacements');
    expect(factory.calls).toBe(4);
    await expect(pool.run({ op: 'echo', value: 'fine' })).resolves.toMatchObject({ value: 'fine' });

    // The same document is refused at once: no worker runs it, none is started.
    const running = factory.livePids();
    const refused = expectPoolError(await rejection(pool.run({ op: 'exit' }, { key: 'doc-bad' })), 'poisoned');
    expect(refused.cause).toBeUndefined();
    expect(factory.calls).toBe(4);
    expect(factory.livePids()).toEqual(running);
    expect(pool.stats()).toMatchObject({ crashes: 2, busy: 0, rejected: 1 });
    expect(outcomes).toEqual(['crashed', 'crashed', 'ok', 'poisoned']);
  });

  it('with a single worker, the retry of a crashed job waits for the replacement', async () => {
    const { pool, factory } = setup({ size: 1 });
    await pool.start();
    expectPoolError(await rejection(pool.run({ op: 'exit', signal: true })), 'poisoned');
    // Initial worker, the replacement the retry killed, and the replacement after that.
    await waitFor(() => pool.stats().ready === 1, 'the second replacement');
    expect(factory.calls).toBe(3);
    await expect(pool.run({ op: 'echo', value: 2 })).resolves.toEqual({ pid: lastWorker(factory).pid, value: 2 });
  });

  it("passes a job's own error through unchanged and keeps the worker", async () => {
    const { pool, factory } = setup({ size: 1 });
    const outcomes = recordJobs(pool);
    await pool.start();
    const pid = slotWorker(factory, 0).pid;
    for (let i = 0; i < 3; i++) {
      const error = await rejection(pool.run({ op: 'fail', message: 'bad input' }, { key: 'doc-invalid' }));
      expect(error).toBeInstanceOf(JobFailedError);
      expect(error).not.toBeInstanceOf(PoolError);
      expect((error as Error).message).toBe('bad input');
    }
    // Job failures are not strikes: the key is still accepted, on the same worker.
    await expect(pool.run({ op: 'echo', value: 3 }, { key: 'doc-invalid' })).resolves.toEqual({ pid, value: 3 });
    expect(factory.calls).toBe(1);
    expect(outcomes).toEqual(['failed', 'failed', 'failed', 'ok']);
    expect(pool.stats()).toMatchObject({ failed: 3, completed: 1, restarts: 0, crashes: 0, rejected: 0 });
  });
});

describe('WorkerPool with real processes: recycling', () => {
  it('recycles a worker after maxJobsPerWorker jobs, starting the replacement first', async () => {
    const { pool, factory } = setup({ size: 1, maxJobsPerWorker: 2 });
    await pool.start();
    const old = slotWorker(factory, 0).pid;
    const restart = nextEvent(pool, 'restart');
    expect((await pool.run({ op: 'echo', value: 1 })).pid).toBe(old);
    expect((await pool.run({ op: 'echo', value: 2 })).pid).toBe(old);
    // The replacement is starting while the old worker still counts as ready.
    expect(pool.stats()).toMatchObject({ ready: 1, starting: 1 });

    expect(await restart).toMatchObject({ slot: 0, reason: 'recycled after 2 jobs' });
    const fresh = lastWorker(factory).pid;
    expect(fresh).not.toBe(old);
    expect((await pool.run({ op: 'echo', value: 3 })).pid).toBe(fresh);
    expect(await waitUntilGone(old)).toBe(true);
    expect(factory.calls).toBe(2);
    expect(pool.stats()).toMatchObject({ restarts: 1, completed: 3, failed: 0, crashes: 0 });
  });

  it('draws each worker its own job limit, up to a fifth below maxJobsPerWorker, so workers are not all recycled at once', async () => {
    const { pool } = setup({ size: 2, maxJobsPerWorker: 50 });
    await pool.start();
    const limits: number[] = [];
    pool.on('restart', ({ reason }) => limits.push(Number(/^recycled after (\d+) jobs$/.exec(reason)?.[1])));
    for (let i = 0; limits.length < 6; i++) await pool.run({ op: 'echo', value: i });
    for (const limit of limits) {
      expect(limit).toBeGreaterThanOrEqual(41);
      expect(limit).toBeLessThanOrEqual(50);
    }
    // Ten possible limits: six equal draws would come once in 100,000 runs.
    expect(new Set(limits).size).toBeGreaterThan(1);
  });

  it('keeps jobs flowing while workers are recycled', async () => {
    const { pool, factory } = setup({ size: 2, maxJobsPerWorker: 3, queueLimit: 10 });
    await pool.start();
    let restarts = 0;
    pool.on('restart', () => restarts++);
    // Four clients keep the pool busy (two jobs running, two waiting) until four recycles happened.
    const results: JobResult[] = [];
    const client = async (id: number): Promise<void> => {
      for (let i = 0; restarts < 4; i++) results.push(await pool.run(i % 2 === 0 ? { op: 'sleep', ms: 5 } : { op: 'echo', value: id }));
    };
    await Promise.all([0, 1, 2, 3].map(client));
    expect(new Set(results.map((r) => r.pid)).size).toBeGreaterThanOrEqual(4);
    await waitFor(() => pool.stats().starting === 0, 'the last replacement');
    const stats = pool.stats();
    expect(stats).toMatchObject({ completed: results.length, failed: 0, rejected: 0, crashes: 0, timeouts: 0, ready: 2 });
    // Every restart was a recycle, and every recycled worker got replaced.
    expect(stats.restarts).toBeGreaterThanOrEqual(4);
    expect(stats.restarts).toBe(factory.calls - 2);
  });

  it('recycles a worker whose memory passed maxMemoryBytes', async () => {
    const limit = 120 * 1024 * 1024;
    const { pool, factory } = setup({ size: 1, maxMemoryBytes: limit, queueLimit: 20 });
    await pool.start();
    const old = slotWorker(factory, 0);
    const baseline = await old.memoryBytes();
    expect(baseline).toBeGreaterThan(0);
    expect(baseline).toBeLessThan(limit);

    const restart = nextEvent(pool, 'restart');
    const grown = await pool.run({ op: 'grow', mb: 150 });
    expect(grown.pid).toBe(old.pid);
    // Jobs submitted meanwhile all succeed, on the old worker or the new one.
    const during = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.run({ op: 'echo', value: i })));
    expect(during.map((r) => r.value)).toEqual([0, 1, 2, 3, 4, 5]);

    expect((await restart).reason).toMatch(/^recycled at \d+ MB resident$/);
    const fresh = lastWorker(factory);
    expect(fresh.pid).not.toBe(old.pid);
    expect((await pool.run({ op: 'echo', value: 'new' })).pid).toBe(fresh.pid);
    expect(await waitUntilGone(old.pid)).toBe(true);
    expect(pool.stats()).toMatchObject({ failed: 0, rejected: 0, restarts: 1 });
  });
});

describe('WorkerPool with real processes: health', () => {
  it('replaces an idle worker killed from outside', async () => {
    const { pool, factory } = setup({ size: 1 });
    await pool.start();
    const old = slotWorker(factory, 0).pid;
    const restart = nextEvent(pool, 'restart');
    process.kill(old, 'SIGKILL');
    expect((await restart).reason).toMatch(/^worker ended: .*SIGKILL/);
    await waitFor(() => pool.stats().ready === 1, 'the replacement');
    const result = await pool.run({ op: 'echo', value: 'x' });
    expect(result.pid).not.toBe(old);
    expect(pool.stats()).toMatchObject({ restarts: 1, crashes: 0, failed: 0, completed: 1 });
  });

  it('replaces a worker that stops answering pings, but not while it runs a job', async () => {
    const { pool, factory } = setup({ size: 1, healthIntervalMs: 50, pingTimeoutMs: 150 }, (_slot, slotCall) => ({ ignorePings: slotCall === 0 }));
    await pool.start();
    const mute = slotWorker(factory, 0).pid;
    const restart = nextEvent(pool, 'restart');
    // Busy workers are not pinged: the job outlives several health intervals.
    const busy = await pool.run({ op: 'sleep', ms: 400 });
    expect(busy.pid).toBe(mute);
    expect(pool.stats().restarts).toBe(0);

    expect((await restart).reason).toMatch(/^health check failed: no answer within 150 ms/);
    expect(await waitUntilGone(mute)).toBe(true);
    await waitFor(() => pool.stats().ready === 1, 'the replacement');
    expect(await pool.healthy()).toBe(true);
    expect((await pool.run({ op: 'echo', value: 1 })).pid).toBe(lastWorker(factory).pid);
    // The answering replacement survives further checks.
    const checks = Date.now();
    await waitFor(() => Date.now() - checks > 400, 'a few health intervals');
    expect(pool.stats().restarts).toBe(1);
    expect(factory.calls).toBe(2);
  });

  it('healthy() is false when the idle worker does not answer', async () => {
    const { pool } = setup({ size: 1, pingTimeoutMs: 100 }, () => ({ ignorePings: true }));
    await pool.start();
    expect(await pool.healthy()).toBe(false);
  });
});

describe('WorkerPool with real processes: starting', () => {
  it('start() rejects with unavailable when no worker can start', async () => {
    const { pool, factory } = setup({ size: 2 }, () => ({ failStart: true }));
    const error = expectPoolError(await rejection(pool.start()), 'unavailable');
    expect(error.message).toMatch(/no worker could start: .*refusing to start/);
    expect(factory.calls).toBe(2);
    expect(factory.workers).toEqual([]);
    expectPoolError(await rejection(pool.run({ op: 'echo', value: 1 })), 'unavailable');
  });

  it('with one slot failing to start, serves from the other and retries with backoff', async () => {
    const { pool, factory } = setup({ size: 2 }, (slot, slotCall) => ({ failStart: slot === 1 && slotCall < 2 }));
    await pool.start();
    expect(pool.stats()).toMatchObject({ ready: 1 });
    const serving = slotWorker(factory, 0).pid;
    await expect(pool.run({ op: 'echo', value: 1 })).resolves.toEqual({ pid: serving, value: 1 });

    await waitFor(() => pool.stats().ready === 2, 'slot 1 to start at its third attempt', 8000);
    expect(factory.callsFor(1)).toBe(3);
    expect(factory.callsFor(0)).toBe(1);
    const [t0 = 0, t1 = 0, t2 = 0] = factory.callTimes.get(1) ?? [];
    // Exponential backoff: the second wait is about twice the first.
    expect(t1 - t0).toBeGreaterThanOrEqual(900);
    expect(t2 - t1).toBeGreaterThanOrEqual(1800);
    const both = await Promise.all([pool.run({ op: 'sleep', ms: 50 }), pool.run({ op: 'sleep', ms: 50 })]);
    expect(new Set(both.map((r) => r.pid)).size).toBe(2);
  });

  it('treats a factory that throws synchronously like a failed start', async () => {
    const { pool, factory } = setup({ size: 2 }, (slot, slotCall) => ({ throwSync: slot === 1 && slotCall === 0 }));
    await pool.start();
    expect(pool.stats()).toMatchObject({ ready: 1 });
    await waitFor(() => pool.stats().ready === 2, 'slot 1 to be retried', 5000);
    expect(factory.callsFor(1)).toBe(2);
    expect(pool.stats().starting).toBe(0);
  });
});

describe('WorkerPool with real processes: close', () => {
  it('rejects queued and running jobs with unavailable and leaves no process behind', async () => {
    const { pool, factory } = setup({ size: 1, queueLimit: 5 });
    await pool.start();
    const { grandchild = 0 } = await pool.run({ op: 'spawn-grandchild' });
    const running = pool.run({ op: 'sleep', ms: 60_000 }, { key: 'doc-running' });
    const queued = [pool.run({ op: 'echo', value: 1 }), pool.run({ op: 'echo', value: 2 })].map(rejection);
    const runningError = rejection(running);
    expect(pool.stats()).toMatchObject({ busy: 1, queued: 2 });

    await pool.close();
    for (const error of await Promise.all(queued)) expectPoolError(error, 'unavailable');
    // Its worker was ended by close(): not the document's fault.
    expectPoolError(await runningError, 'unavailable');
    for (const worker of factory.workers) expect(isGone(worker.pid)).toBe(true);
    expect(await waitUntilGone(grandchild)).toBe(true);
    expect(pool.stats()).toMatchObject({ ready: 0, busy: 0, queued: 0, crashes: 0 });
    expectPoolError(await rejection(pool.run({ op: 'echo', value: 3 })), 'unavailable');
  });

  it('waits for a worker that was still starting', async () => {
    // Slot 0 closes slowly; slot 1's replacement comes up during that time and closes slowly too.
    const { pool, factory } = setup({ size: 2 }, (slot, slotCall) => (slot === 0 ? { lingerOnCloseMs: 400 } : slotCall === 0 ? {} : { startDelayMs: 100, lingerOnCloseMs: 600 }));
    await pool.start();
    const restart = nextEvent(pool, 'restart');
    process.kill(slotWorker(factory, 1).pid, 'SIGKILL');
    await restart;
    expect(pool.stats().starting).toBe(1);

    await pool.close();
    expect(factory.callsFor(1)).toBe(2);
    for (const worker of factory.workers) expect(isGone(worker.pid), `worker ${worker.pid}`).toBe(true);
  });

  it('waits for recycled workers that are still shutting down', async () => {
    const { pool, factory } = setup({ size: 1, maxJobsPerWorker: 1 }, (_slot, slotCall) => (slotCall === 0 ? { lingerOnCloseMs: 500 } : {}));
    await pool.start();
    const old = slotWorker(factory, 0).pid;
    const restart = nextEvent(pool, 'restart');
    await pool.run({ op: 'echo', value: 1 });
    await restart;
    // The old worker was told to close and is lingering.
    expect(isGone(old)).toBe(false);

    await pool.close();
    for (const worker of factory.workers) expect(isGone(worker.pid), `worker ${worker.pid}`).toBe(true);
  });
});

describe('WorkerPool with real processes: events', () => {
  it('emits job and restart events with their outcomes', async () => {
    const { pool } = setup({ size: 1, jobTimeoutMs: 300 });
    const jobs: PoolEvents['job'][0][] = [];
    const restarts: PoolEvents['restart'][0][] = [];
    pool.on('job', (event) => jobs.push(event));
    pool.on('restart', (event) => restarts.push(event));
    await pool.start();

    await pool.run({ op: 'echo', value: 1 });
    await rejection(pool.run({ op: 'fail' }));
    await rejection(pool.run({ op: 'sleep', ms: 60_000 }));
    await rejection(pool.run({ op: 'exit' }, { key: 'doc-crash' }));
    await rejection(pool.run({ op: 'exit' }, { key: 'doc-crash' }));

    expect(jobs.map((e) => e.outcome)).toEqual(['ok', 'failed', 'timeout', 'crashed', 'crashed', 'poisoned']);
    for (const event of jobs) {
      expect(event.engine).toBe('test');
      expect(event.durationMs).toBeGreaterThanOrEqual(0);
      expect(event.queuedMs).toBeGreaterThanOrEqual(0);
    }
    expect(jobs[2]?.durationMs).toBeGreaterThanOrEqual(290);
    expect(jobs[5]).toEqual({ engine: 'test', outcome: 'poisoned', durationMs: 0, queuedMs: 0 });
    expect(restarts.map((e) => [e.engine, e.slot])).toEqual([
      ['test', 0],
      ['test', 0],
      ['test', 0],
    ]);
    expect(restarts.map((e) => e.reason)).toEqual([
      'job timed out after 300 ms',
      expect.stringMatching(/^worker died under a job: .*code 1/),
      expect.stringMatching(/^worker died under a job: .*code 1/),
    ]);
  });
});
