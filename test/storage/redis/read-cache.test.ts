import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/core/ids.js';
import { redisCall, type RedisClient } from '../../../src/storage/redis/connection.js';
import { RedisReadCache } from '../../../src/storage/redis/read-cache.js';
import { redisClients, startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

let server: RedisServer;
const clients = redisClients(() => server);
const caches: RedisReadCache[] = [];

beforeAll(async () => {
  server = await startRedisServer({ appendonly: false });
});
afterAll(async () => {
  await Promise.all(caches.splice(0).map((cache) => cache.close()));
  await clients.closeAll();
  await server.stop();
});

interface Fixture {
  cache: RedisReadCache;
  /** A second client on the same prefix, in this process. */
  other: RedisClient;
  /**
   * A write by another node: another process (redis-cli) whose answer this process learns only after
   * it came back, as a client learns a node's answer before it calls the next node.
   */
  anotherNode: (...args: string[]) => Promise<void>;
  loads: () => number;
  get: (key: string) => Promise<string | null>;
}

/** A cache on its own prefix, active. */
async function setUp(maxEntries = 100): Promise<Fixture> {
  const prefix = `rc-${newId().slice(0, 8)}:`;
  const cache = new RedisReadCache(await clients.open(prefix, 'cache-test'), { name: 'cache-test', maxEntries });
  caches.push(cache);
  await until(() => cache.active, 'the cache to set up tracking');
  const other = await clients.open(prefix, 'other-node');
  let loads = 0;
  const get = (key: string) =>
    cache.read(`slot:${key}`, [key], (redis) => {
      loads++;
      return redisCall(() => redis.get(key));
    });
  const anotherNode = async (command: string, key: string, ...args: string[]) => {
    await promisify(execFile)('redis-cli', ['-p', String(server.port), command, prefix + key, ...args]);
  };
  return { cache, other, anotherNode, loads: () => loads, get };
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('RedisReadCache (client tracking on a real redis-server)', () => {
  it("answers a read from memory until another node changes the key; a read made after that node's answer sees the change", async () => {
    const { other, anotherNode, loads, get } = await setUp();
    await other.set('k', 'one');
    expect(await get('k')).toBe('one');
    expect(await get('k')).toBe('one');
    expect(loads()).toBe(1);
    // A hit waits for a PING on the invalidation connection, sent after the read began: Redis answers it
    // after the message of every write it had applied by then. Exact even for a writer in this process.
    for (let round = 0; round < 100; round++) {
      if (round % 2 === 0) await anotherNode('SET', 'k', `v${round}`);
      else await other.set('k', `v${round}`);
      expect(await get('k')).toBe(`v${round}`);
      expect(await get('k')).toBe(`v${round}`);
    }
    expect(loads()).toBe(101);
  });

  it("drops this node's own writes at once, before Redis's message arrives", async () => {
    const { cache, other, get } = await setUp();
    await other.set('k', 'old');
    expect(await get('k')).toBe('old');
    await cache.writing(['k'], () => other.set('k', 'new'));
    expect(await get('k')).toBe('new');
  });

  it('does not store a read whose key changed while it was on its way', async () => {
    const { cache, other } = await setUp();
    await other.set('k', 'before');
    const stale = await cache.read('slot:k', ['k'], async (redis) => {
      const value = await redis.get('k');
      await other.set('k', 'after');
      await new Promise((resolve) => setTimeout(resolve, 50)); // the invalidation arrives while this read is still open
      return value;
    });
    expect(stale).toBe('before');
    const read = () => cache.read('slot:k', ['k'], (redis) => redisCall(() => redis.get('k')));
    expect(await read()).toBe('after');
  });

  it('sees a key that was missing once another node creates it, an expiry, and a FLUSHDB', async () => {
    const { cache, other, anotherNode, get } = await setUp();
    expect(await get('missing')).toBeNull();
    await anotherNode('SET', 'missing', 'there');
    expect(await get('missing')).toBe('there');
    await other.set('short', 'lived', 'PX', 50);
    expect(await get('short')).toBe('lived');
    await until(() => cache.size === 1, "Redis's message for the expired key");
    expect(await get('short')).toBeNull();
    expect(cache.size).toBe(2);
    await other.flushdb();
    await until(() => cache.size === 0, 'the message of the FLUSHDB');
  });

  it('keeps at most maxEntries, the oldest going first', async () => {
    const { other, loads, get } = await setUp(2);
    await other.mset('a', '1', 'b', '2', 'c', '3');
    for (const key of ['a', 'b', 'c']) await get(key);
    expect(loads()).toBe(3);
    await get('c');
    await get('b');
    expect(loads()).toBe(3);
    await get('a');
    expect(loads()).toBe(4);
  });

  it('serves nothing from memory after a lost connection until tracking is set up again, and is exact afterwards', async () => {
    const { cache, other, anotherNode, loads, get } = await setUp();
    await other.set('k', 'one');
    await get('k');
    // Kill the invalidation connection, as a network cut would: what Redis sent meanwhile is lost.
    await other.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await until(() => !cache.active, 'the cache to notice');
    expect(cache.size).toBe(0);
    await other.set('k', 'two');
    expect(await get('k')).toBe('two');
    await until(() => cache.active, 'tracking to be set up again');
    const before = loads();
    expect(await get('k')).toBe('two');
    expect(await get('k')).toBe('two');
    expect(loads()).toBe(before + 1);
    await anotherNode('SET', 'k', 'three');
    expect(await get('k')).toBe('three');
  });
});
