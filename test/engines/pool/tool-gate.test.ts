import { describe, expect, it } from 'vitest';
import { PoolError } from '../../../src/engines/pool/pool-errors.js';
import { ToolGate } from '../../../src/engines/pool/tool-gate.js';
import { run } from '../../../src/engines/process/run.js';
import { rejection } from '../../helpers/rejection.js';

/** A promise with its resolve, to hold a run open until the test lets it finish. */
function held(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe("ToolGate: the pools' rules for per-call tools", () => {
  it('runs at most `concurrency` at once; the others wait in order and start as slots free', async () => {
    const gate = new ToolGate({ name: 'qpdf', concurrency: 2, queueLimit: 10, queueTimeoutMs: 60_000 });
    const holds = [held(), held(), held(), held()];
    const started: number[] = [];
    const runs = holds.map((hold, index) =>
      gate.run(async () => {
        started.push(index);
        await hold.promise;
        return index;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    expect(gate.stats()).toEqual({ running: 2, queued: 2 });
    holds[1]!.release();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const hold of holds) hold.release();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(gate.stats()).toEqual({ running: 0, queued: 0 });
  });

  it('refuses at once with busy (a Retry-After) when the queue is full, and frees the slot of a failed run', async () => {
    const gate = new ToolGate({ name: 'poppler', concurrency: 1, queueLimit: 1, queueTimeoutMs: 60_000 });
    const hold = held();
    const first = gate.run(() => hold.promise);
    const second = gate.run(async () => 'second');
    const refused = await rejection(gate.run(async () => 'third'));
    expect(refused).toBeInstanceOf(PoolError);
    expect(refused).toMatchObject({ kind: 'busy', engine: 'poppler', retryAfterSeconds: 1 });
    hold.release();
    await first;
    expect(await second).toBe('second');
    expect(await rejection(gate.run(async () => Promise.reject(new Error('tool failed'))))).toMatchObject({ message: 'tool failed' });
    expect(await gate.run(async () => 'after')).toBe('after');
  });

  it('refuses a run that waited past the queue timeout with busy, and the queue forgets it', async () => {
    const gate = new ToolGate({ name: 'ghostscript', concurrency: 1, queueLimit: 5, queueTimeoutMs: 100 });
    const hold = held();
    const first = gate.run(() => hold.promise);
    const waited = await rejection(gate.run(async () => 'never'));
    expect(waited).toMatchObject({ kind: 'busy', engine: 'ghostscript' });
    expect(gate.stats()).toEqual({ running: 1, queued: 0 });
    hold.release();
    await first;
  });

  it('bounds real processes: two sleeps through a gate of one run one after the other', async () => {
    const gate = new ToolGate({ name: 'sleep', concurrency: 1, queueLimit: 5, queueTimeoutMs: 60_000 });
    const spans: { start: number; end: number }[] = [];
    await Promise.all(
      [0, 1].map(() =>
        gate.run(async () => {
          const start = Date.now();
          await run('sleep', ['0.2'], { timeoutMs: 10_000 });
          spans.push({ start, end: Date.now() });
        }),
      ),
    );
    // Ordering, not speed: the second started after the first had ended.
    expect(spans[1]!.start).toBeGreaterThanOrEqual(spans[0]!.end);
  });
});
