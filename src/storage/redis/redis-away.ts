import { Errors, QuireError } from '../../core/errors.js';

/**
 * How long queue work waits for Redis (a restart, a failover) before a failure counts: a passing
 * outage must not use up an accepted job's attempts (they go in a second with short retry delays).
 */
export const REDIS_AWAY_WAIT_MS = 30_000;

/**
 * Runs `work` again every 250 ms while it fails because Redis cannot be reached, for up to `forMs`:
 * the stores' 503 (-91), or a connection error of ioredis itself from a call no store wrapped.
 */
export function whileRedisAway<T>(work: () => Promise<T>, forMs: number): Promise<T> {
  return retryWhile(redisAway, work, forMs, 250);
}

const REDIS_CONNECTION_ERROR = /Stream isn't writeable|Connection is closed|Command timed out|ECONNREFUSED|ECONNRESET|MaxRetriesPerRequest/i;

function redisAway(error: unknown): boolean {
  if (error instanceof QuireError) return failsWith(Errors.STORE_UNAVAILABLE.errorCode)(error);
  return error instanceof Error && REDIS_CONNECTION_ERROR.test(error.message);
}

export function failsWith(errorCode: number): (error: unknown) => boolean {
  return (error) => error instanceof QuireError && error.errorCode === errorCode;
}

/** Runs `work` again every `pauseMs` while its failure is a `passing` one, for up to `forMs`. */
export async function retryWhile<T>(passing: (error: unknown) => boolean, work: () => Promise<T>, forMs: number, pauseMs: number): Promise<T> {
  const deadline = Date.now() + forMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!passing(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}
