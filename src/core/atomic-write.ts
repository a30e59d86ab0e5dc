import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes a file so that readers see either the old or the new content, never a part: the data goes
 * to a temporary file in the same directory, is flushed to disk, and is renamed over the target.
 * `durable`: the directory is flushed too, so that the rename survives a crash; `dirMode`: the mode of
 * a directory it creates; `exactMode`: the file gets `mode` as it is, not narrowed by the umask (a copy
 * that keeps its original's mode).
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o644, options: { durable?: boolean; dirMode?: number; exactMode?: boolean } = {}): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, ...(options.dirMode === undefined ? {} : { mode: options.dirMode }) });
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      if (options.exactMode) await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  if (options.durable) await syncDirectory(dir);
}

/** Makes renames and new files in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
