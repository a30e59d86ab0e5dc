import type { LoginSecurity } from '../config/load.js';
import { MAX_KNOWN_ADDRESSES, nameKey, type LoginAttempts, type LoginRefusal } from '../storage/login-attempts.js';

export type { LoginRefusal } from '../storage/login-attempts.js';

/** Entries each table keeps at most: a flood of new names or addresses costs bounded memory. */
const MAX_TRACKED = 50_000;

interface FailureRecord {
  failures: number;
  windowStart: number;
  /** Locks so far: each doubles the next one, up to the maximum. */
  lockouts: number;
  lockedUntil: number;
}

interface FailureRule {
  maxFailures: number;
  windowMs: number;
  lockoutMs: number;
  maxLockoutMs: number;
}

/**
 * Failed logins per key (an address or a user name): `maxFailures` within `windowMs` lock the key for
 * `lockoutMs`, doubled with every further lock up to `maxLockoutMs`. A key forgets its locks once it
 * stayed quiet for `maxLockoutMs` after the last one ended. Insertion order is update order, so the
 * oldest entry is the first: the table evicts from the front, staying within MAX_TRACKED.
 */
class FailureTable {
  private readonly records = new Map<string, FailureRecord>();

  constructor(private readonly rule: FailureRule) {}

  get size(): number {
    return this.records.size;
  }

  lockedFor(key: string, now: number): number {
    const record = this.records.get(key);
    return record && record.lockedUntil > now ? record.lockedUntil - now : 0;
  }

  fail(key: string, now: number): void {
    const { maxFailures, windowMs, lockoutMs, maxLockoutMs } = this.rule;
    if (maxFailures === 0) return;
    let record = this.records.get(key);
    this.records.delete(key);
    if (!record || this.stale(record, now)) record = { failures: 0, windowStart: now, lockouts: 0, lockedUntil: 0 };
    if (now - record.windowStart >= windowMs) {
      record.failures = 0;
      record.windowStart = now;
    }
    record.failures++;
    if (record.failures >= maxFailures) {
      record.lockouts++;
      record.lockedUntil = now + Math.min(lockoutMs * 2 ** Math.min(record.lockouts - 1, 30), maxLockoutMs);
      record.failures = 0;
      record.windowStart = now;
    }
    this.records.set(key, record);
    this.prune(now);
  }

  /** The failures of the current window are forgiven; locks already earned keep escalating the next one. */
  clearFailures(key: string): void {
    const record = this.records.get(key);
    if (record) record.failures = 0;
  }

  forget(key: string): void {
    this.records.delete(key);
  }

  private stale(record: FailureRecord, now: number): boolean {
    return now >= record.lockedUntil + this.rule.maxLockoutMs && now - record.windowStart >= this.rule.windowMs;
  }

  private prune(now: number): void {
    // A few of the oldest entries per call: stale ones go without a timer, and the bound holds.
    let checked = 0;
    for (const [key, record] of this.records) {
      if (this.records.size > MAX_TRACKED || (checked++ < 4 && this.stale(record, now))) this.records.delete(key);
      else break;
    }
  }
}

/**
 * Login throttling, consulted before any password is hashed (a refused attempt costs nothing).
 *
 * - Per client address (the hard lock): `maxFailures` failed logins within `window` lock the address
 *   for `lockout`, doubled per further lock up to `maxLockout`.
 * - Per user name (the soft throttle): `userMaxFailures` failures for one name within `window`, from
 *   any addresses, throttle that name with the same doubling but never longer than `userMaxLockout`,
 *   and only for addresses the user has not logged in from successfully. Anyone can make a name fail,
 *   so a hard per-name lock would let an attacker lock a user out for good; this way the user's own
 *   addresses keep working and guessing one password from many addresses is still slowed.
 * - A successful login clears the name's record, forgives the address's current failures (not its
 *   lock history) and remembers the address for the name.
 * The state is in memory: a restart forgets it. A cluster keeps the same counts in Redis instead
 * (storage/redis-login-attempts.ts, the same rules), so that the nodes count an address's failures together.
 */
export class LoginThrottle implements LoginAttempts {
  private readonly addresses: FailureTable;
  private readonly names: FailureTable;
  /** Name key → addresses it logged in from (last success, epoch ms). */
  private readonly known = new Map<string, Map<string, number>>();

  constructor(
    settings: LoginSecurity,
    private readonly now: () => number = Date.now,
  ) {
    const { windowMs, lockoutMs } = settings;
    this.addresses = new FailureTable({ maxFailures: settings.maxFailures, windowMs, lockoutMs, maxLockoutMs: settings.maxLockoutMs });
    this.names = new FailureTable({ maxFailures: settings.userMaxFailures, windowMs, lockoutMs, maxLockoutMs: settings.userMaxLockoutMs });
  }

  /** Entries held (for tests and diagnostics). */
  get tracked(): { addresses: number; names: number } {
    return { addresses: this.addresses.size, names: this.names.size };
  }

  /** Why a login of `name` from `address` (an addressKey; '' = unknown) must be refused now, if it must. */
  refusal(name: string, address: string): LoginRefusal | undefined {
    const now = this.now();
    const addressLock = address === '' ? 0 : this.addresses.lockedFor(address, now);
    if (addressLock > 0) return { reason: 'address', retryAfterMs: addressLock };
    const key = nameKey(name);
    const nameLock = this.names.lockedFor(key, now);
    if (nameLock > 0 && !(address !== '' && this.known.get(key)?.has(address))) return { reason: 'user', retryAfterMs: nameLock };
    return undefined;
  }

  failed(name: string, address: string): void {
    const now = this.now();
    if (address !== '') this.addresses.fail(address, now);
    this.names.fail(nameKey(name), now);
  }

  succeeded(name: string, address: string): void {
    const key = nameKey(name);
    this.names.forget(key);
    if (address === '') return;
    this.addresses.clearFailures(address);
    const addresses = this.known.get(key) ?? new Map<string, number>();
    this.known.delete(key);
    addresses.delete(address);
    addresses.set(address, this.now());
    if (addresses.size > MAX_KNOWN_ADDRESSES) addresses.delete(addresses.keys().next().value!);
    this.known.set(key, addresses);
    if (this.known.size > MAX_TRACKED) this.known.delete(this.known.keys().next().value!);
  }
}
