import { stat } from 'node:fs/promises';
import type { PdfRewriter } from '../pdf/rewriter.js';
import { IN_PROCESS_BYTES } from '../signature/document.js';

/** What the document transaction's protection steps (operations/transaction/protection.ts) ask of the PDF tool. */
type ProtectionTool = Pick<PdfRewriter, 'isEncrypted' | 'decrypt' | 'repaired' | 'copyEncryption'>;

/**
 * The PDF tool of the barcode transaction: qpdf's (PdfRewriter), except that `repaired` first asks
 * the bounded in-process COS reader (engines/pdfa-validator/cos, as the signature engine does) whether
 * the file needs qpdf at all. `repaired` exists so that pdf-lib and poppler, which recover less, never
 * see a file qpdf would repair: a page tree whose root declares a wrong /Count, or damage qpdf recovers
 * from while walking the pages. A file of at most 8 MB that the COS reader reads without repairing,
 * reconstructing or reaching a limit (`cleanlyRead`), whose page tree is regular (`cosPageRefs`: the
 * irregularities qpdf repairs or warns about make it undefined) and whose root /Count is the number
 * of pages found, is one qpdf would hand back as it is: it is used as it is without starting qpdf
 * (a fork of the server and a walk of the file: on 500 pages as long as qpdf copying the file). Every
 * other file — larger, damaged, irregular, miscounted — goes to qpdf exactly as before.
 */
export class CleanInputTool implements ProtectionTool {
  constructor(private readonly qpdf: ProtectionTool) {}

  isEncrypted(input: string, options: { deadline?: number } = {}): Promise<boolean> {
    return this.qpdf.isEncrypted(input, options);
  }

  decrypt(input: string, output: string, options: { password?: string; deadline?: number } = {}): Promise<void> {
    return this.qpdf.decrypt(input, output, options);
  }

  copyEncryption(input: string, original: string, output: string, options: { password?: string; deadline?: number } = {}): Promise<void> {
    return this.qpdf.copyEncryption(input, original, output, options);
  }

  async repaired(input: string, output: string, options: { deadline?: number } = {}): Promise<string> {
    if (await readsCleanly(input)) return input;
    return this.qpdf.repaired(input, output, options);
  }
}

/** Whether the COS reader reads `file` cleanly, its page tree regular and its root /Count true (clean-cos.ts). */
export async function readsCleanly(file: string): Promise<boolean> {
  if ((await stat(file)).size > IN_PROCESS_BYTES) return false;
  // Loaded at the first call that needs it (docs/ARCHITECTURE.md: heavy engine parts load on first use).
  const { openCleanlyFile } = await import('./clean-cos.js');
  return (await openCleanlyFile(file)) !== undefined;
}
