/**
 * Page lists in qpdf's range syntax. qpdf takes pages in the order given and accepts descending
 * ranges ("9-7" is 9, 8, 7), so any order compresses into runs: "1-3,9-7,12".
 */
export function qpdfRange(pages: readonly number[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < pages.length) {
    const start = pages[i]!;
    let end = start;
    let j = i + 1;
    const next = pages[j];
    const step = next === start + 1 ? 1 : next === start - 1 ? -1 : 0;
    if (step !== 0) {
      while (pages[j] === end + step) {
        end += step;
        j++;
      }
    }
    parts.push(start === end ? `${start}` : `${start}-${end}`);
    i = j;
  }
  return parts.join(',');
}
