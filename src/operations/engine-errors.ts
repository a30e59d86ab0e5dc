import { ambientCancellation } from '../core/cancellation.js';
import { QuireError } from '../core/errors.js';
import { ArchiveError, type ArchiveErrorKind } from '../engines/archive/index.js';
import { HtmlEngineError, type HtmlEngineErrorKind } from '../engines/chromium/errors.js';
import { EngineError } from '../engines/engine-error.js';
import { GhostscriptError, type GhostscriptErrorKind } from '../engines/ghostscript/ghostscript.js';
import { ImageEngineError, type ImageEngineErrorKind } from '../engines/image/errors.js';
import { UnoJobError, type UnoJobErrorKind } from '../engines/libreoffice/uno-worker.js';
import { MailEngineError, type MailEngineErrorKind } from '../engines/mail/errors.js';
import { PdfContentError, type PdfContentErrorKind } from '../engines/pdf-edit/content/errors.js';
import { DocumentEditError, type DocumentEditErrorKind } from '../engines/pdf-edit/document/errors.js';
import { PdfEditError, type PdfEditErrorKind } from '../engines/pdf-edit/annotations/errors.js';
import { PdfLibError, type PdfLibErrorKind } from '../engines/pdf-edit/pdf-lib-error.js';
import { RedactionError, type RedactionErrorKind } from '../engines/pdf-edit/redaction/errors.js';
import { ObjectStreamError } from '../engines/pdf/compress/object-streams.js';
import { PdfEngineError, type PdfEngineErrorKind } from '../engines/pdf/errors.js';
import { ClassicFileError } from '../engines/pdf/security/classic-file.js';
import { PdfSecurityError, type PdfSecurityErrorKind } from '../engines/pdf/security/errors.js';
import { StructureError, type StructureErrorKind } from '../engines/pdf/structure/errors.js';
import { PoolError, type PoolErrorKind } from '../engines/pool/pool-errors.js';
import { PopplerError, type PopplerErrorKind } from '../engines/poppler/errors.js';
import { PrintError, type PrintErrorKind } from '../engines/print/errors.js';
import { MemoryLimitError } from '../engines/process/memory-limit.js';
import { TextEngineError, type TextEngineErrorKind } from '../engines/text/errors.js';
import { TesseractError, type TesseractKind } from '../engines/tesseract/errors.js';

/**
 * ONE table per engine from its error kinds to the errors catalogue (src/core/errors.ts). Every engine
 * error extends `EngineError` (src/engines/engine-error.ts); its table is keyed by the engine's kind
 * type, so the compiler refuses a kind without an entry. An entry returns the client's error, or
 * `undefined` for a server fault (the error passes through and is logged, -1).
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

function table<K extends string, E extends EngineError<K>>(type: abstract new (...args: never[]) => E, entries: Record<K, Entry<E>>): EngineTable {
  return {
    matches: (error) => error instanceof type,
    map: (error, context) => entries[(error as E).kind](error as E, context),
  };
}

const cause = (error: Error) => ({ cause: error });
const parameter: Entry<Error> = (error) => new QuireError('PARAMETER', error.message, cause(error));
const invalidPdf: Entry<Error> = (error) => new QuireError('INVALID_PDF', `Unable to read the PDF file content: ${error.message}`, cause(error));
const timedOut: Entry<Error> = (error) => new QuireError('PROCESSING_TIMEOUT', error.message, cause(error));
const optionUnsupported: Entry<Error> = (error) => new QuireError('OPTION_UNSUPPORTED', error.message, cause(error));
const uploadLimit: Entry<Error> = (error) => new QuireError('UPLOAD_LIMIT', error.message, cause(error));
const failed: Entry<Error> = (error) => new QuireError('CONVERSION_FAILED', error.message, cause(error));
const serverFault: Entry<Error> = () => undefined;

// ---- the supervisor and the per-call process runner ---------------------------------------------------

const pool = table(PoolError, {
  busy: (error) => new QuireError('ENGINE_BUSY', error.message, { cause: error, headers: { 'retry-after': String(error.retryAfterSeconds) } }),
  timeout: timedOut,
  poisoned: (error) => new QuireError('DOCUMENT_POISONED', error.message, cause(error)),
  unavailable: (error) => new QuireError('ENGINE_UNAVAILABLE', error.message, cause(error)),
} satisfies Record<PoolErrorKind, Entry<PoolError>>);

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
  invalidPdf,
  fileUnreadable: invalidPdf,
  unsupportedEncryption: (error) => new QuireError('UNSUPPORTED_ENCRYPTION', error.message, cause(error)),
  timeout: (error) => new QuireError('PROCESSING_TIMEOUT', `The PDF could not be inspected within the server's limits: ${error.message}`, cause(error)),
  outputTooLarge: (error) => new QuireError('PROCESSING_TIMEOUT', `The PDF could not be inspected within the server's limits: ${error.message}`, cause(error)),
  // The tool missing or failing: a server fault, logged as such.
  toolMissing: serverFault,
  toolFailed: serverFault,
} satisfies Record<PdfEngineErrorKind, Entry<PdfEngineError>>);

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
} satisfies Record<ArchiveErrorKind, Entry<ArchiveError>>);

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
} satisfies Record<UnoJobErrorKind, Entry<UnoJobError>>);

// A pixel flood is an image no decoder should try: unreadable, not a bad parameter.
const imageUnreadable: Entry<ImageEngineError> = (error) => new QuireError('IMAGE_UNREADABLE', error.message, cause(error));
const image = table(ImageEngineError, {
  unreadable: imageUnreadable,
  tooLarge: imageUnreadable,
  unsupported: (error) => new QuireError('CONVERSION_UNSUPPORTED', error.message, cause(error)),
  frameOutOfRange: parameter,
  invalidOptions: parameter,
} satisfies Record<ImageEngineErrorKind, Entry<ImageEngineError>>);

const chromiumFailed: Entry<HtmlEngineError> = (error) => new QuireError('CONVERSION_FAILED', `Chromium could not render the document: ${error.message}`, cause(error));
const html = table(HtmlEngineError, {
  invalidOption: parameter,
  pageRange: parameter,
  inputTooLarge: uploadLimit,
  inputUnreadable: chromiumFailed,
  renderFailed: chromiumFailed,
} satisfies Record<HtmlEngineErrorKind, Entry<HtmlEngineError>>);

const text = table(TextEngineError, {
  invalidOption: (error) => new QuireError('PARAMETER', `Invalid parameter converter.text.textHighlight: ${error.message}`, cause(error)),
  tooLarge: uploadLimit,
  unreadable: failed,
} satisfies Record<TextEngineErrorKind, Entry<TextEngineError>>);

const mail = table(MailEngineError, {
  tooLarge: uploadLimit,
  unreadable: (error) => new QuireError('CONVERSION_FAILED', `The e-mail cannot be read: ${error.message}`, cause(error)),
} satisfies Record<MailEngineErrorKind, Entry<MailEngineError>>);

const ghostscript = table(GhostscriptError, {
  timeout: timedOut,
  failed,
  toolMissing: failed,
} satisfies Record<GhostscriptErrorKind, Entry<GhostscriptError>>);

// ---- PDF reading and editing (poppler, pdf-lib, our writers) ------------------------------------------

const poppler = table(PopplerError, {
  timeout: timedOut,
  damaged: invalidPdf,
  tooLarge: uploadLimit,
  invalidOption: parameter,
  unsupported: optionUnsupported,
  toolMissing: failed,
  failed,
} satisfies Record<PopplerErrorKind, Entry<PopplerError>>);

const documentEdit = table(DocumentEditError, {
  invalidOption: parameter,
  damaged: invalidPdf,
  unsupported: optionUnsupported,
  tooLarge: uploadLimit,
} satisfies Record<DocumentEditErrorKind, Entry<DocumentEditError>>);

const content = table(PdfContentError, {
  invalidOptions: parameter,
  unsupported: optionUnsupported,
  damaged: invalidPdf,
} satisfies Record<PdfContentErrorKind, Entry<PdfContentError>>);

const annotations = table(PdfEditError, {
  invalidOption: parameter,
  unsupported: optionUnsupported,
  timeout: timedOut,
  failed,
} satisfies Record<PdfEditErrorKind, Entry<PdfEditError>>);

const redaction = table(RedactionError, {
  unsupported: optionUnsupported,
  timeout: timedOut,
  invalidPdf,
  renderFailed: failed,
} satisfies Record<RedactionErrorKind, Entry<RedactionError>>);

const pdfLib = table(PdfLibError, {
  unreadable: invalidPdf,
  tooLarge: uploadLimit,
} satisfies Record<PdfLibErrorKind, Entry<PdfLibError>>);

const print = table(PrintError, {
  invalidOption: parameter,
  unsupported: optionUnsupported,
  timeout: timedOut,
  failed,
} satisfies Record<PrintErrorKind, Entry<PrintError>>);

const structure = table(StructureError, {
  invalidOption: parameter,
  unreadable: invalidPdf,
  tooLarge: uploadLimit,
  unsupported: optionUnsupported,
} satisfies Record<StructureErrorKind, Entry<StructureError>>);

const security = table(PdfSecurityError, {
  invalidOption: parameter,
  unsupported: optionUnsupported,
  timeout: timedOut,
} satisfies Record<PdfSecurityErrorKind, Entry<PdfSecurityError>>);

const tesseract = table(TesseractError, {
  failed: (error) => new QuireError('OCR_FAILED', error.message, cause(error)),
  languageMissing: (error) => new QuireError('OCR_LANGUAGE_MISSING', error.message, cause(error)),
  notFound: (error) => new QuireError('ENGINE_UNAVAILABLE', error.message, cause(error)),
} satisfies Record<TesseractKind, Entry<TesseractError>>);

const objectStreams = table(ObjectStreamError, { timeout: timedOut });
const classicFile = table(ClassicFileError, { invalidPdf });

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
  documentEdit,
  content,
  annotations,
  redaction,
  pdfLib,
  print,
  structure,
  security,
  objectStreams,
  classicFile,
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
