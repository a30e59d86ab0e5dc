/**
 * Shrinks a failing input while it still fails the same way: first truncation (keep the first half,
 * three quarters, …), then removal of ever smaller chunks (a light delta debugging). Bounded in
 * attempts and time: a reproducer that is small is nice, one that exists at all is what counts.
 */

export interface MinimiseBudget {
  attempts: number;
  ms: number;
}

export interface Minimised {
  bytes: Buffer;
  attempts: number;
  originalSize: number;
}

export async function minimise(input: Buffer, stillFails: (candidate: Buffer) => Promise<boolean>, budget: MinimiseBudget): Promise<Minimised> {
  const deadline = Date.now() + budget.ms;
  let best = input;
  let attempts = 0;
  const spend = async (candidate: Buffer): Promise<boolean> => {
    if (attempts >= budget.attempts || Date.now() > deadline || candidate.length === 0 || candidate.length >= best.length) return false;
    attempts++;
    if (await stillFails(candidate)) {
      best = candidate;
      return true;
    }
    return false;
  };
  const exhausted = () => attempts >= budget.attempts || Date.now() > deadline;

  // Truncation: the longest prefix cut that still fails, coarse to fine.
  for (const keep of [0.5, 0.75, 0.875]) {
    if (exhausted()) break;
    if (await spend(Buffer.from(best.subarray(0, Math.floor(best.length * keep))))) break;
  }
  // Chunk removal: n chunks, remove each; refine n while something can still go.
  let chunks = 2;
  while (!exhausted() && chunks <= Math.min(best.length, 256)) {
    let removed = false;
    const size = Math.ceil(best.length / chunks);
    for (let start = 0; start < best.length && !exhausted(); start += size) {
      const candidate = Buffer.concat([best.subarray(0, start), best.subarray(start + size)]);
      if (await spend(candidate)) {
        removed = true;
        break;
      }
    }
    if (!removed) chunks *= 2;
  }
  return { bytes: best, attempts, originalSize: input.length };
}
