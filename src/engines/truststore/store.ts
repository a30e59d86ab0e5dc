import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { MAX_TRUST_STORE_BYTES } from './read.js';

/**
 * Where the trust store lives: one fixed name in the data dir's key folder. The name the
 * administration gives it (`truststore.file`) is only shown: a client never chooses a path.
 */
export function trustStorePath(dataDir: string): string {
  return path.join(dataDir, 'keys', 'truststore');
}

/**
 * The stored trust store's bytes, or undefined when there is none. Synchronous (the configuration
 * GET reads it); bounded by MAX_TRUST_STORE_BYTES whatever the file's size says.
 */
export function readStoredTrustStore(dataDir: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(trustStorePath(dataDir), 'r');
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(MAX_TRUST_STORE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return length > MAX_TRUST_STORE_BYTES ? undefined : buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** Replaces the trust store so that a reader (or a crash) sees the old or the new one: temporary file (0600), flush, rename, directory flush. */
export async function writeTrustStore(dataDir: string, content: Buffer): Promise<void> {
  const file = trustStorePath(dataDir);
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(dir, `.truststore-${randomBytes(6).toString('hex')}`);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function removeTrustStore(dataDir: string): Promise<void> {
  await rm(trustStorePath(dataDir), { force: true });
}
