import { QuireError } from '../../core/errors.js';
import { EngineError } from '../../engines/engine-error.js';
import { firstLine, isPdfLibFault } from '../../engines/pdf-edit/pdf-lib-io.js';
import { fromConversionEngine } from '../converter/engine-errors.js';

/**
 * Engine failures of toolbox operations as the client sees them: the converter's mapping (pools,
 * qpdf, Ghostscript, images, ...) and, for the toolbox engines' own `EngineError` kinds, a mapping by
 * kind name: invalid options → -14, unreadable input → -7, timeouts → -93, the rest → -102. Errors
 * pdf-lib raises while reading the document are unreadable input too (-7).
 */
export function fromToolboxEngine(error: unknown): unknown {
  // pdf-lib reads objects lazily: a damaged object fails deep inside an edit. That is the document's
  // fault (-7), wherever in the operation it surfaced, never a server error.
  if (isPdfLibFault(error)) return new QuireError('INVALID_PDF', `Unable to read the PDF file content: ${firstLine(error)}`, { cause: error });
  const mapped = fromConversionEngine(error, { accessPassword: false });
  if (mapped !== error || !(error instanceof EngineError)) return mapped;
  const kind = String(error.kind);
  if (/^invalid(Option|Options|Parameter)?$|^pageRange$|^outOfRange$/.test(kind)) return new QuireError('PARAMETER', error.message, { cause: error });
  if (/^(unreadable|invalidPdf|damaged)$/.test(kind)) return new QuireError('INVALID_PDF', `Unable to read the PDF file content: ${error.message}`, { cause: error });
  if (kind === 'timeout') return new QuireError('PROCESSING_TIMEOUT', error.message, { cause: error });
  if (kind === 'unsupported') return new QuireError('OPTION_UNSUPPORTED', error.message, { cause: error });
  if (kind === 'tooLarge') return new QuireError('UPLOAD_LIMIT', error.message, { cause: error });
  return new QuireError('CONVERSION_FAILED', error.message, { cause: error });
}
