import { EngineError } from '../engine-error.js';

/**
 * Failures of the PDF engine, by kind. The engine knows nothing of HTTP or the errors catalogue; the
 * operations layer maps the kinds, e.g. `passwordRequired` → PDF_PASSWORD_REQUIRED (-5009),
 * `passwordWrong` → PDF_PASSWORD_WRONG (-5008), `certificateRequired` → PDF_CERTIFICATE_REQUIRED (-5055).
 */
export type PdfEngineErrorKind =
  /** Not a PDF, or so damaged that qpdf cannot recover a trailer or page tree. */
  | 'invalidPdf'
  /** The document needs its user (open) password and none was given. */
  | 'passwordRequired'
  /** A password was given and it opens nothing. */
  | 'passwordWrong'
  /** The document uses the public-key security handler (Adobe.PubSec); qpdf cannot open it. */
  | 'certificateRequired'
  /** An encryption handler other than Standard and Adobe.PubSec (e.g. a DRM plug-in's). */
  | 'unsupportedEncryption'
  /** Certificate or private key unreadable, not RSA, or the private key's password is wrong. */
  | 'keyMaterialInvalid'
  /** The tool ran longer than the configured timeout and was killed. */
  | 'timeout'
  /** The tool's output exceeded the configured bound. */
  | 'outputTooLarge'
  /** The tool binary is missing or cannot be started. */
  | 'toolMissing'
  /** The tool failed for a reason not covered above (its message is in `detail`). */
  | 'toolFailed'
  /** The file does not exist or cannot be read. */
  | 'fileUnreadable';

export class PdfEngineError extends EngineError<PdfEngineErrorKind> {}
