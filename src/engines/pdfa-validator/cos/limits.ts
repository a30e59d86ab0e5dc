/**
 * Bounds of the COS reader. A file to validate is hostile until proven otherwise: every count, length
 * and offset it declares is checked against these and against the bytes really there, so a broken or
 * malicious file yields what can be read and never a crash, a hang or an unbounded allocation.
 */
export interface CosLimits {
  /** The whole file is read into memory (random access everywhere); larger files are refused. */
  readonly maxFileBytes: number;
  /** Array/dictionary nesting; deeper values end the object as broken. */
  readonly maxDepth: number;
  /** Cross-reference sections followed through /Prev and /XRefStm (a /Prev cycle stops at the first repeat). */
  readonly maxXrefSections: number;
  /**
   * Cross-reference entries kept. Beyond it the rest is dropped and `limitsHit` says so: the validator must
   * then not call the file compliant (nrIndirects would be a lower bound). 1M entries cost ~100 MB at most.
   */
  readonly maxObjects: number;
  /** One stream's decoded size. */
  readonly maxDecodedStreamBytes: number;
  /** All streams' decoded bytes together, for the life of the document (a bomb split over many streams). */
  readonly maxTotalDecodedBytes: number;
  /** Tokens read over the document's life: a bound on parsing work whatever the object graph looks like. */
  readonly maxTokens: number;
}

/**
 * PDF/A files to validate are usually far below 100 MB; 128 MiB leaves room and keeps one validation's
 * memory predictable (the buffer plus parsed objects, typically 2–3× the file).
 */
export const DEFAULT_COS_LIMITS: CosLimits = Object.freeze({
  maxFileBytes: 128 * 1024 * 1024,
  maxDepth: 128,
  maxXrefSections: 512,
  maxObjects: 1_000_000,
  maxDecodedStreamBytes: 64 * 1024 * 1024,
  maxTotalDecodedBytes: 512 * 1024 * 1024,
  maxTokens: 50_000_000,
});
