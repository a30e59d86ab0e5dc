import type { LoginSecurity } from '../config/load.js';
import { MAX_KNOWN_ADDRESSES, nameKey, type LoginAttempts, type LoginRefusal } from './login-attempts.js';
import { redisCall, type RedisClient } from './redis/connection.js';

/** How long a name remembers an address it logged in from, renewed with every login from it. */
const KNOWN_ADDRESS_TTL_MS = 90 * 24 * 3_600_000;

/**
 * The login throttle's counts for the whole cluster (the rules are LoginThrottle's, auth/login-throttle.ts,
 * written here as scripts so that two nodes counting one address at once both count):
 * `login-fail:addr:<address>` and `login-fail:name:<name>` hashes {failures, windowStart, lockouts, lockedUntil}
 * that expire once they are stale (the lock over and `maxLockout` passed, the window over) — Redis's expiry
 * is the bound the embedded table's size limit is; `login-known:<name>` the addresses the name logged in
 * from (the newest MAX_KNOWN_ADDRESSES, for KNOWN_ADDRESS_TTL_MS). Times are Redis's clock (TIME), so
 * the nodes' clocks need not agree.
 */
export class RedisLoginAttempts implements LoginAttempts {
  constructor(
    private readonly redis: RedisClient,
    private readonly settings: LoginSecurity,
  ) {}

  async refusal(name: string, address: string): Promise<LoginRefusal | undefined> {
    const [reason, retryAfterMs] = (await redisCall(() => this.redis.eval(REFUSAL, 3, ...keys(name, address), address))) as [number, number];
    if (reason === 0) return undefined;
    return { reason: reason === 1 ? 'address' : 'user', retryAfterMs };
  }

  async failed(name: string, address: string): Promise<void> {
    const s = this.settings;
    const rules = [s.maxFailures, s.windowMs, s.lockoutMs, s.maxLockoutMs, s.userMaxFailures, s.windowMs, s.lockoutMs, s.userMaxLockoutMs].map(String);
    await redisCall(() => this.redis.eval(FAIL, 2, ...keys(name, address).slice(0, 2), address, ...rules));
  }

  async succeeded(name: string, address: string): Promise<void> {
    await redisCall(() => this.redis.eval(SUCCEEDED, 3, ...keys(name, address), address, String(MAX_KNOWN_ADDRESSES), String(KNOWN_ADDRESS_TTL_MS)));
  }
}

/** The address's record (a placeholder when there is no address: the scripts leave it alone), the name's, the name's known addresses. */
function keys(name: string, address: string): [string, string, string] {
  const key = nameKey(name);
  return [`login-fail:addr:${address === '' ? '-' : address}`, `login-fail:name:${key}`, `login-known:${key}`];
}

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function int(x) return string.format('%.0f', x) end
`;

/** KEYS: address record, name record, known addresses; ARGV[1] address ('' = unknown). {0} = go on, {1, ms} address locked, {2, ms} name throttled. */
const REFUSAL = `${NOW}
if ARGV[1] ~= '' then
  local locked = tonumber(redis.call('HGET', KEYS[1], 'lockedUntil') or '0')
  if locked > now then return {1, locked - now} end
end
local locked = tonumber(redis.call('HGET', KEYS[2], 'lockedUntil') or '0')
if locked > now and not (ARGV[1] ~= '' and redis.call('ZSCORE', KEYS[3], ARGV[1])) then return {2, locked - now} end
return {0, 0}`;

/** KEYS: address record, name record; ARGV[1] address ('' = unknown), then maxFailures, windowMs, lockoutMs, maxLockoutMs of the address rule and of the name rule. */
const FAIL = `${NOW}
local function fail(key, o)
  local maxFailures, windowMs, lockoutMs, maxLockoutMs = tonumber(ARGV[o]), tonumber(ARGV[o + 1]), tonumber(ARGV[o + 2]), tonumber(ARGV[o + 3])
  if maxFailures == 0 then return end
  local r = redis.call('HMGET', key, 'failures', 'windowStart', 'lockouts', 'lockedUntil')
  local failures, windowStart, lockouts, lockedUntil = tonumber(r[1]), tonumber(r[2]), tonumber(r[3]), tonumber(r[4])
  if not failures or (now >= lockedUntil + maxLockoutMs and now - windowStart >= windowMs) then
    failures, windowStart, lockouts, lockedUntil = 0, now, 0, 0
  end
  if now - windowStart >= windowMs then
    failures, windowStart = 0, now
  end
  failures = failures + 1
  if failures >= maxFailures then
    lockouts = lockouts + 1
    lockedUntil = now + math.min(lockoutMs * 2 ^ math.min(lockouts - 1, 30), maxLockoutMs)
    failures, windowStart = 0, now
  end
  redis.call('HSET', key, 'failures', int(failures), 'windowStart', int(windowStart), 'lockouts', int(lockouts), 'lockedUntil', int(lockedUntil))
  redis.call('PEXPIREAT', key, int(math.max(lockedUntil + maxLockoutMs, windowStart + windowMs)))
end
if ARGV[1] ~= '' then fail(KEYS[1], 2) end
fail(KEYS[2], 6)
return 1`;

/** KEYS: address record, name record, known addresses; ARGV[1] address ('' = unknown), ARGV[2] addresses kept, ARGV[3] their ttl ms. */
const SUCCEEDED = `${NOW}
redis.call('DEL', KEYS[2])
if ARGV[1] == '' then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'failures', '0') end
redis.call('ZADD', KEYS[3], int(now), ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[2]) + 1))
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1`;
