import type { LoginSecurity } from '../config/load.js';
import { QuireError } from '../core/errors.js';
import { addressKey } from './client-address.js';
import { HashSlots } from './hash-slots.js';
import type { LoginAttempts, LoginRefusal } from '../storage/login-attempts.js';
import { LoginThrottle } from './login-throttle.js';

/** Running totals of password checks, for the metrics. */
export interface LoginCounters {
  /** Attempts whose password was checked and accepted. */
  succeeded: number;
  /** Attempts whose password was checked and refused (wrong password or unknown name). */
  failed: number;
  /** Attempts refused by the throttle before any hashing. */
  throttled: number;
  /** Attempts refused because every hashing slot was taken and the waiting line was full. */
  busy: number;
  /** Password hashes computed (succeeded + failed + checks that threw). */
  passwordChecks: number;
}

/**
 * The one way a password is checked for a caller: the throttle first (a refused attempt costs no
 * hashing), then a hashing slot, then the throttle again (attempts that waited for the slot while
 * their address got locked are refused too), then the check; its outcome feeds the throttle.
 */
export class LoginGuard {
  readonly counters: LoginCounters = { succeeded: 0, failed: 0, throttled: 0, busy: 0, passwordChecks: 0 };
  private readonly slots: HashSlots;

  /** `attempts`: the throttle's counts, in this process by default; the cluster's in Redis (stores-wiring-cluster.ts). */
  constructor(
    settings: LoginSecurity,
    now: () => number = Date.now,
    private readonly throttle: LoginAttempts = new LoginThrottle(settings, now),
  ) {
    this.slots = new HashSlots(settings.maxConcurrentHashes, settings.maxWaitingHashes);
  }

  /** Hashes running and waiting now. */
  get hashing(): { running: number; waiting: number } {
    return { running: this.slots.active, waiting: this.slots.queued };
  }

  /**
   * Runs `verify` (the password check of `name`) for a caller at `ip` (Fastify's request.ip; '' when
   * unknown) unless the throttle or the hashing bound refuses it with LOGIN_THROTTLED and Retry-After.
   * `verify` resolves to the user when the password is right, undefined otherwise.
   */
  async check<T>(name: string, ip: string, verify: () => Promise<T | undefined>): Promise<T | undefined> {
    const address = addressKey(ip);
    const early = this.refuseIfThrottled(name, address);
    if (early) await early;
    const slot = this.slots.acquire();
    if (!slot) {
      this.counters.busy++;
      throw new QuireError('LOGIN_THROTTLED', 'Too many logins are being checked at once; retry in a second.', { headers: { 'retry-after': '1' } });
    }
    const release = await slot;
    try {
      await this.refuseIfThrottled(name, address);
      this.counters.passwordChecks++;
      const user = await verify();
      if (user) {
        this.counters.succeeded++;
        await this.throttle.succeeded(name, address);
      } else {
        this.counters.failed++;
        await this.throttle.failed(name, address);
      }
      return user;
    } finally {
      release();
    }
  }

  /** Synchronous with the embedded throttle (no extra turn before the hashing slot is taken), a promise with the cluster's. */
  private refuseIfThrottled(name: string, address: string): void | Promise<void> {
    const refusal = this.throttle.refusal(name, address);
    if (refusal instanceof Promise) return refusal.then((answer) => this.refuse(answer));
    this.refuse(refusal);
  }

  private refuse(refusal: LoginRefusal | undefined): void {
    if (!refusal) return;
    this.counters.throttled++;
    throw throttled(refusal);
  }
}

function throttled(refusal: LoginRefusal): QuireError {
  const seconds = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
  const message =
    refusal.reason === 'address'
      ? `Too many failed logins from this address: logins from it are refused for ${seconds} more seconds.`
      : `Too many failed logins for this user name: it is refused from addresses it has not logged in from for ${seconds} more seconds.`;
  return new QuireError('LOGIN_THROTTLED', message, { headers: { 'retry-after': String(seconds) } });
}
