/** Gives a slot back; calling it twice is harmless. */
export type Release = () => void;

/**
 * A small semaphore for password hashing: at most `max` hashes run at once (scrypt and argon2 are
 * CPU-bound, each takes a core for a few hundred milliseconds), at most `maxWaiting` wait for a slot,
 * first come first served. Beyond that the caller is refused at once instead of queueing without end.
 */
export class HashSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly max: number,
    private readonly maxWaiting: number,
  ) {}

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** A slot (now or when one frees up), or undefined when every slot is taken and the waiting line is full. */
  acquire(): Promise<Release> | undefined {
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxWaiting) return undefined;
    return new Promise<Release>((resolve) => this.waiting.push(() => resolve(this.releaser())));
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter: `running` stays, so no newcomer can jump the line.
      if (next) next();
      else this.running--;
    };
  }
}
