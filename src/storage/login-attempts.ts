import { createHash } from 'node:crypto';

/**
 * The counts behind the login throttle (auth/login-throttle.ts has the rules): failed logins per client
 * address and per user name, and the addresses a name logged in from. The embedded LoginThrottle keeps
 * them in this process (synchronous answers); in a cluster RedisLoginAttempts keeps them in Redis, so an
 * address gets `maxFailures` attempts from the whole cluster, not from each node.
 */

/** Why a login is refused before its password is checked, and for how long. */
export interface LoginRefusal {
  reason: 'address' | 'user';
  retryAfterMs: number;
}

export interface LoginAttempts {
  /** Why a login of `name` from `address` (an addressKey; '' = unknown) must be refused now, if it must. */
  refusal(name: string, address: string): LoginRefusal | undefined | Promise<LoginRefusal | undefined>;
  failed(name: string, address: string): void | Promise<void>;
  succeeded(name: string, address: string): void | Promise<void>;
}

/** Addresses remembered per user name as "this user logged in from here". */
export const MAX_KNOWN_ADDRESSES = 16;

/** Longer user names are kept as their hash: the key must not cost what the header may carry. */
const MAX_NAME_KEY = 128;

/** The key a user name is counted under. */
export function nameKey(name: string): string {
  return name.length <= MAX_NAME_KEY ? name : `sha256:${createHash('sha256').update(name).digest('hex')}`;
}
