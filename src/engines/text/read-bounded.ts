import fs from 'node:fs/promises';

const CHUNK = 1024 * 1024;

/**
 * Reads a whole file, but never more than `maxBytes`: returns undefined when the file is larger.
 * The size is checked up front so an oversized file is refused without reading it, and again while
 * reading (one byte past the limit is asked for), because the file may have grown since.
 * File system errors (ENOENT, EISDIR...) are thrown as they are.
 */
export async function readBounded(path: string, maxBytes: number): Promise<Buffer | undefined> {
  const handle = await fs.open(path, 'r');
  try {
    if ((await handle.stat()).size > maxBytes) return undefined;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return undefined;
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}
