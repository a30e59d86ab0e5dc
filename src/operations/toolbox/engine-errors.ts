import { QuireError } from '../../core/errors.js';
import { firstLine, isPdfLibFault } from '../../engines/pdf-edit/pdf-lib-error.js';
import { fromEngine } from '../engine-errors.js';

/**
 * Engine failures of toolbox operations as the client sees them: one table per engine
 * (operations/engine-errors.ts). Errors pdf-lib raises while reading the document are unreadable
 * input (-7): pdf-lib reads objects lazily, so a damaged object fails deep inside an edit. That is the
 * document's fault, wherever in the operation it surfaced, never a server error.
 */
export function fromToolboxEngine(error: unknown): unknown {
  if (isPdfLibFault(error)) return new QuireError('INVALID_PDF', `Unable to read the PDF file content: ${firstLine(error)}`, { cause: error });
  return fromEngine(error);
}
