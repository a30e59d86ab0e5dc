import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adoptStoredConfiguration, ConfigurationSync } from '../../src/cluster/config-sync.js';
import { leaseOwner, releaseDocumentLocks } from '../../src/cluster/leases.js';
import { Membership, type MemberIdentity } from '../../src/cluster/membership.js';
import { RedisDocumentLocks } from '../../src/storage/redis-document-locks.js';
import { closeRedis, duplicateForBlocking, openRedis, waitForRedis, type RedisClient } from '../../src/storage/redis/connection.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

/**
 * Membership and configuration sync against a real redis-server. The heartbeat is short (50 ms, lost
 * after 2 missed) so that a loss is seen quickly; the test waits for the state it expects, it does
 * not measure how long that took (the multi-process test does, test/cluster/nodes.test.ts).
 */
describe('cluster membership and configuration sync (real redis-server)', () => {
  let redis: RedisServer;
  const clients: RedisClient[] = [];
  let prefix = 0;

  beforeAll(async () => {
    redis = await startRedisServer({ appendonly: false });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => closeRedis(c)));
    await redis.stop();
  });

  /** A connection as the node opens it; every test has its own key prefix, so tests do not see each other's members. */
  async function connect(keyPrefix: string): Promise<RedisClient> {
    const client = openRedis({ url: redis.url, keyPrefix, commandTimeoutMs: 2000 }, { name: 'test' });
    clients.push(client);
    await waitForRedis(client, 5000);
    return client;
  }

  const silent = () => undefined;
  const snapshot = () => ({ loadAverage: 0.5, cpuCount: 2, health: 'UP' as const, engines: { qpdf: 'ok' as const }, pools: [] });
  const identity = (id: string, startedAt: number): MemberIdentity => ({ id, role: 'all', address: `http://127.0.0.1:${1000 + startedAt}`, version: '1.2.3', startedAt });

  async function member(keyPrefix: string, id: string, startedAt: number) {
    const connection = await connect(keyPrefix);
    const node = new Membership({ redis: connection, self: identity(id, startedAt), heartbeatMs: 50, missedHeartbeats: 2, snapshot, log: silent });
    return { node, connection };
  }

  it('lists every member with its heartbeat record; the one running longest coordinates', async () => {
    const keyPrefix = `t${prefix++}:`;
    const a = await member(keyPrefix, 'node-a', 1);
    const b = await member(keyPrefix, 'node-b', 2);
    await a.node.start();
    await b.node.start();
    const members = await b.node.members();
    expect(members.map((m) => [m.id, m.lost, m.coordinator])).toEqual([
      ['node-a', false, true],
      ['node-b', false, false],
    ]);
    expect(members[1]).toMatchObject({ role: 'all', address: 'http://127.0.0.1:1002', version: '1.2.3', cpuCount: 2, health: 'UP', engines: { qpdf: 'ok' } });
    await a.node.stop();
    await b.node.stop();
  });

  it('shows a member whose heartbeat stopped as lost and releases its leases once, whoever sweeps', async () => {
    const keyPrefix = `t${prefix++}:`;
    const a = await member(keyPrefix, 'node-a', 1);
    const b = await member(keyPrefix, 'node-b', 2);
    const c = await member(keyPrefix, 'node-c', 3);
    const released: string[] = [];
    // Two nodes that may both believe they coordinate (a's view and c's after a is gone): the release still runs once.
    for (const m of [a, c]) m.node.onLost(async (lost) => (released.push(lost.id), 3));
    for (const m of [a, b, c]) await m.node.start();

    // b dies: its connection goes away without a word, its heartbeat expires.
    b.connection.disconnect();
    await vi.waitFor(
      async () => {
        const members = await a.node.members();
        expect(members.find((m) => m.id === 'node-b')).toMatchObject({ lost: true, lostAt: expect.any(Number) });
      },
      { timeout: 10_000, interval: 50 },
    );
    const members = await c.node.members();
    expect(members.map((m) => [m.id, m.lost])).toEqual([
      ['node-a', false],
      ['node-b', true],
      ['node-c', false],
    ]);
    expect(released).toEqual(['node-b']);

    // A clean stop is no loss: the member leaves the list.
    await c.node.stop();
    expect((await a.node.members()).map((m) => m.id)).toEqual(['node-a', 'node-b']);
    await a.node.stop();
    await b.node.stop();
  });

  it('stores and publishes a configuration write; another node applies the stored text, a later node adopts it', async () => {
    const keyPrefix = `t${prefix++}:`;
    const applied: Array<{ node: string; text: string; keys: string[] | undefined }> = [];
    const sync = async (nodeId: string) => {
      const connection = await connect(keyPrefix);
      const subscriber = duplicateForBlocking(connection, { name: 'test-sub' });
      clients.push(subscriber);
      const s = new ConfigurationSync({
        redis: connection,
        subscriber,
        keyPrefix,
        nodeId,
        apply: async (text, keys) => void applied.push({ node: nodeId, text, keys }),
        log: silent,
      });
      return { s, connection };
    };
    const first = await sync('one');
    // The first node seeds the stored configuration with its file; nothing to adopt.
    expect(await adoptStoredConfiguration(first.connection, 'log:\n  level: info\n', 'one')).toBeUndefined();
    await first.s.start('log:\n  level: info\n');
    const second = await sync('two');
    // A node with another file adopts the stored one.
    expect(await adoptStoredConfiguration(second.connection, 'log:\n  level: warn\n', 'two')).toBe('log:\n  level: info\n');
    await second.s.start('log:\n  level: info\n');
    expect(applied).toEqual([]);

    await first.s.publish('log:\n  level: debug\n', ['log.level']);
    await vi.waitFor(() => expect(applied).toEqual([{ node: 'two', text: 'log:\n  level: debug\n', keys: ['log.level'] }]), { timeout: 5000, interval: 20 });

    // A node that starts after the write (and whose file is older) applies it at start, every live key.
    const third = await sync('three');
    await third.s.start('log:\n  level: info\n');
    expect(applied[1]).toEqual({ node: 'three', text: 'log:\n  level: debug\n', keys: undefined });
    // Redis lost its data (restarted without AOF): the next catch-up stores the configuration the nodes run on again.
    await first.connection.flushdb();
    await second.s.catchUp();
    expect(await adoptStoredConfiguration(first.connection, 'log:\n  level: warn\n', 'four')).toBe('log:\n  level: debug\n');
    // A write after that reaches the others although its version starts from 1 again.
    await third.s.publish('log:\n  level: error\n', ['log.level']);
    await vi.waitFor(() => expect(applied.filter((a) => a.node === 'two').at(-1)?.text).toBe('log:\n  level: error\n'), { timeout: 5000, interval: 20 });
    for (const s of [first, second, third]) await s.s.stop();
  });

  it("releases the document locks of a lost member's incarnation only", async () => {
    const keyPrefix = `t${prefix++}:`;
    const connection = await connect(keyPrefix);
    const lost = { id: 'node-x', startedAt: 1000 };
    const again = { id: 'node-x', startedAt: 2000 };
    const holders = [lost, again].map((m) => new RedisDocumentLocks(connection, { ttlMs: 60_000, owner: leaseOwner(m) }));
    // Two documents held, one by the lost incarnation, one by the same node started again; the tasks never finish on their own.
    let finish = () => undefined as void;
    const never = new Promise<void>((resolve) => (finish = resolve));
    const held = [holders[0]!.with('s', 'doc-1', () => never), holders[1]!.with('s', 'doc-2', () => never)];
    await vi.waitFor(() => expect(holders[1]!.isLocked('s', 'doc-2')).toBe(true));
    await vi.waitFor(async () => expect(await connection.exists('doc-lock:s:doc-1')).toBe(1));

    expect(await releaseDocumentLocks(connection, keyPrefix, lost)).toBe(1);
    // Another node gets doc-1 now; doc-2 is still held.
    const other = new RedisDocumentLocks(connection, { ttlMs: 60_000 });
    expect(await other.with('s', 'doc-1', async (lease) => lease.token)).toBeGreaterThan(0);
    await expect(other.with('s', 'doc-2', async () => 0)).rejects.toMatchObject({ errorCode: -75 });
    finish();
    await Promise.all(held);
  });
});
