import { open } from 'node:fs/promises';
import { readAt } from '../format/read-at.js';

/**
 * Positioned reads over a file or a buffer, so that the header readers (JPEG, PNG, TIFF) read only the
 * few bytes they need and work the same on a file and on sharp's output.
 */
export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

export function bufferSource(data: Buffer): ReadAt {
  return async (offset, length) => data.subarray(offset, offset + length);
}

/** Runs `use` with a reader over the file, closing the file afterwards. */
export async function withFileSource<T>(file: string, use: (read: ReadAt, size: number) => Promise<T>): Promise<T> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    return await use((offset, length) => readAt(handle, offset, Math.max(0, Math.min(length, size - offset))), size);
  } finally {
    await handle.close();
  }
}
