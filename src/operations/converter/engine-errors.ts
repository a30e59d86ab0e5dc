import { ambientCancellation } from '../../core/cancellation.js';
import { QuireError } from '../../core/errors.js';
import { HtmlEngineError } from '../../engines/chromium/errors.js';
import { ImageEngineError } from '../../engines/image/errors.js';
import { MailEngineError } from '../../engines/mail/index.js';
import { TextEngineError } from '../../engines/text/index.js';
import { GhostscriptError } from '../../engines/ghostscript/ghostscript.js';
import { UnoJobError } from '../../engines/libreoffice/uno-worker.js';
import { PoolError } from '../../engines/pool/pool-errors.js';
import { PopplerError } from '../../engines/poppler/errors.js';
import { fromPdfEngine } from '../documents/engine-errors.js';

/** Engine failures as the client sees them; anything unknown passes through (and becomes -1). */
export function fromConversionEngine(error: unknown, context: { accessPassword: boolean }): unknown {
  // A step killed because the call's time ran out (or its client left) reports that, whatever the
  // killed tool or worker made of it (see call-deadline.ts).
  const cancelled = ambientCancellation();
  if (cancelled?.aborted && cancelled.reason instanceof QuireError) return cancelled.reason;
  if (error instanceof QuireError) return error;
  if (error instanceof PoolError) {
    switch (error.kind) {
      case 'busy':
        return new QuireError('ENGINE_BUSY', error.message, { cause: error, headers: { 'retry-after': String(error.retryAfterSeconds) } });
      case 'timeout':
        return new QuireError('PROCESSING_TIMEOUT', error.message, { cause: error });
      case 'poisoned':
        return new QuireError('DOCUMENT_POISONED', error.message, { cause: error });
      case 'unavailable':
        return new QuireError('ENGINE_UNAVAILABLE', error.message, { cause: error });
    }
  }
  if (error instanceof UnoJobError) {
    if (error.kind === 'password') {
      return new QuireError(
        'OFFICE_PASSWORD',
        context.accessPassword ? 'The accessPassword does not open the protected Office document.' : 'The Office document is password protected: send converter.accessPassword.',
        { cause: error },
      );
    }
    return new QuireError('CONVERSION_FAILED', `LibreOffice could not ${error.kind === 'load' ? 'read' : 'export'} the document${error.message ? `: ${error.message}` : ''}.`, { cause: error });
  }
  if (error instanceof ImageEngineError) {
    // A pixel flood is an image no decoder should try: unreadable, not a bad parameter.
    if (error.kind === 'unreadable' || error.kind === 'tooLarge') return new QuireError('IMAGE_UNREADABLE', error.message, { cause: error });
    if (error.kind === 'unsupported') return new QuireError('CONVERSION_UNSUPPORTED', error.message, { cause: error });
    return new QuireError('PARAMETER', error.message, { cause: error });
  }
  if (error instanceof HtmlEngineError) {
    if (error.kind === 'invalidOption' || error.kind === 'pageRange') return new QuireError('PARAMETER', error.message, { cause: error });
    if (error.kind === 'inputTooLarge') return new QuireError('UPLOAD_LIMIT', error.message, { cause: error });
    return new QuireError('CONVERSION_FAILED', `Chromium could not render the document: ${error.message}`, { cause: error });
  }
  if (error instanceof TextEngineError) {
    if (error.kind === 'invalidOption') return new QuireError('PARAMETER', `Invalid parameter converter.text.textHighlight: ${error.message}`, { cause: error });
    if (error.kind === 'tooLarge') return new QuireError('UPLOAD_LIMIT', error.message, { cause: error });
    return new QuireError('CONVERSION_FAILED', error.message, { cause: error });
  }
  if (error instanceof MailEngineError) {
    if (error.kind === 'tooLarge') return new QuireError('UPLOAD_LIMIT', error.message, { cause: error });
    return new QuireError('CONVERSION_FAILED', `The e-mail cannot be read: ${error.message}`, { cause: error });
  }
  if (error instanceof PopplerError) {
    if (error.kind === 'timeout') return new QuireError('PROCESSING_TIMEOUT', error.message, { cause: error });
    if (error.kind === 'damaged') return new QuireError('INVALID_PDF', `Unable to read the PDF file content: ${error.message}`, { cause: error });
  }
  if (error instanceof GhostscriptError) {
    if (error.kind === 'timeout') return new QuireError('PROCESSING_TIMEOUT', error.message, { cause: error });
    return new QuireError('CONVERSION_FAILED', error.message, { cause: error });
  }
  return fromPdfEngine(error);
}
