import { randomBytes } from 'node:crypto';
import { documentLocked, type DocumentLease, type DocumentLocks } from './document-locks.js';
import { redisCall, type RedisClient } from './redis/connection.js';
import { uncachedReads, type RedisReads } from './redis/read-cache.js';

export interface RedisDocumentLocksOptions {
  /** How long a lease lives without renewal: how long a dead node's lock can block its document. */
  ttlMs?: number;
  /**
   * Who holds the leases, the first part of each lock value (`<owner>:<token>`): the cluster node's id,
   * so that the membership sweep can release a lost node's leases at once (cluster/leases.ts). Default: random.
   */
  owner?: string;
  /** The read cache the document store reads lock keys through: taking and releasing a lease drop this node's copy at once. */
  reads?: RedisReads;
}

const DEFAULT_TTL_MS = 30_000;
/**
 * How long a lock another node was seen holding counts for `isLocked`: long enough for the call that
 * read the document to answer with it, short enough that no later call relies on it (every call that
 * shows `isFileLocked` reads its documents again, which sees the lock anew).
 */
const SEEN_FOR_MS = 2_000;
/** Locks of other nodes remembered at most (oldest forgotten first). */
const MAX_SEEN = 10_000;

/** KEYS[1] lock, KEYS[2] fence counter; ARGV[1] owner, ARGV[2] ttl ms. Returns the fencing token, or 0 when the lock is held. */
const ACQUIRE = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return token`;
/** KEYS[1] lock; ARGV[1] value, ARGV[2] ttl ms: extends the lease only while it is still this one. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
/** KEYS[1] lock; ARGV[1] value: deletes the lease only while it is still this one (never the next holder's). */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** A lease this node holds. */
interface Held extends DocumentLease {
  /** The lock key's value: `<owner>:<token>`; a commit fenced by it goes through only while the key still holds it. */
  readonly value: string;
}

/**
 * The cluster's document locks: a lease per document in Redis (`doc-lock:<sessionId>:<documentId>`,
 * SET NX with an expiry), renewed every third of its time while the operation runs. A node that dies
 * stops renewing, so its lease ends within `ttlMs` and the document is free again. Each lease carries
 * a fencing token from one counter (`doc-lock-fence`); RedisDocumentStore commits a document only while
 * the lock key still holds this node's lease (`fenceFor`), so a node that lost its lease (paused, cut
 * off from Redis past the expiry) cannot overwrite what the next holder stored.
 */
export class RedisDocumentLocks implements DocumentLocks {
  private readonly owner: string;
  private readonly held = new Map<string, Held>();
  /** Lock key → when a read of the document last saw another holder's lease (epoch ms). */
  private readonly seen = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly reads: RedisReads;

  constructor(
    private readonly redis: RedisClient,
    options: RedisDocumentLocksOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.owner = options.owner ?? randomBytes(8).toString('hex');
    this.reads = options.reads ?? uncachedReads(redis);
  }

  /**
   * Whether this node holds the document's lock, or the read that fetched the document from the index
   * (RedisDocumentStore get/list, in the same round trip) saw another node's lease on it.
   */
  isLocked(sessionId: string, documentId: string): boolean {
    const key = lockKey(sessionId, documentId);
    if (this.held.has(key)) return true;
    const at = this.seen.get(key);
    return at !== undefined && Date.now() - at < SEEN_FOR_MS;
  }

  /** What a read of the index saw of the document's lock key (RedisDocumentStore's `lockSeen`). */
  observe(sessionId: string, documentId: string, locked: boolean): void {
    const key = lockKey(sessionId, documentId);
    this.seen.delete(key);
    if (!locked) return;
    this.seen.set(key, Date.now());
    if (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.keys().next().value!);
  }

  /** The value of this node's lease on the document, while it holds one (the store fences its commit with it). */
  fenceFor(sessionId: string, documentId: string): string | undefined {
    return this.held.get(lockKey(sessionId, documentId))?.value;
  }

  async with<T>(sessionId: string, documentId: string, task: (lease: DocumentLease) => Promise<T>): Promise<T> {
    const key = lockKey(sessionId, documentId);
    // This node's own operations are refused without a round trip, and cannot race each other to Redis.
    if (this.held.has(key)) throw documentLocked(documentId);
    const placeholder: Held = { token: 0, value: '' };
    this.held.set(key, placeholder);
    let lease: Held;
    try {
      const token = Number(await this.reads.writing([key], () => redisCall(() => this.redis.eval(ACQUIRE, 2, key, FENCE, this.owner, String(this.ttlMs)))));
      if (token === 0) throw documentLocked(documentId);
      lease = { token, value: `${this.owner}:${token}` };
    } catch (error) {
      this.held.delete(key);
      throw error;
    }
    this.held.set(key, lease);
    const renewal = setInterval(
      () => {
        // A failed renewal is not the task's failure: the commit's fence decides whether its result may be stored.
        void redisCall(() => this.redis.eval(RENEW, 1, key, lease.value, String(this.ttlMs))).catch(() => undefined);
      },
      Math.max(1, Math.floor(this.ttlMs / 3)),
    );
    renewal.unref();
    try {
      return await task(lease);
    } finally {
      clearInterval(renewal);
      this.held.delete(key);
      // Redis down now: the lease ends with its expiry instead.
      await this.reads.writing([key], () => redisCall(() => this.redis.eval(RELEASE, 1, key, lease.value))).catch(() => undefined);
    }
  }
}

const FENCE = 'doc-lock-fence';

/** The lock key of a document (after the key prefix); RedisDocumentStore's fenced commit names the same key. */
export function lockKey(sessionId: string, documentId: string): string {
  return `doc-lock:${sessionId}:${documentId}`;
}
