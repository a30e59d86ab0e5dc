import { EngineError } from '../../engine-error.js';

/**
 * Failures of the content editors (watermarks, backgrounds, headers/footers, page settings).
 *
 * - `invalidOptions`: a value the schema cannot catch is wrong (a date that does not exist, a zero
 *   box size); mapped to -14.
 * - `unsupported`: valid, but cannot be honoured properly here (text in a script that needs shaping,
 *   characters no installed TrueType font has, a font whose licence forbids embedding); -104.
 * - `damaged`: the document's own structures cannot be read (an undecodable content stream); -7.
 *
 * `member` is the option the failure is about, relative to the operation (`text.font.name`), so
 * that the operations layer can name the whole field.
 */
export type PdfContentErrorKind = 'invalidOptions' | 'unsupported' | 'damaged';

export class PdfContentError extends EngineError<PdfContentErrorKind> {
  readonly member: string | undefined;

  constructor(kind: PdfContentErrorKind, message: string, options: { member?: string; cause?: unknown } = {}) {
    super(kind, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.member = options.member;
  }
}

/**
 * The error with the whole field in its message (`toolbox[0].watermark.text.text`), in the wording
 * of the other toolbox errors; other errors pass through.
 */
export function inField(error: unknown, field: string): unknown {
  if (!(error instanceof PdfContentError) || error.kind === 'damaged') return error;
  const where = error.member ? `${field}.${error.member}` : field;
  const message = error.kind === 'invalidOptions' ? `Invalid parameter ${where}: ${error.message}` : `${where} cannot be honoured: ${error.message}`;
  return new PdfContentError(error.kind, message, { cause: error });
}
