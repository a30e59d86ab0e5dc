import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileQueueStore } from '../../../src/storage/queue/file-queue-store.js';
import { QUEUE_STATES, type QueueEntry, type QueueState } from '../../../src/storage/queue/queue-store.js';

const PROJECT_DIR = new URL('../../../', import.meta.url).pathname;
const FIXTURE = new URL('./fixtures/add-then-hang.ts', import.meta.url).pathname;

let root: string;
let serial = 0;
const opened: FileQueueStore[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'quire-queue-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close().catch(() => undefined);
});

function newDir(): string {
  return path.join(root, `data-${++serial}`, 'queue');
}

async function openStore(dir: string, options?: ConstructorParameters<typeof FileQueueStore>[1]): Promise<FileQueueStore> {
  const store = new FileQueueStore(dir, options);
  await store.open();
  opened.push(store);
  return store;
}

function hexId(n: number): string {
  return n.toString(16).padStart(32, '0');
}

function entry(n: number, overrides: Partial<QueueEntry> = {}): QueueEntry {
  return {
    id: hexId(n),
    kind: 'job',
    state: 'PENDING',
    payload: { n },
    attempts: 0,
    maxAttempts: 3,
    createdAt: 1_000 + n,
    updatedAt: 1_000 + n,
    runAfter: 1_000 + n,
    progress: 0,
    history: [{ at: 1_000 + n, event: 'enqueued' }],
    ...overrides,
  };
}

function journal(dir: string): string {
  return path.join(dir, 'journal.jsonl');
}

/** Counts computed the slow way, from list(). */
async function bruteCounts(store: FileQueueStore) {
  const byState: Record<QueueState, number> = { PENDING: 0, RUNNING: 0, DONE: 0, FAILED_PERMANENT: 0 };
  const byKind: Record<string, Record<QueueState, number>> = {};
  for (const e of await store.list()) {
    byState[e.state]++;
    byKind[e.kind] ??= { PENDING: 0, RUNNING: 0, DONE: 0, FAILED_PERMANENT: 0 };
    byKind[e.kind]![e.state]++;
  }
  return { byState, byKind };
}

async function expectCountsConsistent(store: FileQueueStore): Promise<void> {
  const counts = await store.counts();
  const brute = await bruteCounts(store);
  expect(counts.byState).toEqual(brute.byState);
  for (const kind of new Set([...Object.keys(counts.byKind), ...Object.keys(brute.byKind)])) {
    expect(counts.byKind[kind] ?? {}, kind).toEqual(brute.byKind[kind] ?? { PENDING: 0, RUNNING: 0, DONE: 0, FAILED_PERMANENT: 0 });
  }
}

describe('FileQueueStore basics', () => {
  it('adds, gets, updates and removes entries; hands out copies', async () => {
    const store = await openStore(newDir());
    const first = entry(1, { sessionId: hexId(99), result: undefined });
    await store.add(first);
    const got = await store.get(first.id);
    expect(got).toEqual(JSON.parse(JSON.stringify(first)));
    expect(got).not.toBe(first);

    // Neither the caller's object nor a returned copy reaches into the store.
    first.payload = 'changed by caller';
    got!.history.push({ at: 1, event: 'mutated' });
    expect((await store.get(first.id))!.payload).toEqual({ n: 1 });
    expect((await store.get(first.id))!.history).toHaveLength(1);

    await store.update({ ...entry(1), state: 'DONE', progress: 100, result: { ok: true }, finishedAt: 5_000 });
    expect(await store.get(hexId(1))).toMatchObject({ state: 'DONE', progress: 100, result: { ok: true }, finishedAt: 5_000 });

    await expect(store.add(entry(1))).rejects.toThrow(/exists/);
    await expect(store.update(entry(2))).rejects.toThrow(/no queue entry/);
    await expect(store.add({ ...entry(3), kind: '' })).rejects.toThrow(TypeError);
    await expect(store.add({ ...entry(3), state: 'WAITING' as QueueState })).rejects.toThrow(TypeError);

    await store.add(entry(2));
    await store.remove([hexId(1), hexId(77)]);
    expect(await store.get(hexId(1))).toBeUndefined();
    expect(await store.get(hexId(2))).toBeDefined();
    await store.remove([]);
    await store.remove([hexId(77)]);
    expect((await store.list()).map((e) => e.id)).toEqual([hexId(2)]);
  });

  it('creates the directory 0700 and the journal 0600', async () => {
    const dir = newDir();
    await openStore(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(journal(dir)).mode & 0o777).toBe(0o600);
  });

  it('lists oldest first with filters and a limit', async () => {
    const store = await openStore(newDir());
    await store.add(entry(5, { kind: 'webhook' }));
    await store.add(entry(3, { sessionId: 'a' }));
    await store.add(entry(4, { sessionId: 'b', state: 'DONE' }));
    await store.add(entry(1, { sessionId: 'a' }));
    await store.add(entry(2, { createdAt: 1_001, sessionId: 'a' })); // same createdAt as 1: ordered by id
    const ids = (list: QueueEntry[]) => list.map((e) => Number.parseInt(e.id, 16));
    expect(ids(await store.list())).toEqual([1, 2, 3, 4, 5]);
    expect(ids(await store.list({ limit: 2 }))).toEqual([1, 2]);
    expect(ids(await store.list({ limit: 0 }))).toEqual([]);
    expect(ids(await store.list({ sessionId: 'a' }))).toEqual([1, 2, 3]);
    expect(ids(await store.list({ state: 'DONE' }))).toEqual([4]);
    expect(ids(await store.list({ kind: 'webhook' }))).toEqual([5]);
    expect(ids(await store.list({ kind: 'job', state: 'PENDING', sessionId: 'a', limit: 2 }))).toEqual([1, 2]);
    expect(await store.list({ kind: 'nothing' })).toEqual([]);
  });

  it('claims the oldest due entry, counts the attempt and records the start', async () => {
    const store = await openStore(newDir());
    await store.add(entry(3));
    await store.add(entry(1, { runAfter: 9_000 })); // oldest, but retried later
    await store.add(entry(2, { createdAt: 1_003 })); // same createdAt as 3: id decides
    await store.add(entry(4, { state: 'DONE' }));

    expect(await store.claim(['job'], 500)).toBeUndefined();
    const claimed = await store.claim(['job'], 2_000);
    expect(claimed).toMatchObject({ id: hexId(2), state: 'RUNNING', attempts: 1, startedAt: 2_000, updatedAt: 2_000 });
    expect(claimed!.history.at(-1)).toEqual({ at: 2_000, event: 'started', detail: 'attempt 1' });
    expect(await store.get(hexId(2))).toEqual(claimed);
    claimed!.state = 'DONE'; // a copy
    expect((await store.get(hexId(2)))!.state).toBe('RUNNING');

    expect((await store.claim(['job'], 2_000))!.id).toBe(hexId(3));
    expect(await store.claim(['job'], 2_000)).toBeUndefined();
    expect(await store.nextDue(['job'])).toBe(9_000);
    expect((await store.claim(['job'], 9_000))!.id).toBe(hexId(1));
    expect(await store.nextDue(['job'])).toBeUndefined();

    // A retry: back to PENDING with a backoff; the second claim counts attempt 2.
    const retry = (await store.get(hexId(1)))!;
    await store.update({ ...retry, state: 'PENDING', runAfter: 12_000, history: [...retry.history, { at: 9_500, event: 'retry scheduled' }] });
    expect(await store.nextDue(['job'])).toBe(12_000);
    expect(await store.claim(['job'], 11_999)).toBeUndefined();
    const again = await store.claim(['job'], 12_000);
    expect(again).toMatchObject({ id: hexId(1), attempts: 2 });
    expect(again!.history.map((h) => h.event)).toEqual(['enqueued', 'started', 'retry scheduled', 'started']);
    expect(again!.history.at(-1)!.detail).toBe('attempt 2');
  });

  it('honours runAfter when `now` goes back', async () => {
    const store = await openStore(newDir());
    await store.add(entry(1, { runAfter: 5_000 }));
    await store.add(entry(2, { runAfter: 1_000 }));
    await store.add(entry(3, { runAfter: 3_000 }));
    // Nothing claimed at a late `now` that makes everything due...
    expect(await store.nextDue(['job'])).toBe(1_000);
    expect((await store.claim(['job'], 10_000))!.id).toBe(hexId(1));
    // ...then an earlier `now`: entry 3 is not due at 2,000 even though it was at 10,000.
    expect((await store.claim(['job'], 2_000))!.id).toBe(hexId(2));
    expect(await store.claim(['job'], 2_000)).toBeUndefined();
    expect((await store.claim(['job'], 3_000))!.id).toBe(hexId(3));
  });

  it('claims only the given kinds, oldest across them', async () => {
    const store = await openStore(newDir());
    await store.add(entry(1, { kind: 'webhook' }));
    await store.add(entry(2, { kind: 'job' }));
    await store.add(entry(3, { kind: 'cleanup' }));
    await store.add(entry(4, { kind: 'job' }));
    expect(await store.claim([], 10_000)).toBeUndefined();
    expect(await store.claim(['unknown'], 10_000)).toBeUndefined();
    expect((await store.claim(['job'], 10_000))!.id).toBe(hexId(2));
    expect((await store.claim(['cleanup', 'job', 'job'], 10_000))!.id).toBe(hexId(3));
    expect((await store.claim(['job', 'webhook'], 10_000))!.id).toBe(hexId(1));
    expect(await store.claim(['cleanup', 'webhook'], 10_000)).toBeUndefined();
    expect(await store.nextDue(['webhook', 'cleanup'])).toBeUndefined();
    expect(await store.nextDue(['webhook', 'job'])).toBe(1_004);
    expect((await store.claim(['job'], 10_000))!.id).toBe(hexId(4));
  });

  it('never hands the same entry to two concurrent claims', async () => {
    const store = await openStore(newDir());
    await Promise.all(Array.from({ length: 50 }, (_, n) => store.add(entry(n))));
    const claims = await Promise.all(Array.from({ length: 60 }, () => store.claim(['job'], 10_000)));
    const ids = claims.filter((c) => c !== undefined).map((c) => c.id);
    expect(ids).toHaveLength(50);
    expect(new Set(ids).size).toBe(50);
    expect(ids).toEqual(Array.from({ length: 50 }, (_, n) => hexId(n)));
  });

  it('keeps counts per state and kind right through every transition', async () => {
    const store = await openStore(newDir());
    const zero = { PENDING: 0, RUNNING: 0, DONE: 0, FAILED_PERMANENT: 0 };
    expect(await store.counts()).toEqual({ byState: zero, byKind: {} });

    await store.add(entry(1));
    await store.add(entry(2));
    await store.add(entry(3, { kind: 'webhook' }));
    expect(await store.counts()).toEqual({
      byState: { ...zero, PENDING: 3 },
      byKind: { job: { ...zero, PENDING: 2 }, webhook: { ...zero, PENDING: 1 } },
    });
    const running = (await store.claim(['job'], 10_000))!;
    expect((await store.counts()).byKind.job).toEqual({ ...zero, PENDING: 1, RUNNING: 1 });
    await store.update({ ...running, state: 'DONE' });
    expect((await store.counts()).byKind.job).toEqual({ ...zero, PENDING: 1, DONE: 1 });
    const webhook = (await store.claim(['webhook'], 10_000))!;
    await store.update({ ...webhook, state: 'FAILED_PERMANENT' });
    expect((await store.counts()).byState).toEqual({ PENDING: 1, RUNNING: 0, DONE: 1, FAILED_PERMANENT: 1 });
    await store.update({ ...webhook, state: 'PENDING' }); // requeued from the DLQ
    await store.update({ ...(await store.get(hexId(2)))!, kind: 'cleanup' }); // a kind change moves the count
    await expectCountsConsistent(store);
    expect((await store.counts()).byKind.cleanup).toEqual({ ...zero, PENDING: 1 });
    await store.remove([hexId(1), hexId(2), hexId(3)]);
    expect(await store.counts()).toEqual({
      byState: zero,
      byKind: { job: zero, webhook: zero, cleanup: zero },
    });
  });

  it('agrees with a simple model through a long random sequence, before and after reopening', async () => {
    const dir = newDir();
    const store = await openStore(dir, { compactAfterBytes: 20_000 });
    const model = new Map<string, QueueEntry>();
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const kinds = ['job', 'webhook', 'cleanup'];
    let clock = 10_000;
    let next = 0;
    for (let step = 0; step < 3_000; step++) {
      clock += random(10);
      const ids = [...model.keys()];
      const op = random(10);
      if (op < 3 || ids.length === 0) {
        const e = entry(next++, { kind: kinds[random(3)]!, createdAt: clock - random(50), runAfter: clock + random(40) - 20 });
        model.set(e.id, e);
        await store.add(e);
      } else if (op < 5) {
        const claimKinds = kinds.filter(() => random(2) === 0);
        const now = clock - (random(20) === 0 ? 30 : 0);
        const expected = [...model.values()]
          .filter((e) => e.state === 'PENDING' && claimKinds.includes(e.kind) && e.runAfter <= now)
          .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))[0];
        const claimed = await store.claim(claimKinds, now);
        expect(claimed?.id).toBe(expected?.id);
        if (claimed) model.set(claimed.id, claimed);
      } else if (op < 8) {
        const current = model.get(ids[random(ids.length)]!)!;
        const state = QUEUE_STATES[random(4)]!;
        const changed = { ...current, state, runAfter: clock + random(40) - 20, progress: random(101) };
        model.set(changed.id, changed);
        await store.update(changed);
      } else {
        const gone = [ids[random(ids.length)]!, ids[random(ids.length)]!, ids[random(ids.length)]!, 'unknown'];
        for (const id of gone) model.delete(id);
        await store.remove(gone);
      }
      if (step % 250 === 0) await expectCountsConsistent(store);
    }
    const sorted = () => [...model.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    expect(await store.list()).toEqual(sorted());
    await expectCountsConsistent(store);
    for (const kind of kinds) {
      const pending = [...model.values()].filter((e) => e.state === 'PENDING' && e.kind === kind).map((e) => e.runAfter);
      expect(await store.nextDue([kind])).toBe(pending.length ? Math.min(...pending) : undefined);
    }
    expect(store.stats().compactions).toBeGreaterThan(1);
    const countsBefore = await store.counts();
    await store.close();

    const reopened = await openStore(dir);
    expect(reopened.openWarnings).toEqual([]);
    expect(await reopened.list()).toEqual(sorted());
    expect((await reopened.counts()).byState).toEqual(countsBefore.byState);
    await expectCountsConsistent(reopened);
  });

  it('rejects calls before open and after close', async () => {
    const dir = newDir();
    const store = new FileQueueStore(dir);
    await expect(store.get(hexId(1))).rejects.toThrow(/not open/);
    await store.open();
    await expect(store.open()).rejects.toThrow(/once per instance/);
    await store.add(entry(1));
    await store.close();
    await store.close(); // idempotent
    await expect(store.get(hexId(1))).rejects.toThrow(/closed/);
    await expect(store.add(entry(2))).rejects.toThrow(/closed/);
    await expect(store.claim(['job'], 10_000)).rejects.toThrow(/closed/);
    await expect(store.counts()).rejects.toThrow(/closed/);
  });

  it('close waits for writes in flight', async () => {
    const dir = newDir();
    const store = new FileQueueStore(dir);
    await store.open();
    const adds = Array.from({ length: 100 }, (_, n) => store.add(entry(n)));
    await store.close();
    await Promise.all(adds);
    const reopened = await openStore(dir);
    expect(await reopened.list()).toHaveLength(100);
  });
});

describe('FileQueueStore journal', () => {
  it('restores everything after close and reopen', async () => {
    const dir = newDir();
    const store = await openStore(dir);
    for (let n = 0; n < 20; n++) await store.add(entry(n, { kind: n % 3 === 0 ? 'webhook' : 'job' }));
    const claimed = (await store.claim(['job'], 10_000))!;
    await store.update({ ...claimed, state: 'DONE', result: { file: { id: 'x', pages: [1, 2] } }, expiresAt: 99_000 });
    await store.claim(['job'], 10_000);
    await store.remove([hexId(5), hexId(6)]);
    const before = await store.list();
    const counts = await store.counts();
    await store.close();

    const reopened = await openStore(dir);
    expect(reopened.openWarnings).toEqual([]);
    expect(await reopened.list()).toEqual(before);
    expect(await reopened.counts()).toEqual(counts);
    // The claim order survives too.
    expect((await reopened.claim(['job'], 10_000))!.id).toBe(hexId(4));
    expect((await reopened.claim(['webhook'], 10_000))!.id).toBe(hexId(0));
  });

  it('ignores and truncates an incomplete last line', async () => {
    const dir = newDir();
    const store = await openStore(dir);
    await store.add(entry(1));
    await store.add(entry(2));
    await store.close();
    const intact = readFileSync(journal(dir), 'utf8');
    const torn = `{"op":"put","entry":${JSON.stringify(entry(3))}}`.slice(0, 40);
    appendFileSync(journal(dir), torn);

    const reopened = await openStore(dir);
    expect((await reopened.list()).map((e) => e.id)).toEqual([hexId(1), hexId(2)]);
    expect(reopened.openWarnings).toHaveLength(1);
    expect(reopened.openWarnings[0]).toMatch(/incomplete last line \(40 bytes\)/);
    expect(readFileSync(journal(dir), 'utf8')).toBe(intact);

    // The next change lands on a line of its own.
    await reopened.add(entry(4));
    await reopened.close();
    const again = await openStore(dir);
    expect(again.openWarnings).toEqual([]);
    expect((await again.list()).map((e) => e.id)).toEqual([hexId(1), hexId(2), hexId(4)]);
  });

  it('drops a complete entry whose newline never reached the disk', async () => {
    const dir = newDir();
    const store = await openStore(dir);
    await store.add(entry(1));
    await store.close();
    appendFileSync(journal(dir), `{"op":"put","entry":${JSON.stringify(entry(2))}}`);
    const reopened = await openStore(dir);
    expect((await reopened.list()).map((e) => e.id)).toEqual([hexId(1)]);
    expect(readFileSync(journal(dir), 'utf8').endsWith('\n')).toBe(true);
  });

  it('skips corrupt lines in the middle and reports them', async () => {
    const dir = newDir();
    await openStore(dir).then((s) => s.close());
    const put = (e: QueueEntry) => `{"op":"put","entry":${JSON.stringify(e)}}\n`;
    writeFileSync(
      journal(dir),
      put(entry(1)) +
        '{"op":"put","entry":{"id":"garbage\n' +
        put(entry(2)) +
        `{"op":"put","entry":${JSON.stringify({ ...entry(9), kind: undefined })}}\n` +
        '{"op":"rename"}\n' +
        '\n' +
        '{"op":"del","ids":["' +
        hexId(1) +
        '"]}\n' +
        put(entry(3)) +
        put({ ...entry(2), state: 'DONE' }),
    );
    const store = await openStore(dir);
    expect((await store.list()).map((e) => [e.id, e.state])).toEqual([
      [hexId(2), 'DONE'],
      [hexId(3), 'PENDING'],
    ]);
    expect(store.openWarnings).toEqual(['journal.jsonl line 2: not valid JSON; skipped', 'journal.jsonl line 4: entry with no kind; skipped', 'journal.jsonl line 5: unknown operation; skipped']);
    await expectCountsConsistent(store);
    // Compacted at open: the next start reads a clean snapshot.
    await store.close();
    const lines = readFileSync(journal(dir), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const reopened = await openStore(dir);
    expect(reopened.openWarnings).toEqual([]);
    expect(await reopened.list()).toHaveLength(2);
  });

  it('handles lines longer than a read chunk and multi-byte characters', async () => {
    const dir = newDir();
    const store = await openStore(dir);
    const big = entry(1, { payload: { text: 'ä€😀'.repeat(400_000) } }); // ~3.6 MB of UTF-8
    await store.add(big);
    await store.add(entry(2, { payload: 'tail' }));
    await store.close();
    appendFileSync(journal(dir), Buffer.from('{"op":"put","entry":{"payload":"ä'.slice(0, 31) + '\xe2\x82', 'latin1'));
    const reopened = await openStore(dir);
    expect(await reopened.get(hexId(1))).toEqual(big);
    expect((await reopened.get(hexId(2)))!.payload).toBe('tail');
    expect(reopened.openWarnings).toHaveLength(1);
  });

  it('compacts during operation: the journal shrinks and every live entry stays', async () => {
    const dir = newDir();
    const store = await openStore(dir, { compactAfterBytes: 4_096 });
    for (let n = 0; n < 40; n++) await store.add(entry(n));
    for (let round = 0; round < 20; round++) {
      await Promise.all(
        Array.from({ length: 40 }, async (_, n) => {
          const current = (await store.get(hexId(n)))!;
          await store.update({ ...current, progress: round, updatedAt: current.updatedAt + 1 });
        }),
      );
    }
    await store.remove(Array.from({ length: 20 }, (_, n) => hexId(n * 2)));
    const stats = store.stats();
    expect(stats.compactions).toBeGreaterThan(0);
    expect(stats.lastCompactionError).toBeUndefined();
    const size = statSync(journal(dir)).size;
    expect(size).toBe(stats.journalBytes);
    // Far below everything appended (40 adds + 800 updates + a del).
    expect(size).toBeLessThan(4 * 4_096 + 5 * stats.liveBytes);
    const live = await store.list();
    expect(live).toHaveLength(20);
    expect(live.every((e) => e.progress === 19)).toBe(true);
    await store.close();

    const reopened = await openStore(dir);
    expect(reopened.openWarnings).toEqual([]);
    expect(await reopened.list()).toEqual(live);
  });

  it('does not lose changes that arrive while compacting', async () => {
    const dir = newDir();
    const store = await openStore(dir, { compactAfterBytes: 1_000 });
    const all: Promise<void>[] = [];
    for (let n = 0; n < 200; n++) {
      all.push(store.add(entry(n)));
      if (n % 3 === 0) all.push(store.remove([hexId(n)]));
    }
    // Updates keep coming without waiting, so many arrive while a compaction is being written.
    for (let round = 1; round <= 30; round++) {
      for (let n = 0; n < 200; n++) if (n % 3 !== 0) all.push(store.update(entry(n, { progress: round })));
      if (round % 5 === 0) await Promise.all(all);
      else await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(all);
    expect(store.stats().compactions).toBeGreaterThan(2);
    const live = await store.list();
    expect(live).toHaveLength(200 - Math.ceil(200 / 3));
    expect(live.every((e) => e.progress === 30)).toBe(true);
    await store.close();
    const reopened = await openStore(dir);
    expect(await reopened.list()).toEqual(live);
  });

  it('does not rewrite a clean snapshot at open', async () => {
    const dir = newDir();
    const store = await openStore(dir);
    await store.add(entry(1));
    await store.add(entry(2));
    await store.close();
    const reopened = await openStore(dir);
    expect(reopened.stats().compactions).toBe(0);
    await reopened.update({ ...entry(1), progress: 50 });
    await reopened.close();
    const third = await openStore(dir);
    expect(third.stats().compactions).toBe(1);
    expect(readFileSync(journal(dir), 'utf8').trimEnd().split('\n')).toHaveLength(2);
  });
});

describe('FileQueueStore failures', () => {
  it('refuses changes after a failed sync, keeps answering reads, and reopens consistent', async () => {
    const dir = newDir();
    const store = await openStore(dir);
    await store.add(entry(1));
    const handle = (store as unknown as { handle: { datasync: () => Promise<void> } }).handle;
    handle.datasync = () => Promise.reject(new Error('EIO: simulated'));
    const failed = [store.add(entry(2)), store.update({ ...entry(1), progress: 10 })];
    for (const result of await Promise.allSettled(failed)) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason.message).toMatch(/EIO: simulated.*refuses changes/);
    }
    await expect(store.add(entry(3))).rejects.toThrow(/refuses changes/);
    await expect(store.claim(['job'], 10_000)).rejects.toThrow(/refuses changes/);
    expect(await store.get(hexId(1))).toBeDefined();
    await store.close();

    // The lines reached the file (only the sync "failed"): the reopened store holds a prefix of the changes.
    const reopened = await openStore(dir);
    expect((await reopened.list()).length).toBeGreaterThanOrEqual(1);
    expect(await reopened.get(hexId(1))).toBeDefined();
    await expectCountsConsistent(reopened);
  });

  it('keeps appending to the old journal when a compaction cannot be written', async () => {
    const dir = newDir();
    const store = await openStore(dir, { compactAfterBytes: 1_000 });
    mkdirSync(path.join(dir, 'journal.jsonl.tmp')); // the snapshot cannot be created
    for (let round = 0; round < 10; round++) {
      for (let n = 0; n < 10; n++) await (round === 0 ? store.add(entry(n)) : store.update(entry(n, { progress: round })));
    }
    const stats = store.stats();
    expect(stats.compactions).toBe(0);
    expect(stats.lastCompactionError).toMatch(/EISDIR|directory/i);
    expect(statSync(journal(dir)).size).toBe(stats.journalBytes);
    await store.close();
    const reopened = await openStore(dir);
    expect(reopened.openWarnings).toEqual([]);
    expect((await reopened.list()).map((e) => e.progress)).toEqual(Array(10).fill(9));
    expect(reopened.stats().compactions).toBe(1);
  });
});

describe('FileQueueStore durability', () => {
  it('group-commits concurrent adds: all durable when resolved, far fewer syncs than adds', async () => {
    const dir = newDir();
    const store = await openStore(dir);
    const syncsBefore = store.stats().syncs;
    await Promise.all(Array.from({ length: 1_000 }, (_, n) => store.add(entry(n))));
    const syncs = store.stats().syncs - syncsBefore;
    expect(syncs).toBeGreaterThan(0);
    expect(syncs).toBeLessThan(20);

    // A second instance reads the file as it is now, without the first one closing.
    const other = new FileQueueStore(dir);
    await other.open();
    try {
      expect(await other.list()).toHaveLength(1_000);
    } finally {
      await other.close();
    }
  });

  it('batches changes that arrive while a sync is in flight', async () => {
    const store = await openStore(newDir());
    await store.add(entry(0));
    const before = store.stats().syncs;
    const adds: Promise<void>[] = [];
    for (let n = 1; n <= 200; n++) {
      adds.push(store.add(entry(n)));
      if (n % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(adds);
    expect(store.stats().syncs - before).toBeLessThan(200);
    expect(store.stats().lines).toBe(201);
  });

  it('keeps every acknowledged add across a SIGKILL', async () => {
    const dir = newDir();
    const count = 500;
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dir, String(count)], {
      cwd: PROJECT_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('added\n')) resolve();
        });
        child.on('exit', (code) => reject(new Error(`child exited (${code}) before adding: ${stderr}`)));
      });
      // Let it keep appending for a moment, so that the kill lands among writes in flight.
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');

    const store = await openStore(dir);
    const ids = new Set((await store.list()).map((e) => e.id));
    for (let n = 0; n < count; n++) expect(ids.has(hexId(n)), `entry ${n}`).toBe(true);
    expect(ids.size).toBeGreaterThan(count); // the extra adds after "added" were running
    expect(store.openWarnings.every((w) => /incomplete last line/.test(w))).toBe(true);
    await expectCountsConsistent(store);
  });
});
