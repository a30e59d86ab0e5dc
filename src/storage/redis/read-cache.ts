import { closeRedis, redisCall, type RedisClient, type RedisLog } from './connection.js';

/**
 * How a store reads and writes the Redis keys it may serve from this node's memory. `read` answers a
 * value cached under `slot` while none of `keys` changed since it was read, or runs `load` (on the
 * client it is given) and remembers the answer; `writing` wraps this node's own writes of `keys`.
 * Keys are named as the stores name them (without the installation's key prefix).
 */
export interface RedisReads {
  read<T>(slot: string, keys: readonly string[], load: (client: RedisClient) => Promise<T>): Promise<T>;
  writing<T>(keys: readonly string[], write: () => Promise<T>): Promise<T>;
}

/** No cache: every read goes to Redis (cluster.redis.cacheEntries 0, and stores built without one). */
export function uncachedReads(redis: RedisClient): RedisReads {
  return {
    read: (_slot, _keys, load) => load(redis),
    writing: (_keys, write) => write(),
  };
}

export interface RedisReadCacheOptions {
  /** Entries kept at most; the least recently stored go first. */
  maxEntries: number;
  /** An entry older than this is read again even without an invalidation: a bound if one were ever missed. */
  maxAgeMs?: number;
  /** Which part of Quire holds the two connections (CLIENT SETNAME `quire:<name>-cache…`). */
  name: string;
  log?: RedisLog;
}

const INVALIDATIONS = '__redis__:invalidate';
const DEFAULT_MAX_AGE_MS = 60_000;

interface Entry {
  value: unknown;
  /** Full key names (with the prefix) the value was read from. */
  keys: readonly string[];
  at: number;
}

/** A read on its way: stored only if none of its keys was invalidated meanwhile. */
interface Flight {
  stale: boolean;
}

/**
 * Server-assisted client-side caching (Redis CLIENT TRACKING) for the cluster's hottest reads, the
 * session of a token and the record of a document, which every call makes: without it, each call of
 * a cluster node costs two Redis round trips where a single node reads its memory (issue 20's
 * `GET info` target: 0.37x of a single node without, 0.92-1.00x with; BENCHMARKS.md).
 *
 * Reads go through a connection of their own with tracking on: Redis remembers every key it read and,
 * when any client changes one (a write, a delete, an expiry, FLUSHDB), tells this node's subscriber
 * connection (`REDIRECT`, RESP2 pub/sub on `__redis__:invalidate`, which ioredis delivers; it drops
 * RESP3 `invalidate` pushes). The entry is dropped when the message arrives.
 *
 * The message travels on another connection than the writer's answer, and Redis 7 sends it after that
 * answer: a client that heard a write's answer from one node and then calls another could otherwise
 * reach it first (seen in tests on a loaded machine). So a hit is answered only after a PING on the
 * subscriber connection, sent after the read began: Redis answers it behind every message it queued
 * for this node before, i.e. for every write it had applied when the read began. The reads of one
 * event-loop turn share one PING, so under load it costs a fraction of a round trip per call and no
 * parsing of records (1 µs of redis-server CPU per `GET info`).
 *
 * What else keeps it exact:
 * - a read whose keys are invalidated while it is on its way is answered but not stored;
 * - this node's own writes (`writing`) drop their keys before they are sent and again once answered;
 * - nothing is served from memory unless both connections are up and tracking was set up since they
 *   last connected: a lost connection may have lost messages, so everything is dropped;
 * - an entry older than `maxAgeMs` is read again, a bound should a message ever be missed.
 * Stores still re-check what matters when they write (revisions, lease fences), and read a document
 * from Redis itself while this node holds its lease: a cached read is never what a commit relies on.
 */
export class RedisReadCache implements RedisReads {
  private readonly entries = new Map<string, Entry>();
  /** Full key → the slots whose entries were read from it. */
  private readonly slotsOf = new Map<string, Set<string>>();
  private readonly flights = new Map<string, Set<Flight>>();
  private readonly reader: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly prefix: string;
  private readonly maxAgeMs: number;
  /** Both connections up and tracking redirected to the subscriber since they last connected. */
  private tracking = false;
  /** The subscriber connection's CLIENT ID once it listens for invalidations. */
  private subscriberId: string | undefined;
  /** Bumped when the subscriber's connection closes: a subscription under way belongs to the old one. */
  private subscriberConnection = 0;
  /** Bumped whenever the connections change state: a set-up that started before is void. */
  private epoch = 0;
  private closed = false;
  /** The barrier the reads of this event-loop turn wait for (sent at the turn's end). */
  private pending: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: RedisReadCacheOptions,
  ) {
    this.prefix = redis.options.keyPrefix ?? '';
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.reader = redis.duplicate({ connectionName: `quire:${options.name}-cache-reads` });
    // RESP2 and no automatic re-subscription: the set-up asks CLIENT ID first, which a subscribed RESP2 connection may not.
    this.subscriber = redis.duplicate({ connectionName: `quire:${options.name}-cache-invalidations`, keyPrefix: '', protocol: 2, autoResubscribe: false });
    for (const connection of [this.reader, this.subscriber]) {
      connection.on('error', () => undefined); // the stores' own connection logs the outage
      connection.on('close', () => this.lost());
    }
    this.subscriber.on('close', () => {
      this.subscriberId = undefined;
      this.subscriberConnection++;
    });
    this.subscriber.on('ready', () => void this.subscribe());
    this.reader.on('ready', () => void this.redirect());
    this.subscriber.on('messageBuffer', (channel: Buffer, message: Buffer[] | null) => {
      if (channel.toString() !== INVALIDATIONS) return;
      // null: Redis forgot what it tracked (FLUSHALL, its tracking table full): everything goes.
      if (!Array.isArray(message)) this.dropAll();
      else for (const key of message) this.invalidate(key.toString());
    });
  }

  async read<T>(slot: string, keys: readonly string[], load: (client: RedisClient) => Promise<T>): Promise<T> {
    if (!this.tracking) return load(this.redis);
    if (this.entries.has(slot)) {
      // Every message Redis queued for this node before the barrier is handled when it resolves: a
      // write that was answered before this read began has dropped the entry by then.
      const passed = await this.barrier().then(
        () => true,
        () => false,
      );
      const entry = this.entries.get(slot);
      if (passed && entry && Date.now() - entry.at < this.maxAgeMs) return entry.value as T;
      if (!this.tracking) return load(this.redis);
    }
    const full = keys.map((key) => this.prefix + key);
    const flight: Flight = { stale: false };
    const epoch = this.epoch;
    for (const key of full) this.flightsOf(key).add(flight);
    try {
      const value = await load(this.reader);
      if (!flight.stale && this.tracking && epoch === this.epoch) this.store(slot, full, value);
      return value;
    } finally {
      for (const key of full) this.endFlight(key, flight);
    }
  }

  async writing<T>(keys: readonly string[], write: () => Promise<T>): Promise<T> {
    for (const key of keys) this.invalidate(this.prefix + key);
    try {
      return await write();
    } finally {
      for (const key of keys) this.invalidate(this.prefix + key);
    }
  }

  /**
   * A PING on the subscriber connection, sent after every read that asked for it: Redis answers it
   * after the messages it queued for this connection before, so once it is answered, those messages
   * were handled. The reads of one event-loop turn share one PING.
   */
  private barrier(): Promise<void> {
    if (!this.pending) {
      this.pending = new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          this.pending = undefined;
          redisCall(() => this.subscriber.ping()).then(() => resolve(), reject);
        });
      });
    }
    return this.pending;
  }

  /** Whether reads are served from memory now (both connections up, tracking set up). */
  get active(): boolean {
    return this.tracking;
  }

  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.lost();
    await Promise.all([this.reader, this.subscriber].map((connection) => closeRedis(connection)));
  }

  /** A new subscriber connection: its id (for REDIRECT, asked before it subscribes), then the channel. */
  private async subscribe(): Promise<void> {
    this.lost();
    const connection = this.subscriberConnection;
    try {
      const id = await redisCall(() => this.subscriber.client('ID'));
      await redisCall(() => this.subscriber.subscribe(INVALIDATIONS));
      if (connection !== this.subscriberConnection) return; // it closed meanwhile; its next 'ready' starts again
      this.subscriberId = String(id);
    } catch (error) {
      if (connection === this.subscriberConnection) this.failed(error);
      return;
    }
    await this.redirect();
  }

  /**
   * Points the reader's tracking at the subscriber, on every (re)connect of either: a reader that
   * reconnected tracks nothing, and the subscriber's id changes with each connection.
   */
  private async redirect(): Promise<void> {
    this.lost();
    const epoch = this.epoch;
    const id = this.subscriberId;
    if (this.closed || id === undefined || this.reader.status !== 'ready') return;
    try {
      await redisCall(() => this.reader.client('TRACKING', 'OFF'));
      await redisCall(() => this.reader.client('TRACKING', 'ON', 'REDIRECT', id));
    } catch (error) {
      if (epoch === this.epoch) this.failed(error);
      return;
    }
    if (epoch === this.epoch && !this.closed) this.tracking = true;
  }

  /** A set-up step failed: the connection went away meanwhile ('ready' sets up again), or Redis refused tracking. */
  private failed(error: unknown): void {
    if (!this.closed) this.options.log?.warn({ redis: this.options.name, err: error }, 'Redis read cache not set up; reading Redis on every call');
  }

  /** A connection closed or changed: what Redis told it may be lost, so nothing from before is trusted. */
  private lost(): void {
    this.tracking = false;
    this.epoch++;
    this.dropAll();
  }

  private dropAll(): void {
    this.entries.clear();
    this.slotsOf.clear();
    for (const flights of this.flights.values()) for (const flight of flights) flight.stale = true;
  }

  private invalidate(key: string): void {
    const slots = this.slotsOf.get(key);
    if (slots) {
      this.slotsOf.delete(key);
      for (const slot of slots) this.remove(slot);
    }
    const flights = this.flights.get(key);
    if (flights) for (const flight of flights) flight.stale = true;
  }

  private store(slot: string, keys: readonly string[], value: unknown): void {
    this.remove(slot);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.remove(oldest.value);
    }
    this.entries.set(slot, { value, keys, at: Date.now() });
    for (const key of keys) {
      let slots = this.slotsOf.get(key);
      if (!slots) this.slotsOf.set(key, (slots = new Set()));
      slots.add(slot);
    }
  }

  private remove(slot: string): void {
    const entry = this.entries.get(slot);
    if (!entry) return;
    this.entries.delete(slot);
    for (const key of entry.keys) {
      const slots = this.slotsOf.get(key);
      if (!slots) continue;
      slots.delete(slot);
      if (slots.size === 0) this.slotsOf.delete(key);
    }
  }

  private flightsOf(key: string): Set<Flight> {
    let flights = this.flights.get(key);
    if (!flights) this.flights.set(key, (flights = new Set()));
    return flights;
  }

  private endFlight(key: string, flight: Flight): void {
    const flights = this.flights.get(key);
    if (!flights) return;
    flights.delete(flight);
    if (flights.size === 0) this.flights.delete(key);
  }
}
