/**
 * The file type table: every format Quire can recognise from a document's content.
 *
 * THE NUMERIC IDS ARE A PUBLIC, STABLE CONTRACT. They are sent to clients as `fileTypeId` and may be
 * stored by them, so an id must never be renumbered, reused or removed. Add new types in a free slot
 * of their family (or in a new range); never move an existing one.
 *
 * Id ranges, one per family, with room left to grow:
 *   0       unknown
 *   1       pdf
 *   10-19   word processing         20-29   spreadsheets           30-39   presentations
 *   40-59   images                  60-69   text and markup        70-79   mail
 *   80-89   archives                90-99   other documents
 *
 * `extension` is the canonical extension (no dot, lower case); `aliases` are other extensions that
 * name the very same format (same MIME type), e.g. `jpg` for `jpeg` or `dot` for the binary `doc`.
 * `groups` are lower-case tags that engines use to pick a converter; a type may carry several.
 */
export interface FileType {
  readonly id: number;
  readonly key: string;
  readonly extension: string;
  readonly aliases: readonly string[];
  readonly mimeType: string;
  readonly groups: readonly string[];
}

function type(id: number, key: string, mimeType: string, groups: readonly string[], aliases: readonly string[] = []): FileType {
  return Object.freeze({ id, key, extension: key, aliases: Object.freeze([...aliases]), mimeType, groups: Object.freeze([...groups]) });
}

const WORD = ['office', 'word', 'wordprocessing'];
const ODF_TEXT = ['office', 'opendocument', 'wordprocessing'];
const EXCEL = ['office', 'excel', 'spreadsheet'];
const ODF_SHEET = ['office', 'opendocument', 'spreadsheet'];
const POWERPOINT = ['office', 'powerpoint', 'presentation'];
const ODF_SLIDES = ['office', 'opendocument', 'presentation'];

export const UNKNOWN_FILE_TYPE: FileType = Object.freeze({
  id: 0,
  key: 'unknown',
  extension: '',
  aliases: Object.freeze([]),
  mimeType: 'application/octet-stream',
  groups: Object.freeze([]),
});

export const FILE_TYPES: readonly FileType[] = Object.freeze([
  type(1, 'pdf', 'application/pdf', ['pdf']),

  // 10-19 word processing. Binary Word templates (.dot) share the MIME type of .doc, so they are an alias.
  type(10, 'doc', 'application/msword', WORD, ['dot']),
  type(11, 'docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', WORD),
  type(12, 'odt', 'application/vnd.oasis.opendocument.text', ODF_TEXT),
  type(13, 'rtf', 'application/rtf', WORD),
  type(14, 'dotx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.template', WORD),
  type(15, 'docm', 'application/vnd.ms-word.document.macroEnabled.12', WORD),
  type(16, 'dotm', 'application/vnd.ms-word.template.macroEnabled.12', WORD),
  type(17, 'ott', 'application/vnd.oasis.opendocument.text-template', ODF_TEXT),

  // 20-29 spreadsheets
  type(20, 'xls', 'application/vnd.ms-excel', EXCEL, ['xlt']),
  type(21, 'xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', EXCEL),
  type(22, 'ods', 'application/vnd.oasis.opendocument.spreadsheet', ODF_SHEET),
  type(23, 'csv', 'text/csv', ['text', 'spreadsheet']),
  type(24, 'xltx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.template', EXCEL),
  type(25, 'xlsm', 'application/vnd.ms-excel.sheet.macroEnabled.12', EXCEL),
  type(26, 'xltm', 'application/vnd.ms-excel.template.macroEnabled.12', EXCEL),
  type(27, 'ots', 'application/vnd.oasis.opendocument.spreadsheet-template', ODF_SHEET),
  type(28, 'tsv', 'text/tab-separated-values', ['text', 'spreadsheet'], ['tab']),

  // 30-39 presentations. Binary templates (.pot) and shows (.pps) share the MIME type of .ppt.
  type(30, 'ppt', 'application/vnd.ms-powerpoint', POWERPOINT, ['pot', 'pps']),
  type(31, 'pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', POWERPOINT),
  type(32, 'odp', 'application/vnd.oasis.opendocument.presentation', ODF_SLIDES),
  type(33, 'potx', 'application/vnd.openxmlformats-officedocument.presentationml.template', POWERPOINT),
  type(34, 'pptm', 'application/vnd.ms-powerpoint.presentation.macroEnabled.12', POWERPOINT),
  type(35, 'potm', 'application/vnd.ms-powerpoint.template.macroEnabled.12', POWERPOINT),
  type(36, 'ppsx', 'application/vnd.openxmlformats-officedocument.presentationml.slideshow', POWERPOINT),
  type(37, 'ppsm', 'application/vnd.ms-powerpoint.slideshow.macroEnabled.12', POWERPOINT),
  type(38, 'otp', 'application/vnd.oasis.opendocument.presentation-template', ODF_SLIDES),

  // 40-59 images
  type(40, 'png', 'image/png', ['image']),
  type(41, 'jpeg', 'image/jpeg', ['image'], ['jpg', 'jpe', 'jfif']),
  type(42, 'gif', 'image/gif', ['image']),
  type(43, 'bmp', 'image/bmp', ['image'], ['dib']),
  type(44, 'tiff', 'image/tiff', ['image'], ['tif']),
  type(45, 'webp', 'image/webp', ['image']),
  type(46, 'svg', 'image/svg+xml', ['image', 'xml']),
  type(47, 'ico', 'image/vnd.microsoft.icon', ['image']),
  type(48, 'jp2', 'image/jp2', ['image']),

  // 60-69 text and markup
  type(60, 'txt', 'text/plain', ['text'], ['text', 'log']),
  type(61, 'html', 'text/html', ['text', 'html'], ['htm', 'xhtml', 'xht']),
  type(62, 'xml', 'application/xml', ['text', 'xml']),
  type(63, 'json', 'application/json', ['text']),
  type(64, 'md', 'text/markdown', ['text'], ['markdown']),

  // 70-79 mail
  type(70, 'eml', 'message/rfc822', ['mail']),
  type(71, 'msg', 'application/vnd.ms-outlook', ['mail']),

  // 80-89 archives
  type(80, 'zip', 'application/zip', ['archive']),
  type(81, 'gz', 'application/gzip', ['archive'], ['gzip', 'tgz']),
  type(82, '7z', 'application/x-7z-compressed', ['archive']),
  type(83, 'tar', 'application/x-tar', ['archive']),
  type(84, 'rar', 'application/vnd.rar', ['archive']),
  type(85, 'bz2', 'application/x-bzip2', ['archive'], ['bzip2']),
  type(86, 'xz', 'application/x-xz', ['archive']),

  // 90-99 other documents
  type(90, 'epub', 'application/epub+zip', ['ebook']),
  type(91, 'odg', 'application/vnd.oasis.opendocument.graphics', ['office', 'opendocument', 'drawing']),
  type(92, 'ps', 'application/postscript', ['postscript']),
  type(93, 'eps', 'application/postscript', ['postscript', 'image'], ['epsf']),
  type(94, 'fdf', 'application/vnd.fdf', ['forms']),
]);

const byKey = new Map<string, FileType>([[UNKNOWN_FILE_TYPE.key, UNKNOWN_FILE_TYPE]]);
const byId = new Map<number, FileType>([[UNKNOWN_FILE_TYPE.id, UNKNOWN_FILE_TYPE]]);
const byExtension = new Map<string, FileType>();
for (const fileType of FILE_TYPES) {
  // A duplicate would make lookups ambiguous; fail at startup rather than misreport ids.
  if (byKey.has(fileType.key) || byId.has(fileType.id)) throw new Error(`duplicate file type ${fileType.key}/${fileType.id}`);
  byKey.set(fileType.key, fileType);
  byId.set(fileType.id, fileType);
  for (const extension of [fileType.extension, ...fileType.aliases]) {
    if (byExtension.has(extension)) throw new Error(`extension ${extension} claimed twice`);
    byExtension.set(extension, fileType);
  }
}

/** The type with this key (`unknown` included); throws for a key that is not in the table. */
export function fileTypeByKey(key: string): FileType {
  const found = byKey.get(key);
  if (!found) throw new Error(`unknown file type key: ${key}`);
  return found;
}

/** The type with this id (0 gives UNKNOWN_FILE_TYPE), or undefined. */
export function fileTypeById(id: number): FileType | undefined {
  return byId.get(id);
}

/** The type whose canonical extension or alias this is (case-insensitive, leading dot allowed), or undefined. */
export function fileTypeByExtension(extension: string): FileType | undefined {
  return byExtension.get(extension.replace(/^\./, '').toLowerCase());
}

/** A stored document's type in a message: "a docx", or "of unknown type". */
export function describeType(type: FileType): string {
  return type.key === 'unknown' ? 'of unknown type' : `a ${type.key}`;
}
