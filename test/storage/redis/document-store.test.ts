import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '../../../src/core/errors.js';
import { newId } from '../../../src/core/ids.js';
import type { DocumentRecord, DocumentStore } from '../../../src/storage/document-store.js';
import { FileDocumentStore } from '../../../src/storage/file-document-store.js';
import { RedisDocumentLocks } from '../../../src/storage/redis-document-locks.js';
import { RedisDocumentStore } from '../../../src/storage/redis-document-store.js';
import { JobCommitRecords } from '../../../src/storage/queue/redis-job-commits.js';
import { StoreUnavailableError, waitForRedis } from '../../../src/storage/redis/connection.js';
import { redisClients, startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

/**
 * The same behaviours on the embedded document store and the cluster's (index in Redis, content on the
 * shared data dir). "Another node" is a second store on the same data dir (and Redis); for the
 * embedded store that is a restart, which is the only way two of them share a data dir.
 */
let server: RedisServer;
const clients = redisClients(() => server);
const client = (prefix: string) => clients.open(prefix, 'docs-test');
const dirs: string[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await clients.closeAll();
  await server.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-docstore-'));
  dirs.push(dir);
  return dir;
}

interface Implementation {
  dataDir: string;
  node(name?: string): Promise<DocumentStore>;
}

const implementations: Array<[string, () => Implementation]> = [
  [
    'FileDocumentStore',
    () => {
      const dir = dataDir();
      return {
        dataDir: dir,
        async node() {
          const store = new FileDocumentStore(dir);
          await store.open();
          return store;
        },
      };
    },
  ],
  ['RedisDocumentStore', () => redisImplementation(false)],
  // Each node with its read cache (storage/redis/read-cache.ts): the same behaviours, no stale record.
  ['RedisDocumentStore with read caches', () => redisImplementation(true)],
];

/** Nodes of one cluster: stores on one Redis prefix and one shared data dir, each on its own connection. */
function redisImplementation(withCache: boolean): Implementation {
  const dir = dataDir();
  const prefix = `d${newId().slice(0, 8)}:`;
  let count = 0;
  return {
    dataDir: dir,
    async node(name = `node${++count}`) {
      const redis = await client(prefix);
      const store = new RedisDocumentStore(redis, dir, { nodeName: name, ...(withCache ? { reads: await clients.cache(redis) } : {}) });
      await store.open();
      return store;
    },
  };
}

/** A finished temporary file with these bytes, as an upload leaves it. */
function temp(store: DocumentStore, text: string): string {
  const file = store.tempPath();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

function newRecord(store: DocumentStore, sessionId: string, size: number, history = false): DocumentRecord {
  const now = Date.now();
  const id = history ? 1 : 0;
  return {
    id: newId(),
    sessionId,
    fileName: 'report',
    parentId: '',
    createdAt: now,
    lastModified: now,
    history,
    activeVersion: id,
    versions: [
      { id, operation: '', fileName: 'report', fileExtension: 'pdf', fileTypeId: 1, mimeType: 'application/pdf', fileTypeGroups: ['pdf'], size, createdAt: now, file: store.contentFileName() },
    ],
  };
}

async function read(store: DocumentStore, sessionId: string, documentId: string, versionId?: number): Promise<string | undefined> {
  const content = await store.content(sessionId, documentId, versionId);
  return content ? readFileSync(content.path, 'utf8') : undefined;
}

describe.each(implementations)('%s', (_name, make) => {
  let impl: Implementation;
  beforeAll(() => {
    impl = make();
  });

  it('adds a document, and another node reads its record, content and usage', async () => {
    const a = await impl.node();
    const sessionId = newId();
    const record = newRecord(a, sessionId, 5);
    await a.add(record, temp(a, 'hello'));
    const b = await impl.node();
    expect((await b.get(sessionId, record.id))?.fileName).toBe('report');
    expect(await read(b, sessionId, record.id)).toBe('hello');
    expect((await b.list(sessionId)).map((r) => r.id)).toEqual([record.id]);
    expect(await b.usage(sessionId)).toEqual({ files: 1, bytes: 5, historyBytes: 0 });
    expect(await b.sessionIds()).toContain(sessionId);
  });

  it('replaces the content of a document without history and removes the old file', async () => {
    const store = await impl.node();
    const sessionId = newId();
    const record = newRecord(store, sessionId, 3);
    await store.add(record, temp(store, 'old'));
    const oldPath = (await store.content(sessionId, record.id))!.path;
    const current = (await store.get(sessionId, record.id))!;
    const version = { ...current.versions[0]!, size: 6, file: store.contentFileName(), operation: 'toolbox' };
    await store.update({ ...current, versions: [version] }, temp(store, 'newer!'));
    expect(await read(store, sessionId, record.id)).toBe('newer!');
    expect(existsSync(oldPath)).toBe(false);
    expect(await store.usage(sessionId)).toEqual({ files: 1, bytes: 6, historyBytes: 0 });
  });

  it('keeps every state in history mode and counts the inactive ones', async () => {
    const store = await impl.node();
    const sessionId = newId();
    const record = newRecord(store, sessionId, 2, true);
    await store.add(record, temp(store, 'v1'));
    const current = (await store.get(sessionId, record.id))!;
    const second = { ...current.versions[0]!, id: 2, size: 3, file: store.contentFileName() };
    await store.update({ ...current, activeVersion: 2, versions: [...current.versions, second] }, temp(store, 'v22'));
    expect(await read(store, sessionId, record.id)).toBe('v22');
    expect(await read(store, sessionId, record.id, 1)).toBe('v1');
    expect(await store.usage(sessionId)).toEqual({ files: 1, bytes: 5, historyBytes: 2 });
  });

  it('deletes a document (once) and a whole session', async () => {
    const store = await impl.node();
    const sessionId = newId();
    const first = newRecord(store, sessionId, 1);
    const second = newRecord(store, sessionId, 2);
    await store.add(first, temp(store, 'a'));
    await store.add(second, temp(store, 'bb'));
    expect(await store.delete(sessionId, first.id)).toBe(true);
    expect(await store.delete(sessionId, first.id)).toBe(false);
    expect(await store.get(sessionId, first.id)).toBeUndefined();
    expect(existsSync(path.join(impl.dataDir, 'storage', sessionId, first.id))).toBe(false);
    expect(await store.usage(sessionId)).toEqual({ files: 1, bytes: 2, historyBytes: 0 });
    await store.deleteSession(sessionId);
    expect(await store.list(sessionId)).toEqual([]);
    expect(await store.usage(sessionId)).toEqual({ files: 0, bytes: 0, historyBytes: 0 });
    expect(existsSync(path.join(impl.dataDir, 'storage', sessionId))).toBe(false);
    const other = await impl.node();
    expect(await other.sessionIds()).not.toContain(sessionId);
  });
});

describe('RedisDocumentStore across nodes', () => {
  it('refuses (409) an update made from a record another node changed meanwhile, and keeps the winner', async () => {
    const dir = dataDir();
    const prefix = `c${newId().slice(0, 8)}:`;
    const a = new RedisDocumentStore(await client(prefix), dir, { nodeName: 'a' });
    const b = new RedisDocumentStore(await client(prefix), dir, { nodeName: 'b' });
    await a.open();
    await b.open();
    const sessionId = newId();
    const record = newRecord(a, sessionId, 4);
    await a.add(record, temp(a, 'base'));
    const seenByA = (await a.get(sessionId, record.id))!;
    const seenByB = (await b.get(sessionId, record.id))!;
    await a.update({ ...seenByA, fileName: 'renamed-on-a' });
    const bVersion = { ...seenByB.versions[0]!, size: 5, file: b.contentFileName() };
    const bTemp = temp(b, 'lost!');
    const refused = await b.update({ ...seenByB, versions: [bVersion] }, bTemp).catch((error: unknown) => error);
    expect((refused as { errorCode?: number }).errorCode).toBe(Errors.DOCUMENT_LOCKED.errorCode);
    const stored = (await b.get(sessionId, record.id))!;
    expect(stored.fileName).toBe('renamed-on-a');
    expect(await read(b, sessionId, record.id)).toBe('base');
    // Neither the refused temp nor its would-be content file is left behind.
    expect(readdirSync(path.join(dir, 'storage', sessionId, record.id))).toEqual([stored.versions[0]!.file]);
    expect(existsSync(bTemp)).toBe(false);
  });

  it("refuses a commit whose lease was lost, so it cannot overwrite the next holder's result", async () => {
    const dir = dataDir();
    const prefix = `f${newId().slice(0, 8)}:`;
    const redisA = await client(prefix);
    const locksA = new RedisDocumentLocks(redisA, { ttlMs: 60_000 });
    const a = new RedisDocumentStore(redisA, dir, { nodeName: 'a', fenceFor: (s, d) => locksA.fenceFor(s, d) });
    await a.open();
    const sessionId = newId();
    const record = newRecord(a, sessionId, 4);
    await a.add(record, temp(a, 'base'));
    const outcome = await locksA
      .with(sessionId, record.id, async () => {
        const current = (await a.get(sessionId, record.id))!;
        // Meanwhile the lease ended (expired while this node was cut off) and another node took it.
        await redisA.set(`doc-lock:${sessionId}:${record.id}`, 'node-b:999999');
        const version = { ...current.versions[0]!, size: 5, file: a.contentFileName() };
        await a.update({ ...current, versions: [version] }, temp(a, 'stale'));
        return 'stored';
      })
      .catch((error: unknown) => (error as { errorCode?: number }).errorCode);
    expect(outcome).toBe(Errors.DOCUMENT_LOCKED.errorCode);
    expect(await read(a, sessionId, record.id)).toBe('base');
    // Under a lease that is still held, the same commit goes through.
    await redisA.del(`doc-lock:${sessionId}:${record.id}`);
    await locksA.with(sessionId, record.id, async () => {
      const current = (await a.get(sessionId, record.id))!;
      await a.update({ ...current, versions: [{ ...current.versions[0]!, size: 5, file: a.contentFileName() }] }, temp(a, 'fresh'));
    });
    expect(await read(a, sessionId, record.id)).toBe('fresh');
  });

  it('lets another node see a lock when it reads the document (get or list), for isFileLocked', async () => {
    const dir = dataDir();
    const prefix = `l${newId().slice(0, 8)}:`;
    const locksA = new RedisDocumentLocks(await client(prefix), { ttlMs: 60_000 });
    const redisB = await client(prefix);
    const locksB = new RedisDocumentLocks(redisB, { ttlMs: 60_000 });
    const a = new RedisDocumentStore(await client(prefix), dir, { nodeName: 'a' });
    const b = new RedisDocumentStore(redisB, dir, { nodeName: 'b', lockSeen: (s, d, locked) => locksB.observe(s, d, locked) });
    await a.open();
    await b.open();
    const sessionId = newId();
    const record = newRecord(a, sessionId, 4);
    await a.add(record, temp(a, 'base'));
    await locksA.with(sessionId, record.id, async () => {
      // Nothing is pushed to B: it knows once it reads the document.
      expect(locksB.isLocked(sessionId, record.id)).toBe(false);
      await b.get(sessionId, record.id);
      expect(locksB.isLocked(sessionId, record.id)).toBe(true);
    });
    await b.list(sessionId);
    expect(locksB.isLocked(sessionId, record.id)).toBe(false);
    await locksA.with(sessionId, record.id, async () => {
      await b.list(sessionId);
      expect(locksB.isLocked(sessionId, record.id)).toBe(true);
    });
    await b.get(sessionId, record.id);
    expect(locksB.isLocked(sessionId, record.id)).toBe(false);
    a.close();
    b.close();
  });

  it("with read caches: B's next read after each of A's writes and leases sees it, also under B's own lease and after a write behind the stores' back", async () => {
    const dir = dataDir();
    const prefix = `rc${newId().slice(0, 8)}:`;
    const redisA = await client(prefix);
    const redisB = await client(prefix);
    const [readsA, readsB] = [await clients.cache(redisA), await clients.cache(redisB)];
    const locksA = new RedisDocumentLocks(redisA, { ttlMs: 60_000, reads: readsA });
    const locksB = new RedisDocumentLocks(redisB, { ttlMs: 60_000, reads: readsB });
    const a = new RedisDocumentStore(redisA, dir, { nodeName: 'a', reads: readsA, fenceFor: (s, d) => locksA.fenceFor(s, d) });
    const b = new RedisDocumentStore(redisB, dir, { nodeName: 'b', reads: readsB, fenceFor: (s, d) => locksB.fenceFor(s, d), lockSeen: (s, d, locked) => locksB.observe(s, d, locked) });
    await a.open();
    await b.open();
    const sessionId = newId();
    const record = newRecord(a, sessionId, 4);
    await a.add(record, temp(a, 'base'));
    for (let round = 0; round < 20; round++) {
      await b.get(sessionId, record.id);
      expect(readsB.size).toBeGreaterThan(0); // B holds the record now
      const current = (await a.get(sessionId, record.id))!;
      await a.update({ ...current, fileName: `name-${round}` });
      expect((await b.get(sessionId, record.id))!.fileName).toBe(`name-${round}`);
      await locksA.with(sessionId, record.id, async () => {
        await b.get(sessionId, record.id);
        expect(locksB.isLocked(sessionId, record.id)).toBe(true);
      });
      await b.get(sessionId, record.id);
      expect(locksB.isLocked(sessionId, record.id)).toBe(false);
    }
    // Under B's own lease (an operation about to commit) B reads Redis itself; a raw HSET is seen either way.
    await b.get(sessionId, record.id);
    await locksB.with(sessionId, record.id, async () => {
      await redisA.hset(`docs:${sessionId}`, record.id, JSON.stringify({ ...(await a.get(sessionId, record.id))!, fileName: 'written-behind' }));
      expect((await b.get(sessionId, record.id))!.fileName).toBe('written-behind');
    });
    await a.delete(sessionId, record.id);
    expect(await b.get(sessionId, record.id)).toBeUndefined();
    a.close();
    b.close();
  });

  it("empties only its own temporary directory at start, never another node's uploads in progress", async () => {
    const dir = dataDir();
    const prefix = `t${newId().slice(0, 8)}:`;
    const a = new RedisDocumentStore(await client(prefix), dir, { nodeName: 'a' });
    await a.open();
    const inProgress = temp(a, 'half an upload');
    const b = new RedisDocumentStore(await client(prefix), dir, { nodeName: 'b' });
    await b.open();
    expect(existsSync(inProgress)).toBe(true);
    expect(path.dirname(b.tempPath())).not.toBe(path.dirname(inProgress));
  });

  it('keeps the content file of a write whose answer never came, since Redis may still apply it (no record naming a deleted file)', async () => {
    const store = new RedisDocumentStore(await client(`p${newId().slice(0, 8)}:`), dataDir(), { nodeName: 'p' });
    await store.open();
    const sessionId = newId();
    const added = newRecord(store, sessionId, 3);
    const next: DocumentRecord = { ...added, versions: [{ ...added.versions[0]!, file: store.contentFileName(), size: 4 }] };
    // The add, then an update, each sent to a Redis that does not answer within the 2 s command timeout.
    for (const [write, text] of [
      [(file: string) => store.add(added, file), 'one'],
      [(file: string) => store.update(next, file), 'two!'],
    ] as const) {
      const file = temp(store, text);
      server.pause();
      try {
        await expect(write(file)).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        server.resume();
      }
      // Resumed, Redis runs the command it had received: the record names the file, which is there.
      expect(await read(store, sessionId, added.id)).toBe(text);
    }
    store.close();
  });

  it("marks a cluster job's claimed commit record committed in the same script as the job's write, and only the claiming attempt's", async () => {
    const prefix = `j${newId().slice(0, 8)}:`;
    const commits = new JobCommitRecords(await clients.open('', 'commits-test'), prefix);
    const attempt = { current: undefined as { key: string; attempt: string } | undefined };
    const store = new RedisDocumentStore(await client(prefix), dataDir(), { nodeName: 'j', commitRecord: () => attempt.current });
    await store.open();
    const sessionId = newId();
    const raw = await clients.open(prefix, 'lock-test');
    // Job 1's attempt A claims its record (it holds the job's BullMQ lock), then adds a document: committed with the new id.
    await raw.set('lock:job-1', 'A');
    expect(await commits.claim('job-1', 'A', `${prefix}lock:job-1`)).toBe('ok');
    const added = newRecord(store, sessionId, 3);
    attempt.current = { key: commits.unprefixedKey('job-1'), attempt: 'A' };
    await store.add(added, temp(store, 'one'));
    expect(await commits.read('job-1')).toEqual({ state: 'committed', attempt: 'A', outcome: added.id });
    // Job 2: claimed by attempt B; a write of attempt C (which lost the claim) leaves it claimed; B's update marks it.
    await raw.set('lock:job-2', 'B');
    expect(await commits.claim('job-2', 'B', `${prefix}lock:job-2`)).toBe('ok');
    const next = (await store.get(sessionId, added.id))!;
    attempt.current = { key: commits.unprefixedKey('job-2'), attempt: 'C' };
    await store.update({ ...next, versions: [{ ...next.versions[0]!, file: store.contentFileName(), size: 4 }] }, temp(store, 'two!'));
    expect(await commits.read('job-2')).toEqual({ state: 'claimed', attempt: 'B' });
    const latest = (await store.get(sessionId, added.id))!;
    attempt.current = { key: commits.unprefixedKey('job-2'), attempt: 'B' };
    await store.update({ ...latest, versions: [{ ...latest.versions[0]!, file: store.contentFileName(), size: 5 }] }, temp(store, 'three'));
    expect(await commits.read('job-2')).toEqual({ state: 'committed', attempt: 'B', outcome: added.id });
    // A write outside any job marks nothing.
    attempt.current = undefined;
    await store.add(newRecord(store, sessionId, 4), temp(store, 'four'));
    expect(await commits.read('job-3')).toEqual({ state: 'none' });
    store.close();
  });

  it('answers StoreUnavailableError (503) while Redis is down', async () => {
    const redis = await client(`u${newId().slice(0, 8)}:`);
    const store = new RedisDocumentStore(redis, dataDir(), { nodeName: 'u' });
    await store.open();
    await server.kill();
    try {
      await expect(store.list(newId())).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.usage(newId())).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await server.restart();
    }
    await waitForRedis(redis, 20_000);
    expect(await store.list(newId())).toEqual([]);
    store.close();
  });
});
