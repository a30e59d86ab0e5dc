import { PdfEngineError } from '../errors.js';
import { countPages } from '../page-count.js';
import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';

/**
 * A new page sequence from a base document and other PDFs, with `qpdf base --pages … -- out`: the
 * base stays the primary input, so its document-level data (metadata, outlines, AcroForm, page
 * labels, viewer settings) carries over, and qpdf copies the other files' pages with their
 * resources, annotations and form fields. qpdf streams: no file is held in memory.
 */
export interface PagePart {
  /** A source file, or `base` for pages of the base document. */
  file: string | 'base';
  /** Pages in qpdf's range syntax ("1-3", "5-z", "9-7"); absent: all pages. */
  pages?: string;
}

export async function assemblePages(qpdf: PdfStructureTool, base: string, parts: readonly PagePart[], output: string, call: QpdfCall): Promise<void> {
  const args = [base, '--pages'];
  for (const part of parts) {
    args.push(part.file === 'base' ? '.' : part.file);
    if (part.pages !== undefined) args.push(part.pages);
  }
  args.push('--', output);
  try {
    await qpdf.run(args, call);
  } catch (error) {
    // A base without pages (the start of toolbox/new) cannot be named as a page source: qpdf fails on
    // its empty page list. Only then is it worth counting pages; the common case costs no extra run.
    if (!(error instanceof PdfEngineError) || !parts.some((p) => p.file === 'base' && p.pages === undefined)) throw error;
    const count = await countPages(qpdf, base, call);
    if (count !== 0) throw error;
    const rest = parts.filter((p) => p.file !== 'base');
    if (rest.length === 0) throw error;
    await assemblePages(qpdf, base, rest, output, call);
  }
}

/** Pages of one document in a new order (move, list): a rewrite with a page selection. */
export async function reorderPages(qpdf: PdfStructureTool, input: string, pages: string, output: string, call: QpdfCall): Promise<void> {
  await qpdf.run([input, '--pages', '.', pages, '--', output], call);
}
