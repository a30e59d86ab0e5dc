import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '../../../src/core/errors.js';
import { closeRedis, duplicateForBlocking, isUnavailable, openRedis, redisCall, StoreUnavailableError, waitForRedis, type RedisClient } from '../../../src/storage/redis/connection.js';
import { portOutsideEphemeralRange } from '../../helpers/listening.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

/** What redis-cli (not the client under test) reads at a raw, unprefixed key. */
function cliGet(server: RedisServer, key: string): string {
  return execFileSync('redis-cli', ['-p', String(server.port), '--raw', 'GET', key], { encoding: 'utf8' }).trim();
}

describe('openRedis on a real redis-server', () => {
  let server: RedisServer;
  let client: RedisClient;
  const log: string[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
    client = openRedis(
      { url: server.url, keyPrefix: 'quire-test:', commandTimeoutMs: 2000 },
      { name: 'test', log: { info: (_, message) => log.push(message), warn: (_, message) => log.push(message) } },
    );
    await waitForRedis(client, 10_000);
  });
  afterAll(async () => {
    await closeRedis(client);
    await server.stop();
  });

  it('connects and puts the key prefix in front of every key', async () => {
    await redisCall(() => client.set('greeting', 'hello'));
    expect(await redisCall(() => client.get('greeting'))).toBe('hello');
    expect(cliGet(server, 'quire-test:greeting')).toBe('hello');
    expect(cliGet(server, 'greeting')).toBe('');
  });

  it('fails fast with the typed 503 error while Redis is down, and reconnects after a restart', async () => {
    await server.kill();
    const failure = await redisCall(() => client.get('greeting')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect((failure as StoreUnavailableError).errorCode).toBe(Errors.STORE_UNAVAILABLE.errorCode);
    expect((failure as StoreUnavailableError).status).toBe(503);
    expect((failure as StoreUnavailableError).headers['Retry-After']).toBe('1');

    await server.restart();
    await waitForRedis(client, 20_000);
    // AOF (fsync every second) may or may not hold the last write before the SIGKILL; a new write must work.
    await redisCall(() => client.set('after-restart', 'yes'));
    expect(cliGet(server, 'quire-test:after-restart')).toBe('yes');
    expect(log).toContain('Redis not reachable; reconnecting');
    expect(log).toContain('Redis connection restored');
  });

  it('keeps the values the AOF holds over a clean restart', async () => {
    await redisCall(() => client.set('durable', 'kept'));
    await server.restart();
    await waitForRedis(client, 20_000);
    expect(await redisCall(() => client.get('durable'))).toBe('kept');
  });

  it('passes an error of the command itself through unchanged', async () => {
    await redisCall(() => client.set('a-string', 'x'));
    const failure = await redisCall(() => client.lpush('a-string', 'y')).catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(StoreUnavailableError);
    expect(isUnavailable(failure)).toBe(false);
    expect(String(failure)).toMatch(/WRONGTYPE/);
  });

  it('gives blocking work a connection without the prefix that waits for a value', async () => {
    const blocking = duplicateForBlocking(client, { name: 'test-blocking' });
    try {
      const popped = blocking.blpop('raw-list', 10);
      execFileSync('redis-cli', ['-p', String(server.port), 'RPUSH', 'raw-list', 'item']);
      expect(await popped).toEqual(['raw-list', 'item']);
    } finally {
      await closeRedis(blocking);
    }
  });
});

describe('openRedis without a Redis', () => {
  it('starts without throwing, answers the typed error, and keeps no command waiting', async () => {
    const port = await portOutsideEphemeralRange();
    const client = openRedis({ url: `redis://127.0.0.1:${port}`, keyPrefix: 'q:', commandTimeoutMs: 500 }, { name: 'nobody' });
    try {
      await expect(waitForRedis(client, 300)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(redisCall(() => client.get('x'))).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await closeRedis(client);
    }
  });
});
