import { leaseOwner } from './cluster/leases.js';
import type { Config } from './config/load.js';
import { nodeIdOf } from './operations/admin/cluster-status.js';
import { activeCommitGuard } from './operations/jobs/commit-guard.js';
import { RedisSessionStore } from './sessions/redis-session-store.js';
import { RedisDocumentLocks } from './storage/redis-document-locks.js';
import { RedisDocumentStore } from './storage/redis-document-store.js';
import { RedisLoginAttempts } from './storage/redis-login-attempts.js';
import { RedisStatisticsStore } from './storage/redis-statistics.js';
import { closeRedis, openRedis, waitForRedis, type RedisLog } from './storage/redis/connection.js';
import { RedisReadCache, uncachedReads } from './storage/redis/read-cache.js';
import type { Stores } from './stores-wiring.js';

/** The cluster-mode stores of `openStores` (stores-wiring.ts), in a module of their own so that a single node never loads them. */
export async function openClusterStores(config: Config, startedAt: Date, log: RedisLog): Promise<Stores> {
  const id = nodeIdOf(config);
  const redis = openRedis(config.cluster.redis, { name: `stores:${id}`, log });
  // The session and document record of every call, from memory while Redis reports no change (storage/redis/read-cache.ts).
  const cache = config.cluster.redis.cacheEntries > 0 ? new RedisReadCache(redis, { name: `stores:${id}`, maxEntries: config.cluster.redis.cacheEntries, log }) : undefined;
  const reads = cache ?? uncachedReads(redis);
  try {
    await waitForRedis(redis, config.cluster.redis.commandTimeoutMs);
    // The owner the membership sweep recognises: a lost node's leases are released at once (cluster/leases.ts).
    const locks = new RedisDocumentLocks(redis, { owner: leaseOwner({ id, startedAt: startedAt.getTime() }), reads });
    const documentStore = new RedisDocumentStore(redis, config.dataDir, {
      nodeName: id,
      fenceFor: (sessionId, documentId) => locks.fenceFor(sessionId, documentId),
      // isFileLocked shows every node's locks: a read of the index also reads the lock keys.
      lockSeen: (sessionId, documentId, locked) => locks.observe(sessionId, documentId, locked),
      // A cluster job's commit is marked in the same script as its document's write (operations/queue/at-most-once.ts).
      commitRecord: () => activeCommitGuard()?.record,
      reads,
    });
    const sessionStore = new RedisSessionStore(redis, reads);
    await sessionStore.open();
    await documentStore.open();
    return {
      sessionStore,
      documentStore,
      locks,
      loginAttempts: new RedisLoginAttempts(redis, config.security.login),
      statistics: new RedisStatisticsStore(redis),
      close: async () => {
        documentStore.close();
        await cache?.close();
        await closeRedis(redis);
      },
    };
  } catch (error) {
    await cache?.close();
    await closeRedis(redis);
    throw error;
  }
}
