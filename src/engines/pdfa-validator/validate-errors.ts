import { EngineError } from '../engine-error.js';

/** The validator's own failures beyond the COS reader's (CosError: file too large, unreadable). */
export type PdfaValidateErrorKind =
  /** The caller's AbortSignal fired: no report (a half-done one would mislead). */
  'cancelled';

export class PdfaValidateError extends EngineError<PdfaValidateErrorKind> {}
