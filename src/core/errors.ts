/**
 * The error catalogue: every failure the server reports is one of these entries.
 *
 * Each entry pairs the HTTP status with the numeric `errorCode` of the webPDF exception structure
 * (`{errorCode, errorMessage, stackTrace}`). Codes known from the webPDF clients' tests keep their
 * numbers (-14, -60, -5008, -5009, -5055, ...); codes Quire adds sit in free ranges and are listed in
 * docs/errors.md, which a test keeps in step with this table.
 */
export interface ErrorDefinition {
  /** Negative webPDF-style error number carried in the body. */
  readonly errorCode: number;
  /** HTTP status of a response carrying this error. */
  readonly status: number;
  /** What the code means, for docs/errors.md. */
  readonly description: string;
}

export const Errors = {
  INTERNAL: { errorCode: -1, status: 500, description: 'Unexpected server failure; details are in the server log.' },
  INVALID_PDF: { errorCode: -7, status: 400, description: 'Unable to read the PDF file content: not a PDF, or damaged beyond repair.' },
  PARAMETER: { errorCode: -14, status: 400, description: 'A web-service parameter is invalid: malformed JSON, a wrong type, an unknown enum value or a missing member. The message names the field.' },
  SESSION_NOT_FOUND: {
    errorCode: -60,
    status: 401,
    description:
      'The token opens no session: the session does not exist (logged out, expired, closed by an administrator), or the token was replaced by a refresh (only the newest access and refresh tokens of a session are accepted).',
  },
  TOKEN_MISSING: { errorCode: -61, status: 401, description: 'The call needs a bearer token and none was sent.' },
  TOKEN_INVALID: { errorCode: -62, status: 401, description: 'The token is malformed, has a wrong signature, algorithm, issuer or audience, or has expired.' },
  LOGIN_FAILED: { errorCode: -64, status: 401, description: 'Login failed: unknown user or wrong password.' },
  ANONYMOUS_DISABLED: { errorCode: -65, status: 401, description: 'Anonymous sessions are disabled by configuration; log in with credentials.' },
  REFRESH_REFUSED: { errorCode: -66, status: 401, description: 'The token cannot be used for refresh (not a refresh token of the local provider).' },
  FORBIDDEN: { errorCode: -67, status: 403, description: 'The call needs administrative rights.' },
  TOO_MANY_SESSIONS: { errorCode: -68, status: 429, description: 'The server holds its configured maximum of sessions; try again later.' },
  SESSION_UNKNOWN: { errorCode: -69, status: 404, description: 'An administrator named a session id that does not exist.' },
  DOCUMENT_NOT_FOUND: { errorCode: -70, status: 404, description: 'No document with this id exists in the session.' },
  UPLOAD_LIMIT: { errorCode: -71, status: 413, description: "The upload is larger than the session's uploadLimit." },
  MAX_FILES: { errorCode: -72, status: 409, description: 'The session already holds maxFiles documents.' },
  DISK_SPACE_LIMIT: { errorCode: -73, status: 413, description: "Storing the document would exceed the session's diskSpaceLimit." },
  UPLOAD_MALFORMED: { errorCode: -74, status: 400, description: 'The upload is not a multipart/form-data body with one file part named filedata, or it was cut off.' },
  DOCUMENT_LOCKED: { errorCode: -75, status: 409, description: 'The document is in use by another operation.' },
  HISTORY_NOT_FOUND: { errorCode: -77, status: 404, description: 'The document has no history entry with this id (or was not stored in history mode).' },
  ARCHIVE_REFUSED: {
    errorCode: -78,
    status: 400,
    description:
      'The archive cannot be used: not a ZIP, corrupt, encrypted, or refused for safety (zip bomb, unsafe member path such as ../, too many entries, nested archive). The message says which.',
  },
  ARCHIVE_ENTRY_NOT_FOUND: { errorCode: -79, status: 404, description: 'The archive has no member with this path.' },
  KEYSTORE_NOT_FOUND: { errorCode: -35, status: 404, description: 'No key store with this name is available to the session (the code the webPDF clients expect).' },
  KEYSTORE_PASSWORD: {
    errorCode: -5057,
    status: 400,
    description:
      'The password does not open the key store or the signing key, or the key store is locked for this session (unlock it with PUT authentication/user/certificates/passwords/{keyStoreName}).',
  },
  SIGNATURE_KEY: {
    errorCode: -180,
    status: 400,
    description:
      'signature: the signing key cannot be used: no such alias in the key stores the session may use, a certificate without its private key, key material a call sent that cannot be read, or an unreadable server key store.',
  },
  SIGNATURE_REFUSED: {
    errorCode: -181,
    status: 400,
    description:
      'signature: the document cannot take the signature: it is certified with "no changes allowed" (DocMDP P=1), already certified when a second certification is asked for, or encrypted (decrypt it first). The message says which.',
  },
  TSA_CHECK_FAILED: {
    errorCode: -34,
    status: 400,
    description:
      'Configuration validation: the TSA check asked the time-stamp authority (tsa.url, else signature.tsa.url) for a token and got none (unreachable, refused by the outbound address policy, an HTTP error or a refusal); nothing was saved. Reported in `Admin_ConfigurationResult.error` (HTTP 200), the code the webPDF clients expect.',
  },
  SIGNATURE_TIMESTAMP: {
    errorCode: -182,
    status: 502,
    description:
      'signature: the configured time-stamp authority (signature.tsa.url) did not give a usable token: unreachable, refused by the outbound address policy, an HTTP error, a refusal, or a token that does not answer the request. Nothing was changed.',
  },
  SIGNATURE_REVOKED: {
    errorCode: -183,
    status: 400,
    description:
      "signature: revocation checking (signature.revocation.check) found a certificate of the signer's or the time-stamp authority's chain revoked (OCSP or CRL); the message names it. Nothing was changed.",
  },
  SIGNATURE_REVOCATION: {
    errorCode: -184,
    status: 502,
    description:
      'signature: the revocation status of a certificate of the chain cannot be established while signature.revocation.required is on: no OCSP responder or CRL named, unreachable, refused by the outbound address policy, an HTTP error, or an answer that is unsigned, stale, unknown or about another certificate. Nothing was changed.',
  },
  SIGNATURE_PAGE: { errorCode: -328, status: 400, description: "signature: the appearance's page is past the end of the document (the code the webPDF clients expect)." },
  ROUTE_NOT_FOUND: { errorCode: -80, status: 404, description: 'No such endpoint.' },
  UNSUPPORTED_MEDIA_TYPE: { errorCode: -81, status: 415, description: 'The request body has a content type the endpoint does not accept.' },
  BODY_TOO_LARGE: { errorCode: -82, status: 413, description: 'The JSON request body exceeds the configured limit.' },
  HTTP_MALFORMED: {
    errorCode: -83,
    status: 400,
    description: 'The HTTP request itself is malformed (request line, header syntax, Content-Length, chunked encoding, Content-Length together with Transfer-Encoding); the connection is closed.',
  },
  HEADERS_TOO_LARGE: { errorCode: -84, status: 431, description: 'The request line or headers are larger than the server accepts; the connection is closed.' },
  EXPECTATION_FAILED: { errorCode: -85, status: 417, description: 'The Expect header names an expectation other than 100-continue.' },
  REQUEST_TIMEOUT: {
    errorCode: -86,
    status: 408,
    description:
      'The client sent its request too slowly: headers or body not complete within server.headersTimeout / server.requestTimeout, or an upload below server.minUploadRate; the connection is closed.',
  },
  PROCESSING_TIMEOUT: { errorCode: -93, status: 400, description: 'Processing the document took longer than the configured time limit; it is too complex or malformed.' },
  UNSUPPORTED_ENCRYPTION: { errorCode: -94, status: 400, description: 'The PDF uses an encryption handler other than passwords or certificates (e.g. a DRM plug-in).' },
  SHUTTING_DOWN: { errorCode: -90, status: 503, description: 'The server is shutting down and accepts no new work.' },
  STORE_UNAVAILABLE: {
    errorCode: -91,
    status: 503,
    description:
      'Cluster mode: the shared store (Redis, cluster.redis.url) cannot be reached, is still loading, or did not answer within cluster.redis.commandTimeout; retry after the Retry-After seconds.',
  },
  CONVERSION_UNSUPPORTED: { errorCode: -101, status: 400, description: 'The converter cannot convert this type of document (the message names the type); `fileExtension` can force another type.' },
  CONVERSION_FAILED: { errorCode: -102, status: 400, description: 'The engine could not convert the document: it is damaged or not what its type claims. The message says what the engine reported.' },
  OFFICE_PASSWORD: { errorCode: -103, status: 400, description: 'The Office document is password protected and `accessPassword` is missing or wrong.' },
  OPTION_UNSUPPORTED: { errorCode: -104, status: 400, description: 'A web-service option is valid but not supported by this server (the message names it); nothing was changed.' },
  ENGINE_BUSY: { errorCode: -105, status: 429, description: 'Every worker of the engine is busy and its queue is full; retry after the Retry-After seconds.' },
  IMAGE_UNREADABLE: { errorCode: -106, status: 400, description: 'The image cannot be decoded: corrupt, truncated, or not an image.' },
  ENGINE_UNAVAILABLE: { errorCode: -107, status: 503, description: 'The engine this conversion needs is disabled or could not start on this server.' },
  DOCUMENT_POISONED: { errorCode: -108, status: 400, description: 'The document hung or crashed a conversion engine twice and is refused to protect other jobs.' },
  ENGINE_MEMORY_LIMIT: {
    errorCode: -109,
    status: 400,
    description:
      'Processing the document needed more memory than the engine may use (the engines.*.maxMemory or engines.*.memoryLimit setting the message names); the document is too complex or malformed. Nothing was changed.',
  },
  CALL_CANCELLED: {
    errorCode: -110,
    status: 499,
    description:
      'The client closed the connection before the answer: the call was cancelled and its engine work stopped; nothing was changed. Only seen in the server log and statistics (the client is gone).',
  },
  PDF_PASSWORD_WRONG: { errorCode: -5008, status: 400, description: 'The password supplied for a protected PDF is wrong.' },
  PDF_PASSWORD_REQUIRED: { errorCode: -5009, status: 400, description: 'The PDF is password protected and no password was supplied.' },
  PDF_CERTIFICATE_REQUIRED: { errorCode: -5055, status: 400, description: 'The PDF is certificate encrypted and no key material was supplied.' },
  PDFA_PASSWORD_REQUIRED: {
    errorCode: -21,
    status: 400,
    description: "pdfa: the PDF is password protected and no password was supplied; send the call's password member (a wrong one: -5008). The code is the one the webPDF clients expect.",
  },
  PDFA_NOT_COMPLIANT: {
    errorCode: -170,
    status: 400,
    description:
      'pdfa convert: the result failed its PDF/A level in our validator, so it was not stored; the message names the failed rules (errorReport "message" appends the report, "file" returns it as a new document instead). The document is unchanged.',
  },
  PDFA_LEVEL_UNSUPPORTED: {
    errorCode: -171,
    status: 400,
    description:
      'pdfa convert: the level cannot be produced from this input by this server (an `a` level from untagged input; a `u` or `a` level with a font for which no Unicode mapping can be derived, named in the message; ZUGFeRD below PDF/A-3). The message says what to do instead. The document is unchanged.',
  },
  PDFA_EDIT_REFUSED: {
    errorCode: -173,
    status: 400,
    description:
      'toolbox with settings.pdfa.pdfaEditProfile "generalEditRestrictions": the edit would break the PDF/A conformance the document claims (our validator finds the result failing; the message names the rules). The document is unchanged.',
  },
  PDFA_VALIDATION_REFUSED: { errorCode: -172, status: 400, description: "The PDF/A validator cannot check the document: it is beyond the validator's limits (file size). Nothing was changed." },
  LOG_NOT_FOUND: { errorCode: -120, status: 404, description: 'The server has no log file for the requested day (none was written, or it is past log.retentionDays).' },
  LOG_RANGE_NOT_SATISFIABLE: { errorCode: -121, status: 416, description: 'The Range of a log request lies outside the log file; Content-Range: bytes */<size> gives its length.' },
  DATASTORE_NOT_FOUND: { errorCode: -125, status: 404, description: 'The administration data store has no generic file of this name.' },
  DATASTORE_FILE_TOO_LARGE: { errorCode: -126, status: 413, description: 'The file for the administration data store is larger than datastore.maxFileSize.' },
  DATASTORE_WRONG_TYPE: {
    errorCode: -127,
    status: 400,
    description: 'The file does not suit its data-store group: logo and background take images (PNG, JPEG, GIF, WebP, BMP, SVG), theme takes a JSON object or CSS text; or fileContent is not Base64.',
  },
  DATASTORE_NAME_INVALID: {
    errorCode: -128,
    status: 400,
    description: 'A generic data-store file needs a name of 1-128 letters, digits, dots, dashes and underscores that starts with a letter or digit (no paths).',
  },
  QUEUE_FULL: {
    errorCode: -140,
    status: 429,
    description: 'The work queue holds queue.maxPending waiting or running entries: synchronous and asynchronous calls are refused until it drains; retry after the Retry-After seconds.',
  },
  JOB_NOT_FOUND: {
    errorCode: -141,
    status: 404,
    description: 'No job with this id belongs to the session (it never existed, belongs to another session, or its result expired after queue.keepResults).',
  },
  DLQ_ENTRY_NOT_FOUND: { errorCode: -142, status: 404, description: 'The replay queue has no failed entry with this id.' },
  CALLBACK_URL_REFUSED: {
    errorCode: -143,
    status: 400,
    description: 'The webhook URL is not an absolute http(s) URL of at most 2048 characters without credentials, or it names an internal address that network.allowInternal / allowHosts do not allow.',
  },
  ASYNC_UNSUPPORTED: {
    errorCode: -144,
    status: 400,
    description: 'This call cannot run asynchronously (only web-service operations can: converter, toolbox, pdfa, signature, ocr, barcode, urlconverter).',
  },
  LOGIN_THROTTLED: {
    errorCode: -150,
    status: 429,
    description:
      'The login (or Basic credentials) was refused without checking the password: too many failed logins from this address, or for this user name from addresses it never logged in from, or too many password checks waiting (security.login settings). Retry after the Retry-After seconds.',
  },
  TOO_MANY_ANONYMOUS_SESSIONS: {
    errorCode: -151,
    status: 429,
    description: 'This address already holds security.anonymousSessionsPerAddress open anonymous sessions; log out of one or wait for it to expire.',
  },
  INSUFFICIENT_STORAGE: {
    errorCode: -152,
    status: 507,
    description: "The server's data disk is below its free-space floor (documents.minFreeSpace): new uploads and results are refused until space is freed.",
  },
  CONFIGURATION_INVALID: {
    errorCode: -130,
    status: 400,
    description:
      'A posted configuration has invalid values; nothing was saved. Reported in `Admin_ConfigurationResult.error` (HTTP 200), with every problem in `problems` (wire field, configuration key, reason).',
  },
  CONFIGURATION_CHECK_FAILED: {
    errorCode: -131,
    status: 400,
    description:
      'A check requested with a configuration failed (a configured executable is missing or does not print its version, a login or listener address does not work, a store folder is not writable); nothing was saved. Reported in `Admin_ConfigurationResult.error` (HTTP 200).',
  },
  CONFIGURATION_CHECK_UNSUPPORTED: {
    errorCode: -132,
    status: 400,
    description:
      'A check requested with a configuration cannot run on this server (timestamp authority, signature, user or log checks); nothing was saved. Reported in `Admin_ConfigurationResult.error` (HTTP 200).',
  },
  EXECUTABLE_UNAVAILABLE: {
    errorCode: -47,
    status: 400,
    description:
      "An executable check named a program that cannot exist on this server (webPDF's Windows-only Office and SharePoint bridges, an OCR engine Quire does not have); nothing was saved. Reported in `Admin_ConfigurationResult.error` (HTTP 200), the program in `executableError`.",
  },
  CONFIGURATION_WRITE_FAILED: {
    errorCode: -133,
    status: 500,
    description: 'The configuration file could not be read or written (permissions, disk); the running configuration is unchanged. Reported in `Admin_ConfigurationResult.error` (HTTP 200).',
  },
  JOB_NOT_CANCELLABLE: { errorCode: -145, status: 409, description: 'The job has started or finished already: only queued jobs can be cancelled (a running call cannot be stopped half-way).' },
  URL_MISSING: { errorCode: -58, status: 400, description: 'urlconverter was called without a URL (urlconverter.url is missing or empty).' },
  URL_REFUSED: {
    errorCode: -160,
    status: 400,
    description:
      'The URL (or a redirect of the page) is refused: not an absolute http(s) URL, or its host is or resolves to an internal address (loopback, private, link-local, ...) that network.allowInternal / network.allowHosts do not allow. The message names the address and why; nothing was fetched or stored.',
  },
  URL_UNREACHABLE: {
    errorCode: -161,
    status: 400,
    description: 'The web page could not be loaded: its host does not resolve, the connection failed, or it answered with an HTTP error status (the message says which); nothing was stored.',
  },
  URL_LIMIT: {
    errorCode: -162,
    status: 400,
    description: 'The web page passed a per-call limit of the urlconverter (urlconverter.maxBytes, maxRequests or maxPages, named in the message); nothing was stored.',
  },
  BARCODE_VALUE: {
    errorCode: -190,
    status: 400,
    description: "barcode: a value breaks its symbology's rules (digits only, length, check digit, alphabet, charset); the message names the item and the rule. Nothing was changed.",
  },
  OCR_RESOLUTION: {
    errorCode: -200,
    status: 400,
    description: 'ocr: an image of the input is below 200 dpi and checkResolution is on; the message names the page and the dpi found. Nothing was changed.',
  },
  OCR_WARNING: {
    errorCode: -201,
    status: 400,
    description: 'ocr: failOnWarning is on and the OCR had a warning (pages skipped because they have text, a page that yielded no text); the message lists them. Nothing was changed.',
  },
  OCR_FAILED: {
    errorCode: -202,
    status: 400,
    description: 'ocr: Tesseract could not recognise a page (an image it cannot read); the message says what it reported. Nothing was changed.',
  },
  OCR_LANGUAGE_MISSING: {
    errorCode: -203,
    status: 503,
    description: "ocr: the language's Tesseract data is not installed on this server (docs/ocr.md names the Debian package). Nothing was changed.",
  },
  PORTAL_NOT_BUILT: {
    errorCode: -210,
    status: 404,
    description: 'The web portal is not built on this server (npm run build writes dist/portal; server.portal.directory names another folder). The REST interface is unaffected.',
  },
  THUMBNAIL_UNSUPPORTED: {
    errorCode: -211,
    status: 400,
    description: 'The document has no page thumbnail: it is not a PDF (the portal shows its type instead).',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorName = keyof typeof Errors;

/** An expected failure: carries its catalogue entry and a message that is safe to show the client. */
export class QuireError extends Error {
  readonly definition: ErrorDefinition;
  readonly headers: Readonly<Record<string, string>>;

  constructor(name: ErrorName, message: string, options?: { cause?: unknown; headers?: Record<string, string> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = `QuireError(${name})`;
    this.definition = Errors[name];
    this.headers = options?.headers ?? {};
  }

  get status(): number {
    return this.definition.status;
  }

  get errorCode(): number {
    return this.definition.errorCode;
  }
}

/** The wire shape of an error (webPDF `Webservice_Exception`). */
export interface ExceptionBody {
  errorCode: number;
  errorMessage: string;
  stackTrace: string;
}

/** The `error` member of a DocumentFile that reports no problem. */
export const NO_ERROR: ExceptionBody = Object.freeze({ errorCode: 0, errorMessage: 'No error', stackTrace: '' });
