import path from 'node:path';
import type { Config } from './config/load.js';
import { FileSessionStore } from './sessions/file-session-store.js';
import type { SessionStore } from './sessions/session-store.js';
import type { DocumentLocks } from './storage/document-locks.js';
import type { DocumentStore, StorageUsage } from './storage/document-store.js';
import type { LoginAttempts } from './storage/login-attempts.js';
import type { SharedStatisticsStore } from './storage/statistics-store.js';
import { FileDocumentStore } from './storage/file-document-store.js';
import type { RedisLog } from './storage/redis/connection.js';

/**
 * The stores of this server, by `cluster.mode`:
 * - `single` (the default): the embedded stores in the data dir (sessions/, storage/), the in-process
 *   document locks — exactly as before cluster mode existed;
 * - `cluster`: sessions, the document index and the document locks in Redis (`cluster.redis`), document
 *   content on the data dir, which every node mounts (docs/cluster.md). The start waits for Redis for
 *   `cluster.redis.commandTimeout` and fails with 503 (-91) without it: a node must not serve sessions it
 *   cannot see. Later outages answer 503 per call while the client reconnects.
 */
export interface Stores {
  sessionStore: SessionStore;
  documentStore: DocumentStore & { totalUsage(): StorageUsage };
  /** The cluster's document locks; undefined = DocumentService's embedded ones. */
  locks: DocumentLocks | undefined;
  /** The cluster's login-throttle counts; undefined = LoginGuard's embedded ones. */
  loginAttempts: LoginAttempts | undefined;
  /** The cluster's statistics counters; undefined = the embedded Statistics and its file. */
  statistics: SharedStatisticsStore | undefined;
  /** After the session service stopped (it flushes the session store): stops refreshes and closes the Redis connection. */
  close(): Promise<void>;
}

export async function openStores(config: Config, startedAt: Date, log: RedisLog): Promise<Stores> {
  if (config.cluster.mode !== 'cluster') {
    const documentStore = new FileDocumentStore(config.dataDir);
    const sessionStore = new FileSessionStore(path.join(config.dataDir, 'sessions'));
    await sessionStore.open();
    await documentStore.open();
    return { sessionStore, documentStore, locks: undefined, loginAttempts: undefined, statistics: undefined, close: async () => undefined };
  }
  // Loaded only in cluster mode: ioredis and the Redis stores cost a single node ~10 MB of RSS for nothing.
  const { openClusterStores } = await import('./stores-wiring-cluster.js');
  return openClusterStores(config, startedAt, log);
}
