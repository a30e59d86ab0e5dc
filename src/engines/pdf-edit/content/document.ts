import type { PDFDocument } from '@cantoo/pdf-lib';
import { loadPdf, savePdf } from '../pdf-lib-io.js';
import { PdfContentError } from './errors.js';

/**
 * Loads `input`, lets `edit` change it, saves to `output`. The edit says whether it removed
 * content: pdf-lib writes every object it holds, so the caller then rewrites the file with qpdf to
 * drop the orphans.
 */
export async function editDocument(input: string, output: string, edit: (document: PDFDocument) => Promise<void | { removed: boolean }>): Promise<{ removed: boolean }> {
  const document = await loadPdf(input);
  // pdf-lib "loads" any bytes after %PDF-; without a catalog and page tree there is nothing to edit.
  try {
    document.getPageCount();
  } catch (error) {
    throw new PdfContentError('damaged', 'the PDF has no readable catalog or page tree.', { cause: error });
  }
  const outcome = await edit(document);
  await savePdf(document, output);
  return { removed: outcome?.removed ?? false };
}
