import { copyFile, stat } from 'node:fs/promises';
import { QuireError } from '../../../core/errors.js';
import { fileTypeByKey } from '../../../core/file-types.js';
import { unsafeNameReason } from '../../../engines/archive/index.js';
import { reorderPages } from '../../../engines/pdf/structure/assemble.js';
import { qpdfRange } from '../../../engines/pdf/structure/page-ranges.js';
import { splitPages } from '../../../engines/pdf/structure/split.js';
import { zipParts } from '../../../engines/pdf/structure/zip-parts.js';
import type { ToolboxOperation } from '../operation.js';
import { requirePage, selectPages } from '../pages.js';
import type { SplitOptions } from './split.schema.js';

const ZIP = fileTypeByKey('zip');
const PDF = fileTypeByKey('pdf');
/** Bytes a part adds beyond its share of the input (its own header, page tree, trailer, cross-reference table). */
const PART_OVERHEAD = 16 * 1024;

/**
 * `split` (the modes as webPDF documents them):
 *
 * - `last`: pages 1 to the page in `pages` — one PDF;
 * - `first`: the page in `pages` to the end — one PDF;
 * - `list`: the pages listed in `pages`, in that order — one PDF;
 * - `single`: each page listed in `pages` as its own PDF — a ZIP;
 * - `each`: every n-th page (n = `pages`) from `startPage`, each its own PDF — a ZIP;
 * - `group`: parts of n pages (n = `pages`) from `startPage` — a ZIP;
 * - `burst`: every page as its own PDF — a ZIP (`pages` and `startPage` do not apply).
 *
 * ZIP members are named by `fileNameTemplate`, "%d" replaced with the (first) page number of the part
 * in the original document, ".pdf" added. With `singleFileAsZip` false a ZIP mode that yields one
 * part returns that PDF itself (reference §5.4). One qpdf run writes all parts (into memory scratch
 * when they are small: see MemoryScratch); the ZIP stores them as they are, one in memory at a time.
 */
export const splitOperation: ToolboxOperation<SplitOptions> = {
  name: 'split',
  needsPdf: true,
  async run(input, options, context, field) {
    const { mode } = options;
    const qpdf = context.engines.qpdf;
    const count = await context.engines.rewriter.pageCount(input.path, context.call);
    const pagesField = `${field}.pages`;

    if (mode === 'last' || mode === 'first' || mode === 'list') {
      let pages: number[];
      if (mode === 'list') pages = selectPages(options.pages, count, pagesField);
      else {
        const page = singlePage(options.pages, count, pagesField, mode);
        pages = mode === 'last' ? range(1, page) : range(page, count);
      }
      const output = context.scratch('pdf');
      await reorderPages(qpdf, input.path, qpdfRange(pages), output, context.call);
      return { path: output, type: PDF };
    }

    let pages: number[];
    let groupSize = 1;
    if (mode === 'burst') pages = range(1, count);
    else if (mode === 'single') pages = selectPages(options.pages, count, pagesField);
    else {
      const n = interval(options.pages, pagesField, mode);
      const start = requirePage(options.startPage, count, `${field}.startPage`);
      if (mode === 'each') pages = range(start, count).filter((page) => (page - start) % n === 0);
      else {
        pages = range(start, count);
        groupSize = n;
      }
    }

    if (pages.length === 0) throw new QuireError('PARAMETER', `Invalid parameter ${field}: the document has no pages to split.`);
    const parts = Math.ceil(pages.length / groupSize);
    const template = options.fileNameTemplate;
    const asZip = options.singleFileAsZip !== false || parts !== 1;
    if (asZip) checkTemplate(template, parts, `${field}.fileNameTemplate`);
    // Parts repeat the resources they share (fonts, images): estimate generously, with a floor per part.
    const inputBytes = (await stat(input.path)).size;
    const estimate = Math.max(2 * inputBytes, inputBytes + parts * PART_OVERHEAD);
    return context.inFastDirectory(estimate, async (dir) => {
      const written = await splitPages(qpdf, input.path, dir, pages, groupSize, count, context.call);
      if (!asZip) {
        // The single part must outlive the memory directory: it becomes the call's result.
        const output = context.scratch('pdf');
        await copyFile(written[0]!.file, output);
        return { path: output, type: PDF };
      }
      const output = context.scratch('zip');
      await zipParts(
        written.map((part) => ({ name: memberName(template, part.pages[0]!), file: part.file })),
        output,
      );
      return { path: output, type: ZIP };
    });
  },
};

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

/** last/first take one page ("5", "last"). */
function singlePage(text: string, count: number, field: string, mode: string): number {
  const pages = selectPages(text, count, field);
  if (pages.length !== 1) throw new QuireError('PARAMETER', `Invalid parameter ${field}: mode "${mode}" takes one page (e.g. "3" or "last"), not "${text}".`);
  return pages[0]!;
}

/** each/group take a count of pages ("2"). */
function interval(text: string, field: string, mode: string): number {
  const trimmed = text.trim();
  const n = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new QuireError('PARAMETER', `Invalid parameter ${field}: mode "${mode}" takes a number of pages (e.g. "2"), not "${text}".`);
  return n;
}

function memberName(template: string, page: number): string {
  const name = template.replaceAll('%d', String(page));
  return /\.pdf$/i.test(name) ? name : `${name}.pdf`;
}

function checkTemplate(template: string, parts: number, field: string): void {
  if (parts > 1 && !template.includes('%d')) {
    throw new QuireError('PARAMETER', `Invalid parameter ${field}: "${template}" needs "%d" (the page number) to name ${parts} files apart.`);
  }
  const reason = unsafeNameReason(memberName(template, 1));
  if (reason !== undefined) throw new QuireError('PARAMETER', `Invalid parameter ${field}: "${template}" does not give a safe file name (${reason}).`);
}
