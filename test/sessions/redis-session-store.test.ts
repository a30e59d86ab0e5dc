import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { FileSessionStore } from '../../src/sessions/file-session-store.js';
import { RedisSessionStore } from '../../src/sessions/redis-session-store.js';
import type { Session } from '../../src/sessions/session.js';
import type { SessionStore } from '../../src/sessions/session-store.js';
import { StoreUnavailableError, waitForRedis } from '../../src/storage/redis/connection.js';
import { redisClients, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

/**
 * One set of behaviours, run against both session stores: the embedded one (files in the data dir)
 * and the cluster's (Redis). "Another node" is a second store instance on the same directory or Redis.
 */
interface Implementation {
  /** A store on the shared state; each call is another node (a second one reopens the state). */
  node(): Promise<SessionStore>;
}

let redisServer: RedisServer;
const clients = redisClients(() => redisServer);
const redisClient = (prefix: string) => clients.open(prefix, 'session-test');
const dirs: string[] = [];

beforeAll(async () => {
  redisServer = await startRedisServer();
});
afterAll(async () => {
  await clients.closeAll();
  await redisServer.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const implementations: Array<[string, () => Implementation]> = [
  [
    'FileSessionStore',
    () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-sessions-'));
      dirs.push(dir);
      return {
        async node() {
          const store = new FileSessionStore(dir);
          await store.open();
          return store;
        },
      };
    },
  ],
  ['RedisSessionStore', () => redisImplementation(false)],
  // Each node with its read cache (storage/redis/read-cache.ts): the same behaviours, no stale session.
  ['RedisSessionStore with read caches', () => redisImplementation(true)],
];

/** Nodes of one cluster: stores on one Redis prefix, each on its own connection (and with its own cache). */
function redisImplementation(withCache: boolean): Implementation {
  const prefix = `t${newId().slice(0, 8)}:`;
  return {
    async node() {
      const redis = await redisClient(prefix);
      const store = new RedisSessionStore(redis, withCache ? await clients.cache(redis) : undefined);
      await store.open();
      return store;
    },
  };
}

function session(overrides: Partial<Session> = {}): Session {
  const now = Date.now();
  return {
    id: newId(),
    kind: 'user',
    userName: 'alice',
    roles: ['user'],
    providerId: '',
    subject: '',
    createdAt: now,
    expiresAt: now + 60_000,
    accessTokenId: newId(),
    refreshTokenId: newId(),
    lastAccess: now,
    ...overrides,
  };
}

describe.each(implementations)('%s', (_name, make) => {
  let impl: Implementation;
  beforeAll(() => {
    impl = make();
  });

  it('stores, reads back, lists, counts and deletes a session', async () => {
    const store = await impl.node();
    const alice = session();
    await store.put(alice);
    expect(await store.get(alice.id)).toEqual(alice);
    expect((await store.list()).map((s) => s.id)).toContain(alice.id);
    const before = await store.count();
    expect(await store.delete(alice.id)).toBe(true);
    expect(await store.get(alice.id)).toBeUndefined();
    expect(await store.count()).toBe(before - 1);
    expect(await store.delete(alice.id)).toBe(false);
    await store.close();
  });

  it('lets another node read what one node wrote, and a rotation replaces the token ids for both', async () => {
    const a = await impl.node();
    const original = session();
    await a.put(original);
    const b = await impl.node();
    expect((await b.get(original.id))?.accessTokenId).toBe(original.accessTokenId);
    const rotated = { ...original, accessTokenId: newId(), refreshTokenId: newId() };
    await b.put(rotated);
    // The file store reads the directory at open: "another node" of the embedded store is a restart.
    const again = await impl.node();
    expect((await again.get(original.id))?.refreshTokenId).toBe(rotated.refreshTokenId);
    await Promise.all([a.close(), b.close(), again.close()]);
  });

  it('rotates the refresh token once: a second rotation from the same token is refused', async () => {
    const a = await impl.node();
    const original = session();
    await a.put(original);
    const b = await impl.node();
    const first = { ...original, accessTokenId: newId(), refreshTokenId: newId() };
    const second = { ...original, accessTokenId: newId(), refreshTokenId: newId() };
    const results = await Promise.all([a.rotate(first, original.refreshTokenId), b.rotate(second, original.refreshTokenId)]);
    // The embedded store's "other node" is a second process on the same files: only the first one's own rotation can be refused there.
    if (_name === 'RedisSessionStore') expect(results.filter(Boolean)).toHaveLength(1);
    expect(await a.rotate({ ...first, refreshTokenId: newId() }, original.refreshTokenId)).toBe(false);
    expect(await a.rotate({ ...original, refreshTokenId: newId() }, 'unknown')).toBe(false);
    expect(await a.rotate(session(), original.refreshTokenId)).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });

  it('ends a session for exactly one of two concurrent deleters', async () => {
    const store = await impl.node();
    const s = session();
    await store.put(s);
    const results = await Promise.all([store.delete(s.id), store.delete(s.id)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    await store.close();
  });

  it('finds the session of an external subject, and forgets it when the session ends', async () => {
    const store = await impl.node();
    const external = session({ providerId: 'idp', subject: 'sub-1', accessTokenId: '', refreshTokenId: '' });
    await store.put(external);
    expect((await store.findExternal('idp', 'sub-1'))?.id).toBe(external.id);
    expect(await store.findExternal('idp', 'sub-2')).toBeUndefined();
    await store.delete(external.id);
    expect(await store.findExternal('idp', 'sub-1')).toBeUndefined();
    await store.close();
  });

  it('counts the anonymous sessions of a client address', async () => {
    const store = await impl.node();
    const address = `192.0.2.${Math.floor(Math.random() * 200)}-${newId().slice(0, 6)}`;
    const first = session({ kind: 'anonymous', userName: '', roles: [], clientAddress: address });
    const second = session({ kind: 'anonymous', userName: '', roles: [], clientAddress: address });
    await store.put(first);
    await store.put(second);
    await store.put(session({ kind: 'anonymous', userName: '', roles: [], clientAddress: `${address}-other` }));
    expect((await store.anonymousFrom(address)).map((s) => s.id).sort()).toEqual([first.id, second.id].sort());
    await store.delete(first.id);
    expect((await store.anonymousFrom(address)).map((s) => s.id)).toEqual([second.id]);
    await store.close();
  });

  it('keeps an external logout until its end, and drops it after', async () => {
    const store = await impl.node();
    const now = Math.floor(Date.now() / 1000);
    await store.revokeExternal('idp', 'sub-r', now, now + 300);
    await store.revokeExternal('idp', 'sub-old', now - 600, now - 1);
    expect(await store.externalRevocation('idp', 'sub-r')).toBe(now);
    expect(await store.externalRevocation('idp', 'sub-old')).toBeUndefined();
    expect(await store.externalRevocation('idp', 'nobody')).toBeUndefined();
    const other = await impl.node();
    expect(await other.externalRevocation('idp', 'sub-r')).toBe(now);
    await Promise.all([store.close(), other.close()]);
  });

  it('writes the last access that touch() buffered when it closes, and never revives an ended session', async () => {
    const store = await impl.node();
    const s = session({ lastAccess: 1000 });
    const gone = session();
    await store.put(s);
    await store.put(gone);
    store.touch(s.id, 5000);
    store.touch(gone.id, 5000);
    await store.delete(gone.id);
    await store.close();
    const reader = await impl.node();
    expect((await reader.get(s.id))?.lastAccess).toBe(5000);
    expect(await reader.get(gone.id)).toBeUndefined();
    await reader.close();
  });
});

describe('RedisSessionStore specifics', () => {
  it('keeps the records under the key prefix', async () => {
    const prefix = `p${newId().slice(0, 8)}:`;
    const store = new RedisSessionStore(await redisClient(prefix));
    const s = session();
    await store.put(s);
    const raw = execFileSync('redis-cli', ['-p', String(redisServer.port), '--raw', 'GET', `${prefix}session:${s.id}`], { encoding: 'utf8' });
    expect(JSON.parse(raw).id).toBe(s.id);
    await store.close();
  });

  it('answers StoreUnavailableError while Redis is down and works again after it is back', async () => {
    const client = await redisClient(`d${newId().slice(0, 8)}:`);
    const store = new RedisSessionStore(client);
    await store.open();
    const s = session();
    await store.put(s);
    await redisServer.kill();
    try {
      await expect(store.get(s.id)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.put(session())).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.delete(s.id)).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await redisServer.restart();
    }
    await waitForRedis(client, 20_000);
    await store.put(s);
    expect((await store.get(s.id))?.id).toBe(s.id);
    await store.close();
  });
});
