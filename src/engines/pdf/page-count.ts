import { PdfEngineError } from './errors.js';
import type { QpdfCall } from './qpdf.js';
import type { PdfStructureTool } from '../contracts.js';

/**
 * How many pages a PDF has, and which objects they are: the one place that answers it.
 *
 * The page tree's root declares a /Count, and `qpdf --show-npages` prints exactly that number — a
 * 576-byte file declaring 2147483647 pages made the server size arrays from it and die (issue 11).
 * So the count is never read from the file: `qpdf --show-pages` walks the real tree (with qpdf's
 * repairs: a page listed twice is copied, a loop is an error) and the pages it lists are counted.
 * The walk costs ~26 µs per page on top of the ~7 ms process start (10,000 pages: ~270 ms against
 * ~40 ms for the declared count); the operations that follow walk the same tree again anyway.
 *
 * `--json-key=pages` would list the pages too, but qpdf 11.3 then follows each page's outline items,
 * and an outline cycle makes it grow without bound (issue 11, defect 2); `--show-pages` does not
 * touch outlines.
 */
export interface PageList {
  /** The real number of pages. */
  count: number;
  /** The /Count the page tree's root declares (NaN when it is not a number qpdf can read); for repairs only. */
  declared: number;
  /** The page objects ("12 0 R") in order, at most `maxRefs` of them. */
  refs: string[];
  /** qpdf had to repair something on the way (exit status 3: its warnings are in stderr). */
  warnings: boolean;
}

/** Bound of qpdf's listing (~40 bytes per page and a line per content stream): ~1.5 million pages. */
const MAX_LISTING_BYTES = 64 * 1024 * 1024;
/**
 * "page 12: 34 0 R" at the start of a line (the indented lines below it name the page's content
 * streams). Every such line is a page, whatever qpdf shows for the object ("-9 0 R" for a kid it
 * could not resolve): qpdf counts it, and its page operations number the pages that way.
 */
const PAGE_LINE = /^page \d+: (.*)$/gm;
/** Copies of pages listed more than once that a document may need (qpdf makes them, see below). */
export const MAX_PAGE_COPIES = 1000;
/** qpdf's warning for a page object listed again in the tree (it then copies the page). */
const DUPLICATE_PAGE = 'appears more than once in the pages tree';

export async function listPages(qpdf: PdfStructureTool, file: string, call: QpdfCall, options: { maxRefs?: number } = {}): Promise<PageList> {
  const maxRefs = options.maxRefs ?? Number.POSITIVE_INFINITY;
  let result;
  try {
    // --show-npages prints the declared count as the first line, for free.
    result = await qpdf.run(['--show-npages', '--show-pages', file], { ...call, maxOutputBytes: MAX_LISTING_BYTES });
  } catch (error) {
    if (error instanceof PdfEngineError && error.kind === 'outputTooLarge') {
      throw new PdfEngineError('outputTooLarge', 'The PDF has more pages than this server can list.', { detail: error.detail, cause: error });
    }
    throw error;
  }
  const text = result.stdout.toString('latin1');
  const declared = /^(-?\d+)\n/.exec(text)?.[1];
  const refs: string[] = [];
  let count = 0;
  for (const match of text.matchAll(PAGE_LINE)) {
    if (count < maxRefs) refs.push(match[1]!);
    count++;
  }
  const copies = result.warnings ? result.stderr.split(DUPLICATE_PAGE).length - 1 : 0;
  // A kilobyte-sized file that lists one page ten thousand times: qpdf copies it that often (its page
  // assembly then slows down with the square of the pages), every reader lists the copies. The pages
  // a file can hold are capped by the page objects it has; no real document repeats them like that.
  if (copies > MAX_PAGE_COPIES) {
    throw new PdfEngineError('invalidPdf', `The page tree lists the same page objects more than ${MAX_PAGE_COPIES} times over.`, { detail: result.stderr.slice(-4000) });
  }
  return { count, declared: declared === undefined ? Number.NaN : Number(declared), refs, warnings: result.warnings };
}

/** The real number of pages of the PDF (see above): never the /Count it declares. */
export async function countPages(qpdf: PdfStructureTool, file: string, call: QpdfCall): Promise<number> {
  return (await listPages(qpdf, file, call, { maxRefs: 0 })).count;
}
