/**
 * poppler's tools take a page range (-f/-l), the toolbox takes any selection ("5,1-3,9"). A
 * selection becomes runs of consecutive pages, one tool call each; a selection scattered over many
 * runs is first copied into a PDF of just those pages (qpdf, by the caller's `subset`), which the
 * tool then reads in one call.
 */
export interface PageRun {
  /** The PDF to read: the input, or the subset copy. */
  file: string;
  first: number;
  last: number;
  /** The page numbers of the original document that first..last stand for. */
  pages: number[];
}

export async function planRuns(input: string, pages: readonly number[], subset: (pages: readonly number[]) => Promise<string>, maxRuns = 16): Promise<PageRun[]> {
  const runs: PageRun[] = [];
  for (const page of pages) {
    const current = runs[runs.length - 1];
    if (current && page === current.last + 1) {
      current.last = page;
      current.pages.push(page);
    } else {
      runs.push({ file: input, first: page, last: page, pages: [page] });
    }
  }
  if (runs.length <= maxRuns) return runs;
  return [{ file: await subset(pages), first: 1, last: pages.length, pages: [...pages] }];
}
