import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * A small data file another package installs (Ghostscript's glyph list, poppler-data's CMaps), read
 * synchronously because it is needed in the middle of a synchronous parse, once per process. Undefined when
 * it is missing, unreadable or larger than `maxBytes` (then it is not the file expected and is not read).
 */
export function readDataFileSync(file: string, maxBytes: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    if (size > maxBytes) return undefined;
    const buf = Buffer.alloc(size);
    return buf.subarray(0, readSync(fd, buf, 0, size, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
