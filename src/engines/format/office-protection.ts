import { open } from 'node:fs/promises';
import { openEntry } from '../archive/index.js';
import { CFB_SIGNATURE, classifyCfb, readCfbDirectory } from './cfb.js';

const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/**
 * Whether an Office document is encrypted with a password. LibreOffice only says "cannot load" for
 * such a file when no (or a wrong) password is given, so the converter asks this to tell the client
 * what is missing. Recognised: password-protected OOXML (a compound file holding EncryptionInfo and
 * EncryptedPackage) and OpenDocument files whose manifest carries encryption data. Legacy binary
 * .doc/.xls/.ppt encryption is not recognised (the flag sits inside the document streams).
 */
export async function isPasswordProtectedOffice(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  let head: Buffer;
  let size: number;
  try {
    size = (await handle.stat()).size;
    head = Buffer.alloc(8);
    await handle.read(head, 0, 8, 0);
    if (head.equals(CFB_SIGNATURE)) {
      const directory = await readCfbDirectory(handle, size);
      return directory !== undefined && classifyCfb(directory) === 'encrypted-ooxml';
    }
  } finally {
    await handle.close();
  }
  if (head.readUInt32LE(0) !== 0x04034b50) return false;
  try {
    const { stream } = await openEntry(file, 'META-INF/manifest.xml');
    let text = '';
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      text += chunk.toString('utf8');
      if (text.includes('encryption-data')) {
        stream.destroy();
        return true;
      }
      if (text.length > MAX_MANIFEST_BYTES) {
        stream.destroy();
        break;
      }
    }
    return false;
  } catch {
    return false; // not an OpenDocument package
  }
}
