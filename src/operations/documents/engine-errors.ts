import { fromEngine } from '../engine-errors.js';

/**
 * The catalogue entry for a failure of the PDF engine (and of the supervisor or a memory cap around
 * it); other errors pass through unchanged. The tables are in operations/engine-errors.ts.
 */
export function fromPdfEngine(error: unknown): unknown {
  return fromEngine(error);
}

/** The catalogue entry for a refusal of the archive engine (operations/engine-errors.ts). */
export function fromArchiveEngine(error: unknown): unknown {
  return fromEngine(error);
}
