import { ambientCancellation } from '../../core/cancellation.js';
import { QuireError } from '../../core/errors.js';
import { ArchiveError } from '../../engines/archive/index.js';
import { PdfEngineError } from '../../engines/pdf/index.js';
import { MemoryLimitError } from '../../engines/process/memory-limit.js';

/**
 * The catalogue entry for a failure of the PDF engine; other errors pass through unchanged. Two
 * failures of any engine are decided here too, as every engine mapping ends here: a call whose
 * client went away reports its cancellation (whatever the killed tool made of it), and a memory cap
 * (of a tool or a pool worker) is ENGINE_MEMORY_LIMIT.
 */
export function fromPdfEngine(error: unknown): unknown {
  const cancelled = ambientCancellation();
  if (cancelled?.aborted && cancelled.reason instanceof QuireError) return cancelled.reason;
  if (error instanceof MemoryLimitError) return new QuireError('ENGINE_MEMORY_LIMIT', error.message, { cause: error });
  if (!(error instanceof PdfEngineError)) return error;
  switch (error.kind) {
    case 'passwordRequired':
      return new QuireError('PDF_PASSWORD_REQUIRED', 'The PDF is password protected; supply its password (PUT documents/{id}/security/password or the call\'s password member).', { cause: error });
    case 'passwordWrong':
      return new QuireError('PDF_PASSWORD_WRONG', 'The password does not open the PDF.', { cause: error });
    case 'certificateRequired':
      return new QuireError('PDF_CERTIFICATE_REQUIRED', 'The PDF is encrypted for certificates; supply a recipient\'s certificate and private key.', { cause: error });
    case 'keyMaterialInvalid':
      return new QuireError('PARAMETER', `Invalid parameter keyPair: ${error.message}`, { cause: error });
    case 'invalidPdf':
    case 'fileUnreadable':
      return new QuireError('INVALID_PDF', `Unable to read the PDF file content: ${error.message}`, { cause: error });
    case 'unsupportedEncryption':
      return new QuireError('UNSUPPORTED_ENCRYPTION', error.message, { cause: error });
    case 'timeout':
    case 'outputTooLarge':
      return new QuireError('PROCESSING_TIMEOUT', `The PDF could not be inspected within the server's limits: ${error.message}`, { cause: error });
    default:
      return error; // tool missing or failing: a server fault, logged as such
  }
}

/** The catalogue entry for a refusal of the archive engine. */
export function fromArchiveEngine(error: unknown): unknown {
  if (!(error instanceof ArchiveError)) return error;
  if (error.kind === 'not-found') return new QuireError('ARCHIVE_ENTRY_NOT_FOUND', `The archive has no such member: ${error.message}.`, { cause: error });
  if (error.kind === 'bad-filter') return new QuireError('PARAMETER', `Invalid parameter fileFilter: ${error.message}`, { cause: error });
  return new QuireError('ARCHIVE_REFUSED', `The archive was refused: ${error.message}.`, { cause: error });
}
