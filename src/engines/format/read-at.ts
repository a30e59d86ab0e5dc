import type { FileHandle } from 'node:fs/promises';

/**
 * Reads up to `length` bytes at `position`. Returns fewer bytes only at end of file, because a
 * single `read()` may legally return a short count even in the middle of a file.
 */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}
