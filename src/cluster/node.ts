import os from 'node:os';
import type { Config } from '../config/load.js';
import { readConfigText, writeConfigFile } from '../config/write.js';
import { nodeIdOf, type MemberView } from '../operations/admin/cluster-status.js';
import { closeRedis, duplicateForBlocking, openRedis, redisCall, StoreUnavailableError, waitForRedis, type RedisClient } from '../storage/redis/connection.js';
import { adoptStoredConfiguration, ConfigurationSync } from './config-sync.js';
import { leaseOwner, releaseDocumentLocks } from './leases.js';
import { Membership, type LeaseRelease, type MemberSnapshot } from './membership.js';

type Log = (level: 'info' | 'warn', message: string, detail?: object) => void;

/** `cluster.node.address`, or where this node listens (a wildcard host named by the machine's name). */
function nodeAddress(config: Config, port: number): string {
  if (config.cluster.node.address) return config.cluster.node.address;
  const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? os.hostname() : config.server.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The configuration file a node reads and the administration writes (configuration.ts `file`). */
function configFileOf(config: Config): string {
  return config.configFile ?? `${config.dataDir}/quire.yaml`;
}

/**
 * Start of a cluster node, before anything is built from the configuration: the configuration the
 * cluster stored (the last administration write, or the first node's file) replaces this node's file,
 * and the configuration is read again. Node-specific settings come from the environment
 * (QUIRE_CLUSTER__NODE__ID, PORT…), which wins over the file. Redis unreachable: the node starts on
 * its own file, as it starts its stores (they answer 503 until Redis is back), and applies the stored
 * configuration at its first catch-up once Redis answers.
 */
export async function adoptClusterConfiguration(config: Config, reload: () => Config): Promise<Config> {
  if (config.cluster.mode !== 'cluster') return config;
  const redis = openRedis(config.cluster.redis, { name: 'config-adopt' });
  try {
    try {
      await waitForRedis(redis, config.cluster.redis.commandTimeoutMs);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return config;
      throw error;
    }
    const file = configFileOf(config);
    const local = await readConfigText(file);
    const stored = await redisCall(() => adoptStoredConfiguration(redis, local, nodeIdOf(config)));
    if (stored === undefined) return config;
    await writeConfigFile(file, stored);
    return reload();
  } finally {
    await closeRedis(redis);
  }
}

export interface ClusterNodeStart {
  /** The port the node listens on (the public API, or a worker's private listener). */
  port: number;
  snapshot(): MemberSnapshot;
  /** Applies a configuration another node wrote (ConfigurationService.applyCentral). */
  applyConfiguration(text: string, keys: string[] | undefined): Promise<void>;
}

/**
 * This process as a member of the cluster: its Redis connections (one for commands, one subscribed),
 * the configuration sync (usable as soon as the node is built, so the administration can publish) and
 * the membership heartbeat (started once the node listens, when its address is known).
 */
export class ClusterNode {
  readonly id: string;
  private readonly redis: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly sync: ConfigurationSync;
  private membership: Membership | undefined;
  private catchUp: NodeJS.Timeout | undefined;
  private readonly releases: LeaseRelease[] = [];
  private apply: ClusterNodeStart['applyConfiguration'] = async () => undefined;

  constructor(
    private readonly config: Config,
    private readonly identity: { version: string; startedAt: Date },
    private readonly log: Log,
  ) {
    this.id = nodeIdOf(config);
    this.redis = openRedis(config.cluster.redis, { name: `node:${this.id}`, log: logAs(log) });
    this.subscriber = duplicateForBlocking(this.redis, { name: `config-sync:${this.id}`, log: logAs(log) });
    this.sync = new ConfigurationSync({
      redis: this.redis,
      subscriber: this.subscriber,
      keyPrefix: config.cluster.redis.keyPrefix,
      nodeId: this.id,
      apply: (text, keys) => this.apply(text, keys),
      log,
    });
    // A lost member's document locks end at once, not at their expiry.
    this.releases.push((member) => releaseDocumentLocks(this.redis, config.cluster.redis.keyPrefix, member));
  }

  /** The owner this node's document leases carry (RedisDocumentLocks `owner`), so that a sweep can release them if this node is lost. */
  get leaseOwner(): string {
    return leaseOwner({ id: this.id, startedAt: this.identity.startedAt.getTime() });
  }

  /** What the configuration administration publishes a write through. */
  get configuration(): { publish(text: string, keys: string[]): Promise<void> } {
    return { publish: (text, keys) => redisCall(() => this.sync.publish(text, keys)) };
  }

  /**
   * Joins the cluster. Redis away: the node runs all the same (its stores answer 503 meanwhile) and joins
   * when Redis is back: the heartbeat keeps trying, the subscription waits for the connection.
   */
  async start(start: ClusterNodeStart): Promise<void> {
    this.apply = start.applyConfiguration;
    const connected = await waitForRedis(this.redis, this.config.cluster.redis.commandTimeoutMs).then(
      () => true,
      () => false,
    );
    if (!connected) this.log('warn', `Redis (cluster.redis.url) is not reachable: node ${this.id} joins the cluster when it is back`);
    const localText = await readConfigText(configFileOf(this.config));
    const subscribed = this.sync.start(localText).catch((error: unknown) => this.log('warn', 'the configuration sync could not start; it retries at every heartbeat', { err: error }));
    // Connected: the first configuration check is done before the node counts as started.
    if (connected) await subscribed;
    const membership = new Membership({
      redis: this.redis,
      self: { id: this.id, role: this.config.cluster.node.role, address: nodeAddress(this.config, start.port), version: this.identity.version, startedAt: this.identity.startedAt.getTime() },
      heartbeatMs: this.config.cluster.node.heartbeatIntervalMs,
      missedHeartbeats: this.config.cluster.node.missedHeartbeats,
      snapshot: start.snapshot,
      log: this.log,
    });
    for (const release of this.releases) membership.onLost(release);
    this.membership = membership;
    await membership.start();
    this.catchUp = setInterval(() => void this.sync.catchUp(), this.config.cluster.node.heartbeatIntervalMs);
    this.catchUp.unref();
  }

  /** Every member, for admin/cluster/status (503 while Redis is away). */
  members(): Promise<MemberView[]> {
    const membership = this.membership;
    if (!membership) return Promise.resolve([]);
    return redisCall(() => membership.members());
  }

  async stop(): Promise<void> {
    clearInterval(this.catchUp);
    await this.membership?.stop();
    // Never connected: there is no subscription to end (and an UNSUBSCRIBE would wait for a connection).
    if (this.subscriber.status === 'ready') await this.sync.stop();
    await closeRedis(this.subscriber);
    await closeRedis(this.redis);
  }
}

function logAs(log: Log) {
  return { info: (fields: object, message: string) => log('info', message, fields), warn: (fields: object, message: string) => log('warn', message, fields) };
}
