import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { FileType } from '../../core/file-types.js';
import { UNKNOWN_FILE_TYPE, fileTypeByExtension, fileTypeByKey } from '../../core/file-types.js';
import { classifyCfb, readCfbDirectory } from './cfb.js';
import { clientExtension } from './names.js';
import { readAt } from './read-at.js';
import { TEXT_SNIFF_BYTES, classifyText, decodeText } from './text-sniff.js';

export { documentNames, sanitizeClientFileName } from './names.js';

/**
 * Format detection from content. The client's file name is consulted only where content cannot
 * decide between equivalent readings: plain text (txt vs csv vs md ...), bare markup (xml vs html),
 * and compound files whose directory is unreadable.
 *
 * All reads are bounded: file-type reads the few KB it needs, text sniffing reads 64 KB, the CFB
 * directory walk at most 512 KB, and the PDF rescue 1 KB at each end.
 */

/** file-type's `ext` → our key, for the results that map one to one. */
const FROM_FILE_TYPE: Readonly<Record<string, string>> = {
  pdf: 'pdf',
  docx: 'docx',
  docm: 'docm',
  dotx: 'dotx',
  dotm: 'dotm',
  odt: 'odt',
  ott: 'ott',
  rtf: 'rtf',
  xlsx: 'xlsx',
  xlsm: 'xlsm',
  xltx: 'xltx',
  xltm: 'xltm',
  ods: 'ods',
  ots: 'ots',
  pptx: 'pptx',
  pptm: 'pptm',
  potx: 'potx',
  potm: 'potm',
  ppsx: 'ppsx',
  ppsm: 'ppsm',
  odp: 'odp',
  otp: 'otp',
  png: 'png',
  apng: 'png',
  jpg: 'jpeg',
  gif: 'gif',
  bmp: 'bmp',
  tif: 'tiff',
  webp: 'webp',
  ico: 'ico',
  jp2: 'jp2',
  zip: 'zip',
  gz: 'gz',
  'tar.gz': 'gz',
  '7z': '7z',
  tar: 'tar',
  rar: 'rar',
  bz2: 'bz2',
  xz: 'xz',
  epub: 'epub',
  odg: 'odg',
  ps: 'ps',
  eps: 'eps',
};

/** Text types among which only the client's extension can choose. */
const TEXT_FAMILY = new Set(['txt', 'csv', 'tsv', 'md', 'json']);
/** Types a compound file can be resolved to from the client's extension when its directory is no help. */
const CFB_FALLBACK = new Set(['doc', 'xls', 'ppt', 'msg']);
/** Where an encrypted OOXML container may come from; the encrypted zip inside cannot be inspected. */
const ENCRYPTED_OOXML = new Set(['docx', 'docm', 'dotx', 'dotm', 'xlsx', 'xlsm', 'xltx', 'xltm', 'pptx', 'pptm', 'potx', 'potm', 'ppsx', 'ppsm']);

/** Some file-type signatures are two or three bytes, which ordinary text can start with ("BMW ...", "GIFs ..."). */
const CONFIRM_SIGNATURE: Readonly<Record<string, (head: Buffer) => boolean>> = {
  gif: (head) => /^GIF8[79]a/.test(head.toString('latin1', 0, 6)),
  bmp: (head) => head.length >= 18 && [12, 16, 40, 52, 56, 64, 108, 124].includes(head.readUInt32LE(14)),
};

/**
 * A file up to this size is read once and detected from memory. file-type walks an OOXML or ODF zip
 * entry by entry with reads of 4, 16 and 30 bytes: from the file, each was a trip through libuv's
 * thread pool (55 reads for a 4 KB docx, a third of all file operations of an upload-convert-download
 * -delete round; strace). One read serves them all, and the text sniffing's head with them.
 */
const WHOLE_FILE_BYTES = 256 * 1024;

export async function detectFormat(filePath: string, clientFileName?: string): Promise<FileType> {
  // Checked before opening: opening a FIFO would wait for a writer.
  const info = await stat(filePath);
  if (!info.isFile() || info.size === 0) return UNKNOWN_FILE_TYPE;
  const handle = await open(filePath, 'r');
  try {
    const extension = clientExtension(clientFileName);
    const whole = info.size <= WHOLE_FILE_BYTES ? await readAt(handle, 0, info.size) : undefined;
    // A file that changed size meanwhile is detected from what was read (the size it had is stale).
    const size = whole?.length ?? info.size;
    const detected = await fileTypeOf(whole ?? filePath);
    const headLength = Math.min(size, TEXT_SNIFF_BYTES);
    // The head is read lazily: most binary formats are settled by file-type alone.
    let head: Buffer | undefined = whole?.subarray(0, headLength);
    const readHead = async (): Promise<Buffer> => (head ??= await readAt(handle, 0, headLength));

    if (detected === 'cfb') return await resolveCfb(handle, size, extension);
    if (detected === 'xml') return fromText(await readHead(), size, extension, true);
    const key = detected === undefined ? undefined : FROM_FILE_TYPE[detected];
    if (key !== undefined) {
      const confirm = CONFIRM_SIGNATURE[key];
      if (!confirm || confirm(await readHead())) return fileTypeByKey(key);
    }
    // Nothing (or nothing we support) was recognised: FDF form data, text, a PDF with leading junk, or unknown.
    if ((await readHead()).toString('latin1', 0, 5) === '%FDF-') return fileTypeByKey('fdf');
    if (await isPdfWithPreamble(handle, size, await readHead())) return fileTypeByKey('pdf');
    return fromText(await readHead(), size, extension, false);
  } finally {
    await handle.close();
  }
}

/** file-type's verdict on a file or its bytes; its parser errors on malformed input mean "not recognised", not a failed upload. */
async function fileTypeOf(source: string | Buffer): Promise<string | undefined> {
  // Loaded with the first upload, not at server start: file-type and its tokenizer are ~30 modules.
  const { fileTypeFromBuffer, fileTypeFromFile } = await import('file-type');
  try {
    return (await (typeof source === 'string' ? fileTypeFromFile(source) : fileTypeFromBuffer(source)))?.ext;
  } catch {
    return undefined;
  }
}

async function resolveCfb(handle: FileHandle, size: number, extension: string): Promise<FileType> {
  const directory = await readCfbDirectory(handle, size);
  const kind = directory === undefined ? undefined : classifyCfb(directory);
  const claimed = fileTypeByExtension(extension);
  if (kind === 'encrypted-ooxml') {
    return claimed !== undefined && ENCRYPTED_OOXML.has(claimed.key) ? claimed : UNKNOWN_FILE_TYPE;
  }
  if (kind !== undefined) return fileTypeByKey(kind);
  return claimed !== undefined && CFB_FALLBACK.has(claimed.key) ? claimed : UNKNOWN_FILE_TYPE;
}

/**
 * Acrobat accepts "%PDF-" anywhere in the first 1024 bytes, and such files occur (a BOM or mail
 * header glued in front). Demand "%%EOF" near the end too, so a text that merely mentions
 * "%PDF-1.7" early on is not taken for a PDF.
 */
async function isPdfWithPreamble(handle: FileHandle, size: number, head: Buffer): Promise<boolean> {
  if (!/%PDF-\d\.\d/.test(head.toString('latin1', 0, 1024))) return false;
  const tailLength = Math.min(size, 1024);
  const tail = await readAt(handle, size - tailLength, tailLength);
  return tail.includes('%%EOF', 0, 'latin1');
}

/** Decides among the text types. `xmlSignature` means file-type already saw an XML declaration. */
function fromText(head: Buffer, size: number, extension: string, xmlSignature: boolean): FileType {
  const truncated = size > head.length;
  const text = decodeText(head, truncated);
  if (text === undefined) return xmlSignature ? fileTypeByKey('xml') : UNKNOWN_FILE_TYPE;
  const kind = classifyText(text, truncated);
  switch (kind) {
    case 'html':
    case 'svg':
    case 'xml':
    case 'eml':
      return fileTypeByKey(kind);
    case 'markup':
      // An element without prolog could be XML or an HTML fragment; the client's name decides.
      if (extension === 'xml') return fileTypeByKey('xml');
      if (fileTypeByExtension(extension)?.key === 'html') return fileTypeByKey('html');
      return textFamily(extension);
    case 'plain':
      return xmlSignature ? fileTypeByKey('xml') : textFamily(extension);
  }
}

function textFamily(extension: string): FileType {
  const claimed = fileTypeByExtension(extension);
  return claimed !== undefined && TEXT_FAMILY.has(claimed.key) ? claimed : fileTypeByKey('txt');
}
