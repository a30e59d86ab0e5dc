import { open } from 'node:fs/promises';
import { QuireError } from '../../core/errors.js';

/** Where a reader looks for the header and for the end-of-file marker (ISO 32000-1 §7.5.2, §7.5.5 as readers apply them). */
const WINDOW = 1024;

/**
 * The last word before a PDF result is committed: does the file look like a whole PDF — `%PDF-` in
 * its first kilobyte and `%%EOF` in its last? The engines that write our PDFs (qpdf, Ghostscript,
 * LibreOffice, Chromium, pdf-lib, our writers) always end with the marker; a file without it is what
 * a crashed, killed or faulty engine leaves (cut short, or not a PDF at all), and storing it would
 * replace a good document with a broken one. Two small reads, no engine: it costs nothing per call.
 * (It does not prove the PDF sound; the engines that wrote it are trusted for that.)
 */
export async function requireCompletePdf(file: string, what: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(WINDOW, size));
    await handle.read(head, 0, head.length, 0);
    const tail = Buffer.alloc(Math.min(WINDOW, size));
    await handle.read(tail, 0, tail.length, size - tail.length);
    if (head.includes('%PDF-') && tail.includes('%%EOF')) return;
    const problem = !head.includes('%PDF-') ? 'it is not a PDF' : 'it ends before the end of the PDF (cut short)';
    throw new QuireError('CONVERSION_FAILED', `The ${what} produced a broken result (${problem}); nothing was stored and the document is unchanged.`);
  } finally {
    await handle.close();
  }
}
