import { BoundedCache } from '../core/bounded-cache.js';

/**
 * Remembers tokens whose signature and claims were already verified, until they expire, so that the
 * cryptographic check runs once per token rather than once per call. Only successes are cached;
 * revocation is still decided per call by the session store. Bounded: the oldest entries go first.
 */
export class TokenCache<T> {
  private readonly entries: BoundedCache<{ value: T; until: number }>;

  constructor(capacity: number) {
    this.entries = new BoundedCache(capacity);
  }

  get(token: string): T | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.value;
  }

  set(token: string, value: T, until: number): void {
    this.entries.set(token, { value, until });
  }
}
