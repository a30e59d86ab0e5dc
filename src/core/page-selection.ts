/**
 * The one parser of page selections, used by every web service that takes `pages`:
 *
 *   ""  or  "*"        every page
 *   "5"                one page
 *   "1-3"              a range (inclusive); "3-" runs to the last page
 *   "last", "2-last"   the last page by name
 *   "1-3,5,last"       a list, in the order given (duplicates are dropped)
 *
 * Parsing checks the syntax; resolving against a page count checks the range, so the message can
 * say how many pages the document has.
 */

export class PageSelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PageSelectionError';
  }
}

type Bound = number | 'last';

export interface PageSelection {
  /** Every page ("" or "*"). */
  readonly all: boolean;
  readonly ranges: readonly { from: Bound; to: Bound }[];
}

const ALL: PageSelection = Object.freeze({ all: true, ranges: Object.freeze([]) });
const MAX_TERMS = 10_000;

export function parsePageSelection(text: string): PageSelection {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '*') return ALL;
  const terms = trimmed.split(',').map((t) => t.trim());
  if (terms.length > MAX_TERMS) throw new PageSelectionError(`"${abbreviate(trimmed)}" lists more than ${MAX_TERMS} terms.`);
  const ranges = terms.map((term) => {
    const match = /^(\d+|last)(?:\s*(-)\s*(\d+|last)?)?$/i.exec(term);
    if (!match) throw new PageSelectionError(`"${abbreviate(term)}" is not a page, a range like 1-3, or "last".`);
    const from = bound(match[1]!);
    const to = match[2] === undefined ? from : match[3] === undefined ? 'last' : bound(match[3]);
    if (from === 0 || to === 0) throw new PageSelectionError('Pages are counted from 1.');
    if (typeof from === 'number' && typeof to === 'number' && from > to) {
      throw new PageSelectionError(`The range ${term} starts after it ends.`);
    }
    if (from === 'last' && to !== 'last') throw new PageSelectionError(`The range ${term} starts after it ends.`);
    return { from, to };
  });
  return { all: false, ranges };
}

/** Whether the selection is every page of any document. */
export function selectsAll(selection: PageSelection): boolean {
  return selection.all || selection.ranges.some((r) => r.from === 1 && r.to === 'last');
}

/** The selected page numbers (1-based), in order, without duplicates; throws when a page is out of range. */
export function resolvePageSelection(selection: PageSelection, pageCount: number): number[] {
  // The list has one entry per page: the count must be the document's real one (engines/pdf/page-count.ts),
  // never a count a file declares, or a lying file sizes the allocation (issue 11).
  if (!Number.isSafeInteger(pageCount) || pageCount < 0) throw new RangeError(`resolvePageSelection: ${pageCount} is not a page count`);
  if (selection.all) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const seen = new Set<number>();
  const pages: number[] = [];
  for (const range of selection.ranges) {
    const from = range.from === 'last' ? pageCount : range.from;
    const to = range.to === 'last' ? pageCount : range.to;
    const worst = Math.max(from, to);
    if (worst > pageCount) {
      throw new PageSelectionError(`Page ${worst} is out of range: the document has ${pageCount} page${pageCount === 1 ? '' : 's'}.`);
    }
    for (let page = from; page <= to; page++) {
      if (!seen.has(page)) {
        seen.add(page);
        pages.push(page);
      }
    }
  }
  return pages;
}

/** A compact range text ("1-3,5") of page numbers, as qpdf and Chromium take it. */
export function formatPageList(pages: readonly number[]): string {
  const parts: string[] = [];
  let start = pages[0];
  let previous = start;
  for (let i = 1; i <= pages.length; i++) {
    const page = pages[i];
    if (page !== undefined && previous !== undefined && page === previous + 1) {
      previous = page;
      continue;
    }
    if (start !== undefined && previous !== undefined) parts.push(start === previous ? `${start}` : `${start}-${previous}`);
    start = page;
    previous = page;
  }
  return parts.join(',');
}

function bound(text: string): Bound {
  return text.toLowerCase() === 'last' ? 'last' : Number(text);
}

function abbreviate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
