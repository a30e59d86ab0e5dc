import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { StructureError } from './errors.js';
import { qpdfRange } from './page-ranges.js';

/**
 * Splits pages of a document into parts of `groupSize` consecutive (selected) pages with qpdf's
 * `--split-pages=<n>`: one qpdf run writes all parts, each a complete PDF with the document-level
 * data of the original. All pages in order go straight to `--split-pages`; a selection goes through
 * `--pages . <selection> --` first, which costs qpdf a copy of the selected pages.
 *
 * One process, not several over slices: a slice costs more than its share (every process reads
 * the document's structure and copies its pages), so on a busy server the CPU is better spent on
 * other requests than on finishing this one a little sooner.
 */
export interface SplitPart {
  file: string;
  /** The original page numbers in the part, in order. */
  pages: number[];
}

export async function splitPages(qpdf: PdfStructureTool, input: string, outDir: string, pages: readonly number[], groupSize: number, pageCount: number, call: QpdfCall): Promise<SplitPart[]> {
  const groups: number[][] = [];
  for (let i = 0; i < pages.length; i += groupSize) groups.push(pages.slice(i, i + groupSize));
  await mkdir(outDir, { recursive: true });
  const whole = pages.length === pageCount && pages.every((page, i) => page === i + 1);
  const selection = whole ? [] : ['--pages', '.', qpdfRange(pages), '--'];
  await qpdf.run([input, ...selection, `--split-pages=${groupSize}`, path.join(outDir, 'part-%d.pdf')], call);
  // qpdf names the parts by their (zero-padded) page numbers in the selection: sort numerically.
  const names = (await readdir(outDir)).filter((name) => name.endsWith('.pdf'));
  const order = (name: string) => Number(/^part-(\d+)/.exec(name)?.[1] ?? Number.NaN);
  names.sort((a, b) => order(a) - order(b));
  // qpdf could not make every page it counted into a part: pages it cannot read (damage).
  if (names.length !== groups.length) throw new StructureError('unreadable', `qpdf wrote ${names.length} parts where ${groups.length} were expected: some pages cannot be read`);
  return names.map((name, i) => ({ file: path.join(outDir, name), pages: groups[i]! }));
}
