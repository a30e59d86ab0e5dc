import { EngineError } from '../../engine-error.js';

/**
 * The COS reader's failures. Almost nothing is fatal: a broken file yields the facts that can be read,
 * with its problems listed on the document. Only a file that cannot be read at all, or is larger than
 * the configured cap, is refused.
 */
export type CosErrorKind =
  /** The file is larger than `maxFileBytes`. */
  | 'fileTooLarge'
  /** The file does not exist or cannot be read. */
  | 'fileUnreadable';

export class CosError extends EngineError<CosErrorKind> {}
