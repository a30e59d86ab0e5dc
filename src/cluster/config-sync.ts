import type { Redis } from 'ioredis';

/** The stored configuration file: its text, a version that grows with every write, and who wrote it. */
interface StoredConfiguration {
  version: number;
  text: string;
  by: string;
  at: number;
  /** The keys the write changed (dotted), so that a node applies the live ones among them. */
  keys: string[];
}

/**
 * The stored configuration, its version counter, and the channel of changes: keys under the
 * connection's key prefix; the channel is named with the prefix by hand (channels are never prefixed).
 */
const NAMES = { stored: 'config:file', version: 'config:version', channel: 'config:changed' } as const;

export interface ConfigurationSyncOptions {
  /** Commands (with the key prefix). */
  redis: Redis;
  /** A connection of its own for SUBSCRIBE (a subscribed connection serves nothing else). */
  subscriber: Redis;
  keyPrefix: string;
  nodeId: string;
  /** Applies a configuration another node wrote: its file text and the keys that changed (undefined: writes were missed, any key may have). */
  apply(text: string, keys: string[] | undefined): Promise<void>;
  log(level: 'info' | 'warn', message: string, detail?: object): void;
}

/**
 * One configuration for every node (webPDF syncs from its coordinator; here the coordinator is
 * Redis). An administration write stores the written file's text under `config:file` with a new
 * version and publishes the version on `<prefix>config:changed`; every other node reads the stored
 * text and applies it (configuration.ts `applyCentral`: its own file, the live keys at once). A node
 * that starts later adopts the stored text before it builds anything (`adoptStoredConfiguration`), and a
 * node that missed a message (Redis restarted, subscription re-established) catches up at its next
 * `catchUp` (every heartbeat). Two writes on two nodes at once: the later one wins whole.
 */
export class ConfigurationSync {
  /** The stored configuration this node runs on (its identity: version, time and writer), and its text. */
  private applied: Pick<StoredConfiguration, 'version' | 'at' | 'by'> | undefined;
  private text: string | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly options: ConfigurationSyncOptions) {}

  private get channel(): string {
    return `${this.options.keyPrefix}${NAMES.channel}`;
  }

  /**
   * Listens for writes of other nodes. `localText` is the file this node runs on: a write that happened
   * between the node's start (adoptStoredConfiguration) and the subscription is applied now.
   */
  async start(localText: string | undefined): Promise<void> {
    const { subscriber } = this.options;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      this.serially(() => this.onMessage(message));
    });
    await subscriber.subscribe(this.channel);
    this.text = localText;
    this.serially(() => this.pull());
    await this.chain;
  }

  private serially(run: () => Promise<void>): void {
    this.chain = this.chain.then(run).catch((error: unknown) => this.options.log('warn', 'applying the cluster configuration failed', { err: error }));
  }

  async stop(): Promise<void> {
    await this.options.subscriber.unsubscribe(this.channel).catch(() => undefined);
    await this.chain;
  }

  /** After an administration write on this node: store the file's text and tell the others. */
  async publish(text: string, keys: string[]): Promise<void> {
    const { redis, nodeId } = this.options;
    const version = await redis.incr(NAMES.version);
    const stored: StoredConfiguration = { version, text, by: nodeId, at: Date.now(), keys };
    await redis.set(NAMES.stored, JSON.stringify(stored));
    this.applied = stored;
    this.text = text;
    await redis.publish(this.channel, JSON.stringify({ version, by: nodeId }));
  }

  /**
   * A write whose message this node missed (the subscription was re-established after Redis went
   * away), found by the stored document; and when Redis lost it (restarted without AOF), this node's
   * configuration is stored again so that a node starting now adopts it rather than its own file.
   */
  catchUp(): Promise<void> {
    // Quietly: while Redis is away the membership heartbeat says so already.
    this.serially(() => this.pull().catch(() => undefined));
    return this.chain;
  }

  private async onMessage(message: string): Promise<void> {
    let note: { version: number; by: string };
    try {
      note = JSON.parse(message) as typeof note;
    } catch {
      return;
    }
    if (note.by === this.options.nodeId) return;
    await this.pull();
  }

  /** The stored text, not a message's: it is the newest, whatever order messages arrived in. */
  private async pull(): Promise<void> {
    const stored = await readStored(this.options.redis);
    if (!stored) {
      if (this.text !== undefined) await adoptStoredConfiguration(this.options.redis, this.text, this.options.nodeId);
      return;
    }
    const known = this.applied;
    if (known && stored.version === known.version && stored.at === known.at && stored.by === known.by) return;
    this.applied = stored;
    // Identity, not order: after Redis lost its data the versions start again from 1.
    if (stored.text === this.text) return;
    // The next version: its keys; versions in between were missed, so every live key is applied.
    const keys = known && stored.version === known.version + 1 ? stored.keys : undefined;
    this.text = stored.text;
    await this.options.apply(stored.text, keys);
    this.options.log('info', `configuration version ${stored.version} from ${stored.by} applied`, { version: stored.version, by: stored.by, keys: stored.keys });
  }
}

/**
 * At a node's start, before anything is built from its configuration: the stored text when it differs
 * from the node's file (the caller replaces the file with it); with nothing stored yet, this node's
 * file becomes the stored one (the first node of a cluster seeds it; NX: of two first nodes at once,
 * one seeds and the other adopts at its next change).
 */
export async function adoptStoredConfiguration(redis: Redis, localText: string | undefined, nodeId: string): Promise<string | undefined> {
  const stored = await readStored(redis);
  if (stored) return stored.text === localText ? undefined : stored.text;
  if (localText !== undefined) {
    const version = await redis.incr(NAMES.version);
    const seed: StoredConfiguration = { version, text: localText, by: nodeId, at: Date.now(), keys: [] };
    await redis.set(NAMES.stored, JSON.stringify(seed), 'NX');
  }
  return undefined;
}

async function readStored(redis: Redis): Promise<StoredConfiguration | undefined> {
  const text = await redis.get(NAMES.stored);
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as StoredConfiguration;
  } catch {
    return undefined;
  }
}
