import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killAll, spawnQuire, waitHealthy, type QuireProcess } from '../../helpers/process.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';

/** Generous for a busy machine: a node start (spawn → healthy) may take this long. */
const START_DEADLINE_MS = 60_000;

export interface BuiltCluster {
  redis: RedisServer;
  /** The shared data dir of every node. */
  dataDir: string;
  /** In start order: node-1, node-2, ... */
  nodes: QuireProcess[];
  /** SIGKILLs every node, stops Redis (its directory removed) and removes the data dir. */
  stop(): Promise<void>;
}

/**
 * A real redis-server (AOF on) and `count` built nodes (`node dist/main.js`, role all, as `./quire.sh
 * cluster` starts them) on it and on one data dir, all on 127.0.0.1. The first node starts alone (it
 * creates the keys and the generated admin in the shared data dir), then the others at once; all
 * run the same build (built only when dist/ has none). `env` is added to every node's.
 */
export async function startBuiltCluster(count: number, env: Record<string, string>): Promise<BuiltCluster> {
  const redis = await startRedisServer({ appendonly: true });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-cluster-'));
  const nodes: QuireProcess[] = [];
  const stop = async () => {
    await killAll();
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const start = async (i: number) => {
    const node = await spawnQuire({
      dataDir,
      build: 'missing',
      env: {
        QUIRE_CLUSTER__MODE: 'cluster',
        QUIRE_CLUSTER__REDIS__URL: redis.url,
        QUIRE_CLUSTER__NODE__ID: `node-${i}`,
        QUIRE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        QUIRE_LOG__LEVEL: 'warn',
        ...env,
      },
    });
    nodes[i - 1] = node;
    await waitHealthy(node, START_DEADLINE_MS);
  };
  try {
    await start(1);
    await Promise.all(Array.from({ length: count - 1 }, (_, i) => start(i + 2)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { redis, dataDir, nodes, stop };
}
