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
import { EngineError } from '../engine-error.js';
import { FieldTreeError, normaliseFieldTree } from './field-tree.js';
import { normalisePageTree, PageTreeError } from './page-tree.js';
import { checkObjectStreams, StreamTooLargeError } from './stream-bounds.js';

/**
 * Loading and saving with @cantoo/pdf-lib (MIT), for operations that edit content or structure
 * objects qpdf cannot (annotations, outlines, forms, drawing). pdf-lib holds the whole document in
 * memory: the toolbox uses it for edits, and qpdf for structural work on large files.
 */
export type PdfLibErrorKind = 'unreadable' | 'tooLarge';

export class PdfLibError extends EngineError<PdfLibErrorKind> {}

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

/**
 * Whether an error was raised by pdf-lib itself while it read the document's objects: one of its own
 * error classes, or any error thrown from inside its code (a TypeError on an object of an unexpected
 * shape, a failed range assertion, a stack overflow on a deep structure). pdf-lib reads objects
 * lazily, long after loading, so such failures surface in the middle of an edit; they are the
 * document's fault (a 4xx), not the server's. The toolbox maps them at its engine boundary.
 */
export function isPdfLibFault(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (DOCUMENT_ERRORS.some((type) => error instanceof type)) return true;
  // The frames below the message line; only those with a source location say whose code threw.
  const frames = (error.stack ?? '').split('\n').slice(1).filter((line) => /\(?\/|file:/.test(line));
  const inLibrary = (line: string) => /[\\/]@cantoo[\\/]pdf-lib[\\/]/.test(line);
  if (error instanceof RangeError && /call stack/i.test(error.message)) return frames.some(inLibrary);
  return frames.length > 0 && inLibrary(frames[0]!);
}

/** The first line of an error's message (pdf-lib's messages can carry dumps of objects). */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);
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
