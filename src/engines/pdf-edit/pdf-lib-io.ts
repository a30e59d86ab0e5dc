import { open, readFile } from 'node:fs/promises';
import {
  CorruptPageTreeError,
  IndexOutOfBoundsError,
  InvalidPDFDateStringError,
  InvalidTargetIndexError,
  MissingCatalogError,
  MissingDAEntryError,
  MissingTfOperatorError,
  NumberParsingError,
  PDFArrayIsNotRectangleError,
  PDFDocument,
  PDFParsingError,
  ReparseError,
  UnexpectedObjectTypeError,
  UnrecognizedStreamTypeError,
  UnsupportedEncodingError,
} from '@cantoo/pdf-lib';
import { firstLine, PdfLibError, registerDocumentErrors } from './pdf-lib-error.js';
import { FieldTreeError, normaliseFieldTree } from './field-tree.js';
import { normalisePageTree, PageTreeError } from './page-tree.js';
import { checkObjectStreams, StreamTooLargeError } from './stream-bounds.js';

/**
 * Loading and saving with @cantoo/pdf-lib (MIT), for operations that edit content or structure
 * objects qpdf cannot (annotations, outlines, forms, drawing). pdf-lib holds the whole document in
 * memory: the toolbox uses it for edits, and qpdf for structural work on large files.
 */
// The error and the fault test live in pdf-lib-error.ts, which the error tables load without pdf-lib.
export { firstLine, isPdfLibFault, PdfLibError, type PdfLibErrorKind } from './pdf-lib-error.js';

/** Documents larger than this are refused for in-memory editing. */
export const MAX_IN_MEMORY_PDF_BYTES = 512 * 1024 * 1024;

/** Loads a (decrypted) PDF for editing. */
export async function loadPdf(path: string, options: { maxBytes?: number } = {}): Promise<PDFDocument> {
  const limit = options.maxBytes ?? MAX_IN_MEMORY_PDF_BYTES;
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > limit) throw new PdfLibError('tooLarge', `The PDF is larger than ${Math.round(limit / 1048576)} MB, the limit for editing its content.`);
  } finally {
    await handle.close();
  }
  try {
    return await parsePdf(await readFile(path));
  } catch (error) {
    throw new PdfLibError('unreadable', `The PDF cannot be read: ${firstLine(error)}`, { cause: error });
  }
}

/**
 * pdf-lib's document of PDF bytes, made safe to work on: object streams that would expand beyond
 * their budget are refused before pdf-lib expands them (stream-bounds.ts), and the page tree is
 * checked and normalised (page-tree.ts). Throws whatever went wrong; `loadPdf` says "unreadable".
 */
export async function parsePdf(bytes: Buffer, options: { throwOnInvalidObject?: boolean } = {}): Promise<PDFDocument> {
  checkObjectStreams(bytes);
  const document = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: options.throwOnInvalidObject ?? false });
  // pdf-lib accepts any bytes after "%PDF-"; a document must at least have a page tree, and one
  // pdf-lib can walk without looping (and that shows the pages qpdf counts): see page-tree.ts.
  normalisePageTree(document);
  normaliseFieldTree(document);
  document.getPageCount();
  return document;
}

/** pdf-lib's error classes that mean "the document is not what pdf-lib expected". */
const DOCUMENT_ERRORS = [
  UnexpectedObjectTypeError,
  PDFParsingError,
  NumberParsingError,
  MissingCatalogError,
  ReparseError,
  UnrecognizedStreamTypeError,
  PDFArrayIsNotRectangleError,
  InvalidPDFDateStringError,
  InvalidTargetIndexError,
  CorruptPageTreeError,
  IndexOutOfBoundsError,
  MissingDAEntryError,
  MissingTfOperatorError,
  UnsupportedEncodingError,
  PageTreeError,
  FieldTreeError,
  StreamTooLargeError,
];
registerDocumentErrors(DOCUMENT_ERRORS);

/** Saves to a file; object streams keep the result small. */
export async function savePdf(document: PDFDocument, path: string, options: { objectStreams?: boolean } = {}): Promise<void> {
  const bytes = await document.save({ useObjectStreams: options.objectStreams ?? true, updateFieldAppearances: false });
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}
