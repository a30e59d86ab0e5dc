import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '../../../src/core/errors.js';
import { newId } from '../../../src/core/ids.js';
import { LocalDocumentLocks } from '../../../src/operations/documents/locks.js';
import type { DocumentLocks } from '../../../src/storage/document-locks.js';
import { lockKey, RedisDocumentLocks } from '../../../src/storage/redis-document-locks.js';
import { StoreUnavailableError, waitForRedis } from '../../../src/storage/redis/connection.js';
import { redisClients, startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

let server: RedisServer;
const clients = redisClients(() => server);
const PREFIX = 'locks-test:';
/** A node's client: each node of a cluster has its own connection. */
const nodeClient = () => clients.open(PREFIX, 'locks-test');

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await clients.closeAll();
  await server.stop();
});

function cli(...args: string[]): string {
  return execFileSync('redis-cli', ['-p', String(server.port), '--raw', ...args], { encoding: 'utf8' }).trim();
}

function errorCodeOf(error: unknown): number | undefined {
  return (error as { errorCode?: number }).errorCode;
}

/** Holds the document's lock until the returned release() is called. */
async function hold(locks: DocumentLocks, sessionId: string, documentId: string): Promise<{ token: number; release: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let token = -1;
  const done = locks.with(sessionId, documentId, async (lease) => {
    token = lease.token;
    await released;
  });
  while (token === -1) await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    token,
    release: async () => {
      release();
      await done;
    },
  };
}

const implementations: Array<[string, () => Promise<DocumentLocks>]> = [
  ['LocalDocumentLocks', async () => new LocalDocumentLocks()],
  ['RedisDocumentLocks', async () => new RedisDocumentLocks(await nodeClient())],
];

describe.each(implementations)('%s', (_name, make) => {
  it('refuses a second holder with DOCUMENT_LOCKED (409) and frees the document when the task ends', async () => {
    const locks = await make();
    const sessionId = newId();
    const documentId = newId();
    const held = await hold(locks, sessionId, documentId);
    expect(locks.isLocked(sessionId, documentId)).toBe(true);
    const refused = await locks.with(sessionId, documentId, async () => 'ran').catch((error: unknown) => error);
    expect(errorCodeOf(refused)).toBe(Errors.DOCUMENT_LOCKED.errorCode);
    expect(Errors.DOCUMENT_LOCKED.status).toBe(409);
    // Another document of the same session is not affected.
    expect(await locks.with(sessionId, newId(), async () => 'other')).toBe('other');
    await held.release();
    expect(locks.isLocked(sessionId, documentId)).toBe(false);
    expect(await locks.with(sessionId, documentId, async () => 'again')).toBe('again');
  });

  it('frees the document when the task fails', async () => {
    const locks = await make();
    const sessionId = newId();
    const documentId = newId();
    await expect(
      locks.with(sessionId, documentId, async () => {
        throw new Error('task failed');
      }),
    ).rejects.toThrow('task failed');
    expect(await locks.with(sessionId, documentId, async () => 'free')).toBe('free');
  });

  it('lets exactly one of many concurrent callers in', async () => {
    const locks = await make();
    const sessionId = newId();
    const documentId = newId();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const attempts = Array.from({ length: 8 }, () => locks.with(sessionId, documentId, () => gate.then(() => 'won')).catch((error: unknown) => errorCodeOf(error)));
    release();
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    expect(results.filter((r) => r === Errors.DOCUMENT_LOCKED.errorCode)).toHaveLength(7);
  });
});

describe('RedisDocumentLocks across nodes', () => {
  it('refuses a document another node holds, and hands out growing fencing tokens', async () => {
    const a = new RedisDocumentLocks(await nodeClient());
    const b = new RedisDocumentLocks(await nodeClient());
    const sessionId = newId();
    const documentId = newId();
    const held = await hold(a, sessionId, documentId);
    expect(cli('EXISTS', `${PREFIX}${lockKey(sessionId, documentId)}`)).toBe('1');
    const refused = await b.with(sessionId, documentId, async () => 'ran').catch((error: unknown) => errorCodeOf(error));
    expect(refused).toBe(Errors.DOCUMENT_LOCKED.errorCode);
    // isLocked is this node's knowledge only (it is synchronous, on the answer path of every listing).
    expect(b.isLocked(sessionId, documentId)).toBe(false);
    await held.release();
    expect(cli('EXISTS', `${PREFIX}${lockKey(sessionId, documentId)}`)).toBe('0');
    const next = await hold(b, sessionId, documentId);
    expect(next.token).toBeGreaterThan(held.token);
    expect(b.fenceFor(sessionId, documentId)).toMatch(new RegExp(`:${next.token}$`));
    await next.release();
    expect(b.fenceFor(sessionId, documentId)).toBeUndefined();
  });

  it("ends a dead node's lease at its expiry, so the document is not blocked for ever", async () => {
    const b = new RedisDocumentLocks(await nodeClient());
    const sessionId = newId();
    const documentId = newId();
    // A node that took the lock and died: its lease is in Redis and nobody renews it.
    cli('SET', `${PREFIX}${lockKey(sessionId, documentId)}`, 'dead-node:1', 'PX', '400');
    const refused = await b.with(sessionId, documentId, async () => 'ran').catch((error: unknown) => errorCodeOf(error));
    expect(refused).toBe(Errors.DOCUMENT_LOCKED.errorCode);
    let outcome: unknown;
    for (let attempt = 0; attempt < 200 && outcome !== 'taken'; attempt++) {
      outcome = await b.with(sessionId, documentId, async () => 'taken').catch((error: unknown) => errorCodeOf(error));
      if (outcome !== 'taken') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(outcome).toBe('taken');
  });

  it('renews the lease of a task that runs longer than the expiry, and never deletes a later holder', async () => {
    const a = new RedisDocumentLocks(await nodeClient(), { ttlMs: 1500 });
    const b = new RedisDocumentLocks(await nodeClient(), { ttlMs: 1500 });
    const sessionId = newId();
    const documentId = newId();
    const key = `${PREFIX}${lockKey(sessionId, documentId)}`;
    const held = await hold(a, sessionId, documentId);
    const value = cli('GET', key);
    // Two expiries later the same lease is still there.
    await new Promise((resolve) => setTimeout(resolve, 3200));
    expect(cli('GET', key)).toBe(value);
    expect(await b.with(sessionId, documentId, async () => 'ran').catch((error: unknown) => errorCodeOf(error))).toBe(Errors.DOCUMENT_LOCKED.errorCode);
    // The lease is lost (taken over, as after an expiry): A's release must leave the new holder's lease alone.
    cli('SET', key, 'other-node:999999', 'PX', '60000');
    await held.release();
    expect(cli('GET', key)).toBe('other-node:999999');
    cli('DEL', key);
  });

  it('answers StoreUnavailableError (503) while Redis is down', async () => {
    const client = await nodeClient();
    const locks = new RedisDocumentLocks(client);
    await server.kill();
    try {
      const failure = await locks.with(newId(), newId(), async () => 'ran').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
    } finally {
      await server.restart();
    }
    await waitForRedis(client, 20_000);
    expect(await locks.with(newId(), newId(), async () => 'back')).toBe('back');
  });
});
