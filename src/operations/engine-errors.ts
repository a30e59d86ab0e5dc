import { ambientCancellation } from '../core/cancellation.js';
import { QuireError } from '../core/errors.js';
import { ArchiveError } from '../engines/archive/index.js';
import { HtmlEngineError } from '../engines/chromium/errors.js';
import { EngineError } from '../engines/engine-error.js';
import { GhostscriptError } from '../engines/ghostscript/ghostscript.js';
import { ImageEngineError } from '../engines/image/errors.js';
import { UnoJobError } from '../engines/libreoffice/uno-worker.js';
import { MailEngineError } from '../engines/mail/errors.js';
import { PdfContentError } from '../engines/pdf-edit/content/errors.js';
import { DocumentEditError } from '../engines/pdf-edit/document/errors.js';
import { PdfEditError } from '../engines/pdf-edit/annotations/errors.js';
import { PdfLibError } from '../engines/pdf-edit/pdf-lib-error.js';
import { RedactionError } from '../engines/pdf-edit/redaction/errors.js';
import { ObjectStreamError } from '../engines/pdf/compress/object-streams.js';
import { PdfEngineError } from '../engines/pdf/errors.js';
import { ClassicFileError } from '../engines/pdf/security/classic-file.js';
import { PdfSecurityError } from '../engines/pdf/security/errors.js';
import { StructureError } from '../engines/pdf/structure/errors.js';
import { PoolError } from '../engines/pool/pool-errors.js';
import { PopplerError } from '../engines/poppler/errors.js';
import { PrintError } from '../engines/print/errors.js';
import { MemoryLimitError } from '../engines/process/memory-limit.js';
import { TextEngineError } from '../engines/text/errors.js';
import { TesseractError } from '../engines/tesseract/errors.js';

/**
 * ONE table per engine from its error kinds to the errors catalogue (src/core/errors.ts). Every engine
 * error extends `EngineError` (src/engines/engine-error.ts); its table is keyed by the engine's kind
 * type, so the compiler refuses a kind without an entry. An entry returns the client's error, or
 * `undefined` for a server fault (the error passes through and is logged, -1). A kind named in
 * STANDARD_KINDS (timeout, damaged, tooLarge, ...) means the same whichever engine raises it, so a table
 * names only the engine's other kinds and the standard ones it answers differently.
 *
 * How to map a new engine: give it an `EngineError` subclass with a kind union, add its table below
 * with `table(Class, {...})`, and add it to ENGINE_TABLES.
 */

/** What a mapping may depend on besides the error: the call's own wording. */
export interface MappingContext {
  /** The converter call sent an accessPassword (an Office document that still does not open: wrong one). */
  accessPassword: boolean;
}

type Entry<E> = (error: E, context: MappingContext) => QuireError | undefined;

interface EngineTable {
  matches(error: unknown): boolean;
  map(error: unknown, context: MappingContext): QuireError | undefined;
}

const cause = (error: Error) => ({ cause: error });
const parameter: Entry<Error> = (error) => new QuireError('PARAMETER', error.message, cause(error));
const invalidPdf: Entry<Error> = (error) => new QuireError('INVALID_PDF', `Unable to read the PDF file content: ${error.message}`, cause(error));
const timedOut: Entry<Error> = (error) => new QuireError('PROCESSING_TIMEOUT', error.message, cause(error));
const optionUnsupported: Entry<Error> = (error) => new QuireError('OPTION_UNSUPPORTED', error.message, cause(error));
const uploadLimit: Entry<Error> = (error) => new QuireError('UPLOAD_LIMIT', error.message, cause(error));
const failed: Entry<Error> = (error) => new QuireError('CONVERSION_FAILED', error.message, cause(error));
const serverFault: Entry<Error> = () => undefined;

/** Kinds whose name says what the client gets, whichever engine raises them (a table may still answer one differently). */
const STANDARD_KINDS = {
  invalidOption: parameter,
  invalidOptions: parameter,
  unsupported: optionUnsupported,
  timeout: timedOut,
  damaged: invalidPdf,
  invalidPdf,
  tooLarge: uploadLimit,
  failed,
} satisfies Record<string, Entry<Error>>;
type StandardKind = keyof typeof STANDARD_KINDS;

/** An engine's entries: every kind outside STANDARD_KINDS, and any standard kind it answers otherwise. */
type Entries<E extends EngineError<string>> = Record<Exclude<E['kind'], StandardKind>, Entry<E>> & Partial<Record<Extract<E['kind'], StandardKind>, Entry<E>>>;

function table<E extends EngineError<string>>(type: abstract new (...args: never[]) => E, entries: Entries<E>): EngineTable {
  const byKind: Partial<Record<string, Entry<E>>> = entries;
  return {
    matches: (error) => error instanceof type,
    map: (error, context) => {
      const kind = (error as E).kind;
      const entry = byKind[kind] ?? STANDARD_KINDS[kind as StandardKind];
      return entry(error as E, context);
    },
  };
}

// ---- the supervisor and the per-call process runner ---------------------------------------------------

const pool = table(PoolError, {
  busy: (error) => new QuireError('ENGINE_BUSY', error.message, { cause: error, headers: { 'retry-after': String(error.retryAfterSeconds) } }),
  poisoned: (error) => new QuireError('DOCUMENT_POISONED', error.message, cause(error)),
  unavailable: (error) => new QuireError('ENGINE_UNAVAILABLE', error.message, cause(error)),
});

const memory = table(MemoryLimitError, {
  memoryLimit: (error) => new QuireError('ENGINE_MEMORY_LIMIT', error.message, cause(error)),
});

// ---- PDF structure (qpdf) and archives ---------------------------------------------------------------

const pdf = table(PdfEngineError, {
  passwordRequired: (error) =>
    new QuireError('PDF_PASSWORD_REQUIRED', "The PDF is password protected; supply its password (PUT documents/{id}/security/password or the call's password member).", cause(error)),
  passwordWrong: (error) => new QuireError('PDF_PASSWORD_WRONG', 'The password does not open the PDF.', cause(error)),
  certificateRequired: (error) => new QuireError('PDF_CERTIFICATE_REQUIRED', "The PDF is encrypted for certificates; supply a recipient's certificate and private key.", cause(error)),
  keyMaterialInvalid: (error) => new QuireError('PARAMETER', `Invalid parameter keyPair: ${error.message}`, cause(error)),
  fileUnreadable: invalidPdf,
  unsupportedEncryption: (error) => new QuireError('UNSUPPORTED_ENCRYPTION', error.message, cause(error)),
  timeout: (error) => new QuireError('PROCESSING_TIMEOUT', `The PDF could not be inspected within the server's limits: ${error.message}`, cause(error)),
  outputTooLarge: (error) => new QuireError('PROCESSING_TIMEOUT', `The PDF could not be inspected within the server's limits: ${error.message}`, cause(error)),
  // The tool missing or failing: a server fault, logged as such.
  toolMissing: serverFault,
  toolFailed: serverFault,
});

const archiveRefused: Entry<ArchiveError> = (error) => new QuireError('ARCHIVE_REFUSED', `The archive was refused: ${error.message}.`, cause(error));
const archive = table(ArchiveError, {
  notFound: (error) => new QuireError('ARCHIVE_ENTRY_NOT_FOUND', `The archive has no such member: ${error.message}.`, cause(error)),
  badFilter: (error) => new QuireError('PARAMETER', `Invalid parameter fileFilter: ${error.message}`, cause(error)),
  unsafePath: archiveRefused,
  duplicate: archiveRefused,
  tooManyEntries: archiveRefused,
  tooLarge: archiveRefused,
  ratio: archiveRefused,
  nested: archiveRefused,
  encrypted: archiveRefused,
  unsupported: archiveRefused,
  sizeMismatch: archiveRefused,
  corrupt: archiveRefused,
});

// ---- conversion engines -----------------------------------------------------------------------------

const office = table(UnoJobError, {
  password: (error, context) =>
    new QuireError(
      'OFFICE_PASSWORD',
      context.accessPassword ? 'The accessPassword does not open the protected Office document.' : 'The Office document is password protected: send converter.accessPassword.',
      cause(error),
    ),
  load: (error) => new QuireError('CONVERSION_FAILED', `LibreOffice could not read the document${error.message ? `: ${error.message}` : ''}.`, cause(error)),
  export: (error) => new QuireError('CONVERSION_FAILED', `LibreOffice could not export the document${error.message ? `: ${error.message}` : ''}.`, cause(error)),
});

// A pixel flood is an image no decoder should try: unreadable, not a bad parameter.
const imageUnreadable: Entry<ImageEngineError> = (error) => new QuireError('IMAGE_UNREADABLE', error.message, cause(error));
const image = table(ImageEngineError, {
  unreadable: imageUnreadable,
  tooLarge: imageUnreadable,
  unsupported: (error) => new QuireError('CONVERSION_UNSUPPORTED', error.message, cause(error)),
  frameOutOfRange: parameter,
});

const chromiumFailed: Entry<HtmlEngineError> = (error) => new QuireError('CONVERSION_FAILED', `Chromium could not render the document: ${error.message}`, cause(error));
const html = table(HtmlEngineError, {
  pageRange: parameter,
  inputTooLarge: uploadLimit,
  inputUnreadable: chromiumFailed,
  renderFailed: chromiumFailed,
});

const text = table(TextEngineError, {
  invalidOption: (error) => new QuireError('PARAMETER', `Invalid parameter converter.text.textHighlight: ${error.message}`, cause(error)),
  unreadable: failed,
});

const mail = table(MailEngineError, {
  unreadable: (error) => new QuireError('CONVERSION_FAILED', `The e-mail cannot be read: ${error.message}`, cause(error)),
});

const ghostscript = table(GhostscriptError, { toolMissing: failed });

// ---- PDF reading and editing (poppler, pdf-lib, our writers): standard kinds but for these -----------------

const poppler = table(PopplerError, { toolMissing: failed });
const redaction = table(RedactionError, { renderFailed: failed });
const pdfLib = table(PdfLibError, { unreadable: invalidPdf });
const structure = table(StructureError, { unreadable: invalidPdf });

const tesseract = table(TesseractError, {
  failed: (error) => new QuireError('OCR_FAILED', error.message, cause(error)),
  languageMissing: (error) => new QuireError('OCR_LANGUAGE_MISSING', error.message, cause(error)),
  notFound: (error) => new QuireError('ENGINE_UNAVAILABLE', error.message, cause(error)),
});

/** Every engine's table. A new engine adds its table here (and nowhere else). */
const ENGINE_TABLES: readonly EngineTable[] = [
  pool,
  memory,
  pdf,
  archive,
  office,
  image,
  html,
  text,
  mail,
  ghostscript,
  poppler,
  table(DocumentEditError, {}),
  table(PdfContentError, {}),
  table(PdfEditError, {}),
  redaction,
  pdfLib,
  table(PrintError, {}),
  structure,
  table(PdfSecurityError, {}),
  table(ObjectStreamError, {}),
  table(ClassicFileError, {}),
  tesseract,
];

/**
 * The catalogue entry for an engine failure; anything else passes through unchanged (a QuireError
 * as it is, an unknown error as a server fault). A call whose client went away or whose time ran out
 * reports that, whatever the killed tool or worker made of it (see core/cancellation.ts).
 */
export function fromEngine(error: unknown, context: MappingContext = { accessPassword: false }): unknown {
  const cancelled = ambientCancellation();
  if (cancelled?.aborted && cancelled.reason instanceof QuireError) return cancelled.reason;
  if (!(error instanceof EngineError)) return error;
  const found = ENGINE_TABLES.find((entry) => entry.matches(error));
  return found?.map(error, context) ?? error;
}
