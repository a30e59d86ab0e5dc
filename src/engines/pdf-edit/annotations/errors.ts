import { EngineError } from '../../engine-error.js';

/**
 * Failures of the annotation, outline and form editors. `invalidOption` (→ -14) and `unsupported`
 * (→ -104) carry the complete client message, naming the field (`toolbox[0].annotation.add…`);
 * `failed` (→ -102) is pdf-lib tripping over the document's structure; `timeout` (→ -93) the
 * call's time limit passing between the steps of an edit.
 */
export type PdfEditErrorKind = 'invalidOption' | 'unsupported' | 'failed' | 'timeout';

export class PdfEditError extends EngineError<PdfEditErrorKind> {}

/** `Invalid parameter <field>: <reason>` (→ -14). */
export function invalid(field: string, reason: string): PdfEditError {
  return new PdfEditError('invalidOption', `Invalid parameter ${field}: ${reason}`);
}

/** `<field> is not supported: <reason>` (→ -104). */
export function unsupported(field: string, reason: string): PdfEditError {
  return new PdfEditError('unsupported', `${field} is not supported: ${reason}`);
}
