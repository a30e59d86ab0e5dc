import type { WriteStream } from 'node:fs';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';

// The atomic write is in core, so that the configuration layer writes its file with it too.
export { syncDirectory, writeFileAtomic } from '../core/atomic-write.js';

/**
 * Removes a temporary file that a write stream was filling. The stream is destroyed first and its
 * close awaited: an `fs.WriteStream` opens its file asynchronously, so removing the path while the
 * open is still in flight would let the open re-create the file afterwards and leak it.
 */
export async function discardPartialFile(stream: WriteStream, file: string): Promise<void> {
  if (!stream.closed) {
    const closed = once(stream, 'close').catch(() => undefined);
    stream.destroy();
    await closed;
  }
  await rm(file, { force: true });
}
