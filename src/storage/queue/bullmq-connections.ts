import { closeRedis, duplicateForBlocking, openRedis, type RedisClient, type RedisLog, type RedisSettings } from '../redis/connection.js';
import { BullmqStore } from './bullmq-store.js';
import { JobCommitRecords } from './redis-job-commits.js';

/**
 * The Redis side of the cluster work queue, opened from `cluster.redis.*`: BullMQ takes its own key
 * prefix (`<keyPrefix>bull`) and refuses an ioredis one, so the producer connection has none and the
 * store prefixes its own keys; it fails fast while Redis is down (503 -91 to the caller). Each worker
 * gets a blocking connection that waits for Redis instead.
 */
export interface BullmqConnections {
  store: BullmqStore;
  commits: JobCommitRecords;
  /** A new blocking connection for one BullMQ worker. */
  workerConnection(): RedisClient;
  /** Closes the store's queues and the producer connection (workers close their own). */
  close(): Promise<void>;
}

export function openBullmqConnections(settings: RedisSettings, options: { keepDoneMs?: (kind: string) => number; log?: RedisLog } = {}): BullmqConnections {
  const producer = openRedis({ ...settings, keyPrefix: '' }, { name: 'queue', ...(options.log ? { log: options.log } : {}) });
  const store = new BullmqStore({ connection: producer, keyPrefix: settings.keyPrefix, ...(options.keepDoneMs ? { keepDoneMs: options.keepDoneMs } : {}) });
  return {
    store,
    commits: new JobCommitRecords(producer, settings.keyPrefix),
    workerConnection: () => duplicateForBlocking(producer, { name: 'queue-worker', ...(options.log ? { log: options.log } : {}) }),
    close: async () => {
      await store.close();
      await closeRedis(producer);
    },
  };
}
