import { Redis } from 'ioredis';
import { QuireError } from '../../core/errors.js';

/**
 * The one way Quire opens a Redis connection (cluster mode). Redis is shared state of every node, so a
 * node must outlive Redis going away: the client reconnects for ever with a capped backoff and never
 * throws at the process, while every command issued meanwhile fails at once with
 * StoreUnavailableError (503, errorCode -91) instead of queueing behind a connection that may not come
 * back — a client gets a clear answer it can retry, and no request holds memory waiting.
 */

/** `cluster.redis.*` as the loader resolves them. */
export interface RedisSettings {
  /** redis://[user:password@]host:port[/db] or rediss:// for TLS. */
  url: string;
  /** Put in front of every key this client names, so several installations can share one Redis. */
  keyPrefix: string;
  /** A command not answered within this fails with StoreUnavailableError (a hung Redis is a down Redis); also the connect timeout. */
  commandTimeoutMs: number;
}

/** What the connection reports about its state; pino's logger fits. Only changes are reported, not every retry. */
export interface RedisLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface OpenRedisOptions {
  /** Shown as the connection's CLIENT SETNAME (`quire:<name>`) and in log lines: which part of Quire holds it. */
  name: string;
  log?: RedisLog;
}

export type RedisClient = Redis;

/** Redis cannot be reached, refused the command for a passing reason (loading, read-only replica) or did not answer in time. */
export class StoreUnavailableError extends QuireError {
  constructor(cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('STORE_UNAVAILABLE', `The cluster store (Redis) is not available: ${reason}`, { cause, headers: { 'Retry-After': '1' } });
  }
}

/** Reconnect delay: 100 ms doubling to 2 s, with jitter so that the nodes of a cluster do not reconnect in step. */
export function reconnectDelayMs(attempt: number): number {
  const ceiling = Math.min(100 * 2 ** Math.max(0, attempt - 1), 2000);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/**
 * A client for ordinary commands, with the key prefix. Opens at once in the background; `waitForRedis`
 * waits for it. Close it with `closeRedis`.
 */
export function openRedis(settings: RedisSettings, options: OpenRedisOptions): RedisClient {
  const client = new Redis(settings.url, {
    keyPrefix: settings.keyPrefix,
    connectionName: `quire:${options.name}`,
    connectTimeout: settings.commandTimeoutMs,
    commandTimeout: settings.commandTimeoutMs,
    retryStrategy: reconnectDelayMs,
    // Fail fast while disconnected (no offline queue), and fail what was in flight when the connection
    // dropped instead of sending it again later: a write resent after the client got 503 would apply
    // behind its back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  });
  watchState(client, options);
  return client;
}

/**
 * A connection for blocking commands and subscriptions (BullMQ workers, pub/sub): no key prefix (BullMQ
 * refuses one and takes its own `prefix`; channel names are never prefixed), no command timeout (a
 * blocking read waits on purpose) and commands wait for the connection instead of failing, as BullMQ
 * expects (`maxRetriesPerRequest: null`).
 */
export function duplicateForBlocking(client: RedisClient, options: OpenRedisOptions): RedisClient {
  const blocking = client.duplicate({
    keyPrefix: '',
    connectionName: `quire:${options.name}`,
    commandTimeout: undefined,
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    autoResendUnfulfilledCommands: true,
  });
  watchState(blocking, options);
  return blocking;
}

/** Resolves once the client is ready; StoreUnavailableError when it is not within `timeoutMs` (it keeps trying in the background). */
export async function waitForRedis(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new StoreUnavailableError(new Error(`no connection within ${timeoutMs} ms (${client.status})`)));
    }, timeoutMs);
    client.once('ready', onReady);
  });
}

/** Closes the connection: QUIT (what was sent is answered first), or a plain disconnect when Redis is gone. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}

/** Replies Redis gives while it cannot serve for a passing reason: starting (loading the AOF), a replica, a failover, memory. */
const PASSING_REPLY = /^(LOADING|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|BUSY|OOM)\b/;

/** Whether an error from a command means "Redis is not available" rather than a fault of the command itself. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  // ioredis's ReplyError: Redis answered. Only its passing refusals count; WRONGTYPE or a script error is a bug.
  if (error.name === 'ReplyError') return PASSING_REPLY.test(error.message);
  // Everything else ioredis raises is about the connection: not writeable, closed, timed out, retries used up.
  return true;
}

/**
 * Runs Redis commands and turns a connection failure into StoreUnavailableError (503); any other
 * error passes unchanged. Every store method that talks to Redis goes through this.
 */
export async function redisCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StoreUnavailableError || !isUnavailable(error)) throw error;
    throw new StoreUnavailableError(error);
  }
}

/** Logs when the connection is lost and when it is back (not every retry), and keeps ioredis's 'error' events from being unhandled. */
function watchState(client: RedisClient, options: OpenRedisOptions): void {
  let lost = false;
  let lastError = '';
  client.on('error', (error: Error) => {
    lastError = error.message;
  });
  // 'reconnecting' (not 'close'): a close we asked for (closeRedis) schedules no reconnect and is no loss.
  client.on('reconnecting', () => {
    if (lost) return;
    lost = true;
    options.log?.warn({ redis: options.name, error: lastError || undefined }, 'Redis not reachable; reconnecting');
  });
  client.on('ready', () => {
    if (!lost) return;
    lost = false;
    options.log?.info({ redis: options.name }, 'Redis connection restored');
  });
}

/** Runs a MULTI (connection failures as StoreUnavailableError) and returns its replies; a command's own error is thrown. */
export async function execMulti(multi: ReturnType<RedisClient['multi']>): Promise<unknown[]> {
  const replies = await redisCall(() => multi.exec());
  if (replies === null) throw new Error('Redis discarded the transaction');
  return replies.map(([error, value]) => {
    // A connection lost as the transaction was sent comes back per command ("Stream isn't writeable"),
    // not as a rejection: it is a 503 like any other, not a fault of the command (a 500).
    if (error) throw isUnavailable(error) ? new StoreUnavailableError(error) : error;
    return value;
  });
}
