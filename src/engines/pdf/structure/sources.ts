import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { extractEntries } from '../../archive/index.js';
import type { ArchiveLimits } from '../../archive/index.js';
import { baseName } from '../../archive/names.js';
import { classifyFailure } from '../qpdf.js';
import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { readEncryptDictionary } from '../trailer-reader.js';
import { StructureError } from './errors.js';
import { mayContain, scanForKeys } from './token-scan.js';

/**
 * Getting PDFs ready to be merged: taken out of a ZIP archive (with the archive engine's guards
 * against zip bombs, unsafe names and nested archives), recognised by their header, and decrypted
 * when protected, so that qpdf can copy their pages.
 */
export interface PdfFile {
  file: string;
  /** The entry's base name without ".pdf", or the document's name. */
  title: string;
}

/** The %PDF- header within the first KiB (where readers look for it). */
export async function looksLikePdf(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead).includes('%PDF-');
  } finally {
    await handle.close();
  }
}

/**
 * The PDF members of a ZIP archive, in archive order, each written to `scratch()`. Folders and macOS
 * resource forks (`__MACOSX/`) are passed over; any other member that is not a PDF is refused
 * (`invalidOption`, naming it), as is an archive without PDFs.
 */
export async function pdfsFromZip(zipFile: string, scratch: () => string, limits: Partial<ArchiveLimits>, label: string): Promise<PdfFile[]> {
  const files: PdfFile[] = [];
  await extractEntries(zipFile, {
    filter: { excludeRules: [{ ruleType: 'glob', rulePattern: '__MACOSX/**' }] },
    limits,
    onEntry: async (entry, content) => {
      const file = scratch();
      await pipeline(content, createWriteStream(file, { mode: 0o600 }));
      files.push({ file, title: baseName(entry.path).replace(/\.pdf$/i, '') });
    },
  });
  if (files.length === 0) throw new StructureError('invalidOption', `${label}: the ZIP archive holds no PDF.`);
  for (const [index, pdf] of files.entries()) {
    if (!(await looksLikePdf(pdf.file))) throw new StructureError('invalidOption', `${label}: ZIP entry ${index + 1} (${JSON.stringify(pdf.title)}) is not a PDF.`);
  }
  return files;
}

/** A source ready for qpdf, and whether it may have bookmarks (a byte scan says most have none). */
export interface UnlockedSource {
  file: string;
  mayHaveOutlines: boolean;
}

/**
 * The file itself when it is not encrypted, else a decrypted copy at `output` (opened with
 * `password`, "" for documents that open without one). Throws qpdf's `passwordRequired` /
 * `passwordWrong` when the password does not open it.
 *
 * One read of the bytes answers both questions for most files: a file without the bytes "/Encrypt"
 * is not encrypted (the key sits in the trailer, which is never compressed), and one without
 * "/Outlines" (in the clear or in its object streams) has no bookmarks.
 */
export async function unlockedSource(qpdf: PdfStructureTool, file: string, password: string, output: string, call: QpdfCall): Promise<UnlockedSource> {
  const scan = await scanForKeys(file, ['/Encrypt', '/Outlines']);
  const mayHaveOutlines = mayContain(scan, '/Outlines');
  if (!mayContain(scan, '/Encrypt')) return { file, mayHaveOutlines };
  const lookup = await readEncryptDictionary(file);
  let encrypted = lookup.status === 'found';
  if (lookup.status === 'unreadable') {
    // Damaged or unusual cross-reference data: qpdf has the last word (exit 0 encrypted, 2 not;
    // it also exits 2 when it cannot open the file at all, and then says so on stderr).
    const result = await qpdf.raw(['--is-encrypted', file], call);
    if ((result.exitCode !== 0 && result.exitCode !== 2) || /^qpdf: /m.test(result.stderr)) throw classifyFailure({ ...result, exitCode: 2 });
    encrypted = result.exitCode === 0;
  }
  if (!encrypted) return { file, mayHaveOutlines };
  await qpdf.run(['--decrypt', file, output], { ...call, password });
  // Object streams of an encrypted file are encrypted too: the scan could not look into them.
  return { file: output, mayHaveOutlines: mayHaveOutlines || scan?.uncertain !== false };
}
