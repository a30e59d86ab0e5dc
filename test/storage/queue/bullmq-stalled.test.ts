import { describe, expect, it } from 'vitest';
import { applyOnceHandler, KIND } from './fixtures/bullmq-apply-once.js';
import { useClusterQueueTests } from './fixtures/bullmq-harness.js';

/**
 * Stalled-job recovery and at-most-once application: a child process runs a BullMQ worker of the
 * cluster queue and is killed or paused mid-job; a worker in this process takes the job over. The
 * "document" is a counter per job id in Redis, which must end at exactly 1.
 */
const t = useClusterQueueTests();

describe('ClusterWorkQueue: a worker that dies or stalls mid-job (real redis-server, child processes)', () => {
  it('a worker SIGKILLed mid-job before its commit: another worker takes the job over and applies it exactly once', async () => {
    const keyPrefix = t.prefix();
    const { child, printed } = t.startChild(keyPrefix, 'before-commit');
    await printed('ready');
    const producer = t.open(keyPrefix, { consume: false });
    producer.queue.register(applyOnceHandler(producer.connections, keyPrefix));
    await producer.queue.start();
    const entry = await producer.queue.enqueue(KIND, { n: 3 });
    await printed(`running ${entry.id}`);
    child.kill('SIGKILL');
    const survivor = t.open(keyPrefix);
    survivor.queue.register(applyOnceHandler(survivor.connections, keyPrefix));
    await survivor.queue.start();
    const done = await t.settled(survivor, entry.id);
    expect(done).toMatchObject({ state: 'DONE', result: { applied: 'now', document: 'document-of-3' } });
    expect(done.history.map((e) => e.event)).toContain('interrupted');
    expect(await t.applied(keyPrefix, entry.id)).toBe(1);
  });

  it('a worker SIGKILLed after its commit but before the job was marked done: the re-run finishes with the recorded outcome, not a second commit', async () => {
    const keyPrefix = t.prefix();
    const { child, printed } = t.startChild(keyPrefix, 'after-commit');
    await printed('ready');
    const producer = t.open(keyPrefix, { consume: false });
    producer.queue.register(applyOnceHandler(producer.connections, keyPrefix));
    await producer.queue.start();
    const entry = await producer.queue.enqueue(KIND, { n: 4 });
    await printed(`committed ${entry.id}`);
    child.kill('SIGKILL');
    const survivor = t.open(keyPrefix);
    survivor.queue.register(applyOnceHandler(survivor.connections, keyPrefix));
    await survivor.queue.start();
    expect(await t.settled(survivor, entry.id)).toMatchObject({ state: 'DONE', result: { applied: 'before', document: 'document-of-4' } });
    expect(await t.applied(keyPrefix, entry.id)).toBe(1);
  });

  it('a worker paused past its lock (SIGSTOP) loses the job to another; resumed, its late commit is refused', async () => {
    const keyPrefix = t.prefix();
    const { child, printed } = t.startChild(keyPrefix, 'pause-before-commit');
    await printed('ready');
    const producer = t.open(keyPrefix, { consume: false });
    producer.queue.register(applyOnceHandler(producer.connections, keyPrefix));
    await producer.queue.start();
    const entry = await producer.queue.enqueue(KIND, { n: 5 });
    await printed(`running ${entry.id}`);
    child.kill('SIGSTOP');
    const survivor = t.open(keyPrefix);
    survivor.queue.register(applyOnceHandler(survivor.connections, keyPrefix));
    await survivor.queue.start();
    expect(await t.settled(survivor, entry.id)).toMatchObject({ state: 'DONE', result: { applied: 'now' } });
    child.kill('SIGCONT');
    await printed(`refused ${entry.id}`);
    expect(await t.applied(keyPrefix, entry.id)).toBe(1);
    expect(await survivor.queue.get(entry.id)).toMatchObject({ state: 'DONE', result: { applied: 'now' } });
  });
});
