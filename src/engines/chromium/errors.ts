import { EngineError } from '../engine-error.js';

/**
 * Failures of an HTML conversion that are the job's own, by kind. The engine knows nothing of HTTP;
 * the operations layer maps the kinds to its error catalogue. Failures of the supervisor (queue full,
 * time limit, crashes) arrive as `PoolError` instead.
 */
export type HtmlEngineErrorKind =
  /** The HTML file is larger than `maxHtmlBytes`. */
  | 'inputTooLarge'
  /** The HTML file does not exist or cannot be read. */
  | 'inputUnreadable'
  /** An option Chromium cannot use: a relative or malformed base URL, a page size that is not positive. */
  | 'invalidOption'
  /** `pageRanges` is malformed or names pages the document does not have. */
  | 'pageRange'
  /** Chromium failed to load or print the document, or the PDF could not be written. */
  | 'renderFailed';

export class HtmlEngineError extends EngineError<HtmlEngineErrorKind> {}
