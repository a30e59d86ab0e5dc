import { execMulti as exec, redisCall, type RedisClient } from '../storage/redis/connection.js';
import { uncachedReads, type RedisReads } from '../storage/redis/read-cache.js';
import type { Session } from './session.js';
import type { SessionStore } from './session-store.js';

/** How often the last-access times that touch() buffered are written (they are shown, never decided on). */
const TOUCH_FLUSH_MS = 5_000;
/** MGET batch when listing every session. */
const BATCH = 500;

/**
 * The cluster's session store: the same records as FileSessionStore, in Redis, so that any node serves
 * any session and a refresh or logout on one node is what every other node reads next. The session
 * of a call and the external logins are read through `reads` (storage/redis/read-cache.ts): from this
 * node's memory while Redis has not reported a change, so the authentication of a call usually costs
 * no round trip; every write here goes through `reads.writing`.
 *
 * Keys (after cluster.redis.keyPrefix): `session:<id>` the record (JSON), `session-access:<id>` the
 * buffered last access, `sessions` the set of ids, `sessions:external` provider+subject → id,
 * `sessions:anonymous:<address>` ids opened from a client address, `sessions:revocations` external
 * logouts. Records have no Redis expiry: the sweep ends expired sessions and deletes their storage,
 * which a key vanishing on its own would skip.
 */
export class RedisSessionStore implements SessionStore {
  private readonly touched = new Map<string, number>();
  private flusher: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly reads: RedisReads = uncachedReads(redis),
  ) {}

  async open(): Promise<void> {
    this.flusher = setInterval(() => void this.flushTouches().catch(() => undefined), TOUCH_FLUSH_MS);
    this.flusher.unref();
  }

  async get(id: string): Promise<Session | undefined> {
    return this.reads.read(`session:${id}`, [sessionKey(id), accessKey(id)], async (redis) => {
      const [record, access] = await redisCall(() => redis.mget(sessionKey(id), accessKey(id)));
      return record ? withAccess(record, access ?? null) : undefined;
    });
  }

  async put(session: Session): Promise<void> {
    const record = JSON.stringify({ ...session, roles: [...session.roles] });
    const multi = this.redis.multi().set(sessionKey(session.id), record).sadd(SESSIONS, session.id);
    if (session.providerId) multi.hset(EXTERNAL, externalField(session.providerId, session.subject), session.id);
    if (session.kind === 'anonymous' && session.clientAddress) multi.sadd(anonymousKey(session.clientAddress), session.id);
    await this.reads.writing([sessionKey(session.id), EXTERNAL], () => exec(multi));
  }

  async rotate(renewed: Session, previousRefreshTokenId: string): Promise<boolean> {
    const record = JSON.stringify({ ...renewed, roles: [...renewed.roles] });
    const replaced = await this.reads.writing([sessionKey(renewed.id)], () => redisCall(() => this.redis.eval(ROTATE, 1, sessionKey(renewed.id), previousRefreshTokenId, record)));
    return replaced === 1;
  }

  async delete(id: string): Promise<boolean> {
    const record = await redisCall(() => this.redis.get(sessionKey(id)));
    if (record === null) return false;
    const session = JSON.parse(record) as Session;
    this.touched.delete(id);
    // DEL answers 1 to one deleter only: the node that gets it ends the session (deletes its storage).
    const multi = this.redis.multi().del(sessionKey(id)).del(accessKey(id)).srem(SESSIONS, id);
    if (session.providerId) multi.hdel(EXTERNAL, externalField(session.providerId, session.subject));
    if (session.clientAddress) multi.srem(anonymousKey(session.clientAddress), id);
    const [deleted] = await this.reads.writing([sessionKey(id), accessKey(id), EXTERNAL], () => exec(multi));
    return deleted === 1;
  }

  async list(): Promise<Session[]> {
    return this.many(await redisCall(() => this.redis.smembers(SESSIONS)));
  }

  async count(): Promise<number> {
    return redisCall(() => this.redis.scard(SESSIONS));
  }

  async findExternal(providerId: string, subject: string): Promise<Session | undefined> {
    const field = externalField(providerId, subject);
    const id = await this.reads.read(`external:${field}`, [EXTERNAL], (redis) => redisCall(() => redis.hget(EXTERNAL, field)));
    return id === null ? undefined : this.get(id);
  }

  async anonymousFrom(clientAddress: string): Promise<Session[]> {
    return this.many(await redisCall(() => this.redis.smembers(anonymousKey(clientAddress))));
  }

  touch(id: string, at: number): void {
    this.touched.set(id, Math.max(at, this.touched.get(id) ?? 0));
  }

  async revokeExternal(providerId: string, subject: string, notBefore: number, until: number): Promise<void> {
    const now = Date.now() / 1000;
    const stored = await redisCall(() => this.redis.hgetall(REVOCATIONS));
    const expired = Object.entries(stored)
      .filter(([, value]) => (JSON.parse(value) as Revocation).until < now)
      .map(([field]) => field);
    const multi = this.redis.multi().hset(REVOCATIONS, externalField(providerId, subject), JSON.stringify({ notBefore, until } satisfies Revocation));
    if (expired.length > 0) multi.hdel(REVOCATIONS, ...expired);
    await this.reads.writing([REVOCATIONS], () => exec(multi));
  }

  async externalRevocation(providerId: string, subject: string): Promise<number | undefined> {
    const field = externalField(providerId, subject);
    const value = await this.reads.read(`revocation:${field}`, [REVOCATIONS], (redis) => redisCall(() => redis.hget(REVOCATIONS, field)));
    if (value === null) return undefined;
    const entry = JSON.parse(value) as Revocation;
    return entry.until >= Date.now() / 1000 ? entry.notBefore : undefined;
  }

  /** Writes the buffered last-access times; the client connection belongs to the wiring, which closes it. */
  async close(): Promise<void> {
    if (this.flusher) clearInterval(this.flusher);
    this.flusher = undefined;
    await this.flushTouches();
  }

  private async flushTouches(): Promise<void> {
    if (this.touched.size === 0) return;
    const entries = [...this.touched];
    this.touched.clear();
    // Only for sessions that still exist: a touch must not bring back the access key of an ended session.
    const multi = this.redis.multi();
    for (const [id, at] of entries) multi.eval(SET_IF_EXISTS, 2, sessionKey(id), accessKey(id), String(at));
    await this.reads.writing(
      entries.map(([id]) => accessKey(id)),
      () => exec(multi),
    );
  }

  private async many(ids: string[]): Promise<Session[]> {
    const sessions: Session[] = [];
    for (let start = 0; start < ids.length; start += BATCH) {
      const batch = ids.slice(start, start + BATCH);
      const keys = batch.flatMap((id) => [sessionKey(id), accessKey(id)]);
      const values = await redisCall(() => this.redis.mget(...keys));
      for (let i = 0; i < batch.length; i++) {
        const record = values[2 * i];
        if (record) sessions.push(withAccess(record, values[2 * i + 1] ?? null));
      }
    }
    return sessions;
  }
}

interface Revocation {
  notBefore: number;
  until: number;
}

const SESSIONS = 'sessions';
const EXTERNAL = 'sessions:external';
const REVOCATIONS = 'sessions:revocations';
/** KEYS[1] the record; ARGV[1] the refresh token id it must still carry, ARGV[2] the renewed record. */
const ROTATE = `local current = redis.call('GET', KEYS[1])
if not current or cjson.decode(current)['refreshTokenId'] ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1`;
/** KEYS[1] the record, KEYS[2] the access key: set KEYS[2] to the larger of its value and ARGV[1], only while KEYS[1] exists. */
const SET_IF_EXISTS = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[1]) > current then redis.call('SET', KEYS[2], ARGV[1]) end
return 1`;

function sessionKey(id: string): string {
  return `session:${id}`;
}

function accessKey(id: string): string {
  return `session-access:${id}`;
}

function anonymousKey(clientAddress: string): string {
  return `sessions:anonymous:${clientAddress}`;
}

function externalField(providerId: string, subject: string): string {
  return `${providerId}\u0000${subject}`;
}

function withAccess(record: string, access: string | null): Session {
  const session = JSON.parse(record) as Session;
  if (access !== null) session.lastAccess = Math.max(session.lastAccess, Number(access));
  return session;
}
