/**
 * Remembers tokens whose signature and claims were already verified, until they expire, so that the
 * cryptographic check runs once per token rather than once per call. Only successes are cached;
 * revocation is still decided per call by the session store. Bounded: the oldest entries go first.
 */
export class TokenCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(private readonly capacity: number) {}

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
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, { value, until });
  }
}
