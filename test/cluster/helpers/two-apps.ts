import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * Two Quire applications in this test process in cluster mode, on one real redis-server and one data
 * dir: two nodes without the process start (test/cluster/nodes*.test.ts runs built nodes behind haproxy).
 */
export interface TwoApps {
  redis: RedisServer;
  dataDir: string;
  a: TestServer;
  b: TestServer;
  /** Stops both applications, Redis, and removes the data dir. */
  stop(): Promise<void>;
}

export interface TwoAppsOptions {
  /** Redis key prefix (the cluster's id). */
  keyPrefix: string;
  /** More environment for both nodes (limits, login security, ...). */
  env?: Record<string, string>;
  /** A configuration file for both (written into the shared data dir). */
  yaml?: string;
  /** Start the warm engines (LibreOffice, Chromium) on both, as startTestServer's `engines`. */
  engines?: boolean;
}

export function clusterEnv(redis: RedisServer, keyPrefix: string, node: string): Record<string, string> {
  return {
    QUIRE_CLUSTER__MODE: 'cluster',
    QUIRE_CLUSTER__REDIS__URL: redis.url,
    QUIRE_CLUSTER__REDIS__KEY_PREFIX: keyPrefix,
    // Generous: both applications share this test process's event loop, which a 200-page document keeps busy.
    QUIRE_CLUSTER__REDIS__COMMAND_TIMEOUT: '15',
    QUIRE_CLUSTER__NODE__ID: node,
  };
}

/** Starts Redis, then node-a, then node-b (one after the other: the first creates the shared token key in the data dir). */
export async function startTwoApps(options: TwoAppsOptions): Promise<TwoApps> {
  const redis = await startRedisServer();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `quire-${options.keyPrefix.replace(/[^a-z0-9-]/gi, '')}-`));
  const started: TestServer[] = [];
  const stop = async () => {
    for (const server of started.splice(0).reverse()) await server.stop();
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (const node of ['node-a', 'node-b']) {
      const env = { ...clusterEnv(redis, options.keyPrefix, node), ...options.env };
      started.push(await startTestServer({ dataDir, env, engines: options.engines ?? false, ...(options.yaml === undefined ? {} : { yaml: options.yaml }) }));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const [a, b] = started as [TestServer, TestServer];
  return { redis, dataDir, a, b, stop };
}
