import type { PDFDocument } from '@cantoo/pdf-lib';
import { QuireError } from '../../../core/errors.js';
import { EngineError } from '../../engine-error.js';
import { firstLine, isPdfLibFault, loadPdf, PdfLibError, savePdf } from '../pdf-lib-io.js';
import { PdfEditError } from './errors.js';
import { dropUnreachableObjects } from './garbage.js';

export interface EditLimits {
  /** Epoch milliseconds; pdf-lib works in-process and cannot be interrupted, so it is checked between the steps. */
  deadline?: number;
}

/**
 * Loads `input`, lets `edit` change the document, drops what became unreachable and saves to
 * `output` (`input` is never written). A failure inside pdf-lib that is none of ours (a damaged
 * structure it cannot walk) becomes a `failed` engine error instead of an internal error.
 */
export async function editPdf<T>(input: string, output: string, edit: (document: PDFDocument) => Promise<T> | T, limits: EditLimits = {}): Promise<T> {
  const document = await loadReadable(input);
  checkDeadline(limits, 'loading');
  let result: T;
  try {
    result = await edit(document);
    dropUnreachableObjects(document);
  } catch (error) {
    throw wrap(error, 'editing');
  }
  checkDeadline(limits, 'editing');
  try {
    await savePdf(document, output);
  } catch (error) {
    throw wrap(error, 'saving');
  }
  return result;
}

/** Runs a read-only look at the document (no save). */
export async function readPdf<T>(input: string, read: (document: PDFDocument) => Promise<T> | T, limits: EditLimits = {}): Promise<T> {
  const document = await loadReadable(input);
  checkDeadline(limits, 'loading');
  try {
    return await read(document);
  } catch (error) {
    throw wrap(error, 'reading');
  }
}

function checkDeadline(limits: EditLimits, stage: string): void {
  if (limits.deadline !== undefined && Date.now() > limits.deadline) {
    throw new PdfEditError('timeout', `The time limit of the call passed while ${stage} the PDF.`);
  }
}

/**
 * pdf-lib parses leniently: from a damaged file it can return a document without a catalog or page
 * tree, which would fail later in odd places. Such a file is unreadable (-7), as qpdf would say.
 */
async function loadReadable(input: string): Promise<PDFDocument> {
  const document = await loadPdf(input);
  try {
    if (!document.catalog) throw new Error('no document catalog');
    document.getPages();
  } catch (error) {
    throw new PdfLibError('unreadable', `The PDF cannot be read: ${(error as Error).message}`, { cause: error });
  }
  return document;
}

function wrap(error: unknown, stage: string): unknown {
  if (error instanceof QuireError || error instanceof EngineError) return error;
  if (isPdfLibFault(error)) return new PdfLibError('unreadable', `The PDF cannot be read: ${firstLine(error)}`, { cause: error });
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new PdfEditError('failed', `The PDF's structure could not be processed while ${stage} it: ${message}`, { cause: error });
}
