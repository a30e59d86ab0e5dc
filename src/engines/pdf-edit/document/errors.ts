import { EngineError } from '../../engine-error.js';

/**
 * Failures of the document-level editors (information dictionary, XMP, embedded files, portfolios).
 * The toolbox maps the kinds by name: `invalidOption` → -14, `damaged` → -7, `unsupported` → -104,
 * `tooLarge` → -71, anything else → -102.
 */
export type DocumentEditErrorKind =
  /** A value the caller supplied cannot be used (the message names it). */
  | 'invalidOption'
  /** A structure of the PDF this edit depends on is broken beyond what the edit can work around. */
  | 'damaged'
  /** The PDF uses something this server cannot process (e.g. a stream filter it cannot decode). */
  | 'unsupported'
  /** A size bound was exceeded. */
  | 'tooLarge';

export class DocumentEditError extends EngineError<DocumentEditErrorKind> {}
