import { writeFile } from 'node:fs/promises';
import type { QDict } from '../../pdf/qpdf-json.js';
import type { PdfUpdate } from './pdf-objects.js';

/**
 * The cover sheet of a portfolio built from an empty document: one A4 page that says what the file
 * is. A PDF needs at least one page, and viewers without portfolio support show this page.
 */
const LINES: readonly { size: number; text: string }[] = [
  { size: 24, text: 'This PDF is a portfolio' },
  { size: 12, text: 'It holds embedded files, possibly organised in folders. Open it in a PDF viewer' },
  { size: 12, text: 'that supports portfolios (for example Adobe Acrobat Reader) to see and open them.' },
];

/** Adds the cover page under the (empty) page tree root `pagesRef` and rewrites that root. */
export async function addCoverPage(update: PdfUpdate, pagesRef: string, pagesDict: QDict, contentFile: string): Promise<void> {
  let y = 760;
  const operations: string[] = [];
  for (const line of LINES) {
    operations.push(`BT /F1 ${line.size} Tf 72 ${y} Td (${escape(line.text)}) Tj ET`);
    y -= line.size === 24 ? 40 : 18;
  }
  await writeFile(contentFile, `${operations.join('\n')}\n`, 'latin1');
  const contents = update.addStream({}, contentFile);
  const font = update.add({ '/Type': '/Font', '/Subtype': '/Type1', '/BaseFont': '/Helvetica', '/Encoding': '/WinAnsiEncoding' });
  const page = update.add({
    '/Type': '/Page',
    '/Parent': pagesRef,
    '/MediaBox': [0, 0, 595.28, 841.89],
    '/Resources': { '/Font': { '/F1': font }, '/ProcSet': ['/PDF', '/Text'] },
    '/Contents': contents,
  });
  update.set(pagesRef, { ...pagesDict, '/Type': '/Pages', '/Kids': [page], '/Count': 1 });
}

function escape(value: string): string {
  return value.replace(/[\\()]/g, (c) => `\\${c}`);
}
