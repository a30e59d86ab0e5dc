import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginSecurity } from '../../../src/config/load.js';
import { RedisLoginAttempts } from '../../../src/storage/redis-login-attempts.js';
import { redisClients, startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { LOGIN_SETTINGS } from '../../helpers/login-settings.js';

let server: RedisServer;
const clients = redisClients(() => server);
const PREFIX = 'login-test:';

const SETTINGS = LOGIN_SETTINGS;

beforeAll(async () => {
  server = await startRedisServer({ appendonly: false });
});
afterAll(async () => {
  await clients.closeAll();
  await server.stop();
});

function cli(...args: string[]): string {
  return execFileSync('redis-cli', ['-p', String(server.port), '--raw', ...args], { encoding: 'utf8' }).trim();
}

/** Two nodes' views of the cluster's counts, each on its own connection. */
async function twoNodes(settings: LoginSecurity = SETTINGS): Promise<[RedisLoginAttempts, RedisLoginAttempts]> {
  return [new RedisLoginAttempts(await clients.open(PREFIX, 'node-a'), settings), new RedisLoginAttempts(await clients.open(PREFIX, 'node-b'), settings)];
}

let next = 0;
/** A fresh address per test: the counts are shared by the whole file's Redis. */
const address = () => `10.9.0.${++next}`;

describe('RedisLoginAttempts', () => {
  it('locks an address after maxFailures failures counted on two nodes together, for lockout', async () => {
    const [a, b] = await twoNodes();
    const from = address();
    await a.failed('alice', from);
    await b.failed('alice', from);
    expect(await a.refusal('alice', from)).toBeUndefined();
    await a.failed('alice', from);
    for (const node of [a, b]) {
      const refusal = await node.refusal('alice', from);
      expect(refusal?.reason).toBe('address');
      expect(refusal!.retryAfterMs).toBeGreaterThan(0);
      expect(refusal!.retryAfterMs).toBeLessThanOrEqual(SETTINGS.lockoutMs);
    }
    // Any name from that address; another address is free.
    expect((await b.refusal('bob', from))?.reason).toBe('address');
    expect(await b.refusal('alice', address())).toBeUndefined();
    // The record expires once stale: the lock over and maxLockout passed, and the window (restarted by the lock) over.
    const ttl = Number(cli('PTTL', `${PREFIX}login-fail:addr:${from}`));
    expect(ttl).toBeGreaterThan(SETTINGS.maxLockoutMs);
    expect(ttl).toBeLessThanOrEqual(Math.max(SETTINGS.lockoutMs + SETTINGS.maxLockoutMs, SETTINGS.windowMs));
  });

  it('counts concurrent failures of both nodes without losing one (each maxFailures locks once more, the lock doubles)', async () => {
    const [a, b] = await twoNodes();
    const from = address();
    await Promise.all(Array.from({ length: 4 * SETTINGS.maxFailures }, (_, i) => (i % 2 === 0 ? a : b).failed(`user-${i}`, from)));
    expect(cli('HGET', `${PREFIX}login-fail:addr:${from}`, 'lockouts')).toBe('4');
    // The fourth lock: lockout × 2³, capped at maxLockout.
    expect((await a.refusal('x', from))!.retryAfterMs).toBeGreaterThan(SETTINGS.lockoutMs * 2);
    expect((await a.refusal('x', from))!.retryAfterMs).toBeLessThanOrEqual(SETTINGS.maxLockoutMs);
  });

  it('forgives the current failures of an address on a success, and throttles a name only for addresses it never logged in from', async () => {
    const [a, b] = await twoNodes({ ...SETTINGS, maxFailures: 3, userMaxFailures: 2 });
    const home = address();
    await a.failed('carol', home);
    await a.failed('carol', home);
    await b.succeeded('carol', home);
    await a.failed('dave', home);
    await a.failed('dave', home);
    // Two failures since the success: below maxFailures.
    expect(await b.refusal('erin', home)).toBeUndefined();
    // carol's name fails from two other addresses: throttled elsewhere, not from home.
    await a.failed('carol', address());
    await b.failed('carol', address());
    const stranger = address();
    expect((await a.refusal('carol', stranger))?.reason).toBe('user');
    expect((await a.refusal('carol', stranger))!.retryAfterMs).toBeLessThanOrEqual(20_000);
    expect(await b.refusal('carol', home)).toBeUndefined();
    // A success clears the name's record.
    await a.succeeded('carol', home);
    expect(await b.refusal('carol', stranger)).toBeUndefined();
  });

  it('locks nothing with maxFailures and userMaxFailures 0, and keeps no record', async () => {
    const [a] = await twoNodes({ ...SETTINGS, maxFailures: 0, userMaxFailures: 0 });
    const from = address();
    for (let i = 0; i < 10; i++) await a.failed('frank', from);
    expect(await a.refusal('frank', from)).toBeUndefined();
    expect(cli('EXISTS', `${PREFIX}login-fail:addr:${from}`)).toBe('0');
    expect(cli('EXISTS', `${PREFIX}login-fail:name:frank`)).toBe('0');
  });

  it('counts a name of any length under a bounded key, and an unknown address ("") only by name', async () => {
    const [a, b] = await twoNodes({ ...SETTINGS, userMaxFailures: 2 });
    const long = 'n'.repeat(10_000);
    await a.failed(long, '');
    await b.failed(long, '');
    expect((await a.refusal(long, ''))?.reason).toBe('user');
    expect(cli('EXISTS', `${PREFIX}login-fail:addr:-`)).toBe('0');
    const keys = cli('KEYS', `${PREFIX}login-fail:name:*`).split('\n');
    expect(keys.every((key) => key.length < 200)).toBe(true);
  });
});
