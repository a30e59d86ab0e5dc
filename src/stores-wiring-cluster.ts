import { leaseOwner } from './cluster/leases.js';
import type { Config } from './config/load.js';
import { nodeIdOf } from './operations/admin/cluster-status.js';
import { RedisSessionStore } from './sessions/redis-session-store.js';
import { RedisDocumentLocks } from './storage/redis-document-locks.js';
import { RedisDocumentStore } from './storage/redis-document-store.js';
import { closeRedis, openRedis, waitForRedis, type RedisLog } from './storage/redis/connection.js';
import type { Stores } from './stores-wiring.js';

/** The cluster-mode stores of `openStores` (stores-wiring.ts), in a module of their own so that a single node never loads them. */
export async function openClusterStores(config: Config, startedAt: Date, log: RedisLog): Promise<Stores> {
  const id = nodeIdOf(config);
  const redis = openRedis(config.cluster.redis, { name: `stores:${id}`, log });
  try {
    await waitForRedis(redis, config.cluster.redis.commandTimeoutMs);
    // The owner the membership sweep recognises: a lost node's leases are released at once (cluster/leases.ts).
    const locks = new RedisDocumentLocks(redis, { owner: leaseOwner({ id, startedAt: startedAt.getTime() }) });
    const documentStore = new RedisDocumentStore(redis, config.dataDir, { nodeName: id, fenceFor: (sessionId, documentId) => locks.fenceFor(sessionId, documentId) });
    const sessionStore = new RedisSessionStore(redis);
    await sessionStore.open();
    await documentStore.open();
    return {
      sessionStore,
      documentStore,
      locks,
      close: async () => {
        documentStore.close();
        await closeRedis(redis);
      },
    };
  } catch (error) {
    await closeRedis(redis);
    throw error;
  }
}
