import { EngineError } from '../../engine-error.js';

/**
 * Failures of the PDF security engine (encrypting with passwords or for certificate holders).
 * The toolbox maps the kinds by name: `invalidOption` → -14, `unsupported` → -104, `timeout` → -93.
 */
export type PdfSecurityErrorKind =
  /** A password or certificate the encryption cannot use (line break, unreadable certificate, not RSA). */
  | 'invalidOption'
  /** A valid combination this engine cannot write (e.g. clear-text metadata with 40-bit RC4). */
  | 'unsupported'
  | 'timeout';

export class PdfSecurityError extends EngineError<PdfSecurityErrorKind> {}
