import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/auth/client-address.js';
import { HashSlots } from '../../src/auth/hash-slots.js';
import { LoginGuard } from '../../src/auth/login-guard.js';
import { LoginThrottle } from '../../src/auth/login-throttle.js';
import { QuireError } from '../../src/core/errors.js';
import { LOGIN_SETTINGS } from '../helpers/login-settings.js';

const SETTINGS = LOGIN_SETTINGS;

/** A clock the test moves by hand: no timing in these tests. */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

describe('LoginThrottle, per address', () => {
  it('locks an address after maxFailures within the window, until the lock ends', () => {
    const time = clock();
    const throttle = new LoginThrottle(SETTINGS, time.now);
    throttle.failed('alice', '10.0.0.1');
    throttle.failed('bob', '10.0.0.1');
    expect(throttle.refusal('carol', '10.0.0.1')).toBeUndefined();
    throttle.failed('carol', '10.0.0.1');
    expect(throttle.refusal('carol', '10.0.0.1')).toEqual({ reason: 'address', retryAfterMs: 10_000 });
    expect(throttle.refusal('alice', '10.0.0.2')).toBeUndefined();
    time.advance(9_999);
    expect(throttle.refusal('dave', '10.0.0.1')?.retryAfterMs).toBe(1);
    time.advance(1);
    expect(throttle.refusal('dave', '10.0.0.1')).toBeUndefined();
  });

  it('counts failures within the window only', () => {
    const time = clock();
    const throttle = new LoginThrottle(SETTINGS, time.now);
    throttle.failed('a', '10.0.0.1');
    throttle.failed('b', '10.0.0.1');
    time.advance(60_000);
    throttle.failed('c', '10.0.0.1');
    expect(throttle.refusal('d', '10.0.0.1')).toBeUndefined();
  });

  it('doubles every further lock up to maxLockout, and forgets the history after a quiet maxLockout', () => {
    const time = clock();
    const throttle = new LoginThrottle(SETTINGS, time.now);
    const lockOnce = () => {
      for (let i = 0; i < 3; i++) throttle.failed(`n${i}`, '10.0.0.1');
      const refusal = throttle.refusal('x', '10.0.0.1')!;
      time.advance(refusal.retryAfterMs);
      return refusal.retryAfterMs;
    };
    expect([lockOnce(), lockOnce(), lockOnce(), lockOnce()]).toEqual([10_000, 20_000, 40_000, 40_000]);
    time.advance(40_000 + 60_000);
    expect(lockOnce()).toBe(10_000);
  });

  it('forgives the current failures on success but keeps escalating', () => {
    const time = clock();
    const throttle = new LoginThrottle(SETTINGS, time.now);
    throttle.failed('alice', '10.0.0.1');
    throttle.failed('alice', '10.0.0.1');
    throttle.succeeded('alice', '10.0.0.1');
    throttle.failed('alice', '10.0.0.1');
    throttle.failed('alice', '10.0.0.1');
    expect(throttle.refusal('alice', '10.0.0.1')).toBeUndefined();
    throttle.failed('alice', '10.0.0.1');
    expect(throttle.refusal('alice', '10.0.0.1')?.retryAfterMs).toBe(10_000);
    time.advance(10_000);
    throttle.succeeded('alice', '10.0.0.1');
    for (let i = 0; i < 3; i++) throttle.failed('alice', '10.0.0.1');
    expect(throttle.refusal('alice', '10.0.0.1')?.retryAfterMs).toBe(20_000);
  });

  it('maxFailures 0 turns the address lock off', () => {
    const throttle = new LoginThrottle({ ...SETTINGS, maxFailures: 0, userMaxFailures: 0 }, clock().now);
    for (let i = 0; i < 100; i++) throttle.failed('alice', '10.0.0.1');
    expect(throttle.refusal('alice', '10.0.0.1')).toBeUndefined();
    expect(throttle.tracked).toEqual({ addresses: 0, names: 0 });
  });
});

describe('LoginThrottle, per user name', () => {
  it('throttles a name failed from many addresses, except from addresses it logged in from', () => {
    const time = clock();
    const throttle = new LoginThrottle(SETTINGS, time.now);
    throttle.succeeded('alice', '192.0.2.7');
    for (let i = 1; i <= 5; i++) throttle.failed('alice', `10.0.0.${i}`);
    expect(throttle.refusal('alice', '10.0.0.99')).toEqual({ reason: 'user', retryAfterMs: 10_000 });
    expect(throttle.refusal('alice', '192.0.2.7')).toBeUndefined();
    expect(throttle.refusal('bob', '10.0.0.99')).toBeUndefined();
  });

  it('never throttles a name longer than userMaxLockout, however often it is locked', () => {
    const time = clock();
    const throttle = new LoginThrottle(SETTINGS, time.now);
    const locks: number[] = [];
    for (let round = 0; round < 6; round++) {
      for (let i = 1; i <= 5; i++) throttle.failed('alice', `10.${round}.0.${i}`);
      const refusal = throttle.refusal('alice', '10.200.0.1')!;
      expect(refusal.reason).toBe('user');
      locks.push(refusal.retryAfterMs);
      time.advance(refusal.retryAfterMs);
    }
    expect(locks).toEqual([10_000, 20_000, 20_000, 20_000, 20_000, 20_000]);
  });

  it('a successful login clears the name', () => {
    const throttle = new LoginThrottle(SETTINGS, clock().now);
    for (let i = 1; i <= 5; i++) throttle.failed('alice', `10.0.0.${i}`);
    throttle.succeeded('alice', '192.0.2.7');
    expect(throttle.refusal('alice', '10.0.0.50')).toBeUndefined();
  });

  it('keeps very long names as a bounded key', () => {
    const throttle = new LoginThrottle(SETTINGS, clock().now);
    const long = 'x'.repeat(10_000);
    for (let i = 1; i <= 5; i++) throttle.failed(long, `10.0.0.${i}`);
    expect(throttle.refusal(long, '10.0.0.50')?.reason).toBe('user');
    expect(throttle.refusal(`${long}y`, '10.0.0.50')).toBeUndefined();
  });
});

describe('HashSlots', () => {
  it('runs at most max at once, queues at most maxWaiting, hands a freed slot to the first waiter', async () => {
    const slots = new HashSlots(1, 1);
    const first = await slots.acquire()!;
    let secondGranted = false;
    const second = slots.acquire()!.then((release) => {
      secondGranted = true;
      return release;
    });
    expect(slots.acquire()).toBeUndefined();
    expect({ active: slots.active, queued: slots.queued }).toEqual({ active: 1, queued: 1 });
    await Promise.resolve();
    expect(secondGranted).toBe(false);
    first();
    first(); // twice is harmless
    const release = await second;
    expect({ active: slots.active, queued: slots.queued }).toEqual({ active: 1, queued: 0 });
    release();
    expect(slots.active).toBe(0);
  });
});

describe('LoginGuard', () => {
  it('refuses a throttled attempt with LOGIN_THROTTLED and Retry-After, without running the check', async () => {
    const time = clock();
    const guard = new LoginGuard(SETTINGS, time.now);
    let checks = 0;
    const wrong = async () => {
      checks++;
      return undefined;
    };
    for (let i = 0; i < 3; i++) expect(await guard.check('alice', '10.0.0.1', wrong)).toBeUndefined();
    const error = await guard.check('alice', '10.0.0.1', async () => ({ name: 'alice' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuireError);
    expect((error as QuireError).definition.errorCode).toBe(-150);
    expect((error as QuireError).headers).toEqual({ 'retry-after': '10' });
    expect(checks).toBe(3);
    expect(guard.counters).toEqual({ succeeded: 0, failed: 3, throttled: 1, busy: 0, passwordChecks: 3 });
    time.advance(10_000);
    expect(await guard.check('alice', '10.0.0.1', async () => ({ name: 'alice' }))).toEqual({ name: 'alice' });
  });

  it('refuses with Retry-After when every hashing slot and waiting place is taken', async () => {
    const guard = new LoginGuard(SETTINGS, clock().now);
    let finish: () => void = () => undefined;
    const slow = () => new Promise<undefined>((resolve) => (finish = () => resolve(undefined)));
    const running = guard.check('a', '10.0.0.1', slow);
    const waiting = guard.check('b', '10.0.0.2', async () => undefined);
    const refused = await guard.check('c', '10.0.0.3', async () => undefined).catch((e: unknown) => e);
    expect((refused as QuireError).definition.errorCode).toBe(-150);
    expect((refused as QuireError).headers['retry-after']).toBe('1');
    expect(guard.counters.busy).toBe(1);
    await Promise.resolve();
    finish();
    await Promise.all([running, waiting]);
    expect(guard.hashing).toEqual({ running: 0, waiting: 0 });
  });
});

describe('addressKey', () => {
  it('keeps IPv4, unwraps IPv4-mapped IPv6, groups other IPv6 by /64', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:cb00:7109')).toBe('203.0.113.9');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey(undefined)).toBe('');
  });
});
