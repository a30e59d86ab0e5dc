import { open, readFile } from 'node:fs/promises';
import { PDFDocument } from '@cantoo/pdf-lib';
import { EngineError } from '../engine-error.js';

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
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(await readFile(path), { updateMetadata: false, throwOnInvalidObject: false });
    // pdf-lib accepts any bytes after "%PDF-"; a document must at least have a page tree.
    document.getPageCount();
  } catch (error) {
    throw new PdfLibError('unreadable', `The PDF cannot be read: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
  return document;
}

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
