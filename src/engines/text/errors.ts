import { EngineError } from '../engine-error.js';

/**
 * Failures of the text engine, by kind. The engine knows nothing of HTTP or the errors catalogue; the
 * operations layer maps the kinds (`invalidOption` → PARAMETER, `tooLarge` → a size limit error).
 * Messages are safe to show the client: they name the option or limit, never a file path.
 */
export type TextEngineErrorKind =
  /** A rendering or decoding option has a value that is not allowed; the message names the option. */
  | 'invalidOption'
  /** The file is larger than the caller's limit. */
  | 'tooLarge'
  /** The file does not exist or cannot be read. */
  | 'unreadable';

export class TextEngineError extends EngineError<TextEngineErrorKind> {}
