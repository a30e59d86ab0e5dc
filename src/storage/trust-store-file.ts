import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic.js';

/**
 * Where the trust store lives: one fixed name in the data dir's key folder. The name the
 * administration gives it (`truststore.file`) is only shown: a client never chooses a path.
 */
export function trustStorePath(dataDir: string): string {
  return path.join(dataDir, 'keys', 'truststore');
}

/**
 * The stored trust store's bytes, or undefined when there is none. Synchronous (the configuration
 * GET reads it); bounded by `maxBytes` whatever the file's size says (undefined when larger).
 */
export function readStoredTrustStore(dataDir: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(trustStorePath(dataDir), 'r');
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return length > maxBytes ? undefined : buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** Replaces the trust store so that a reader (or a crash) sees the old or the new one (mode 0600). */
export async function writeTrustStore(dataDir: string, content: Buffer): Promise<void> {
  await writeFileAtomic(trustStorePath(dataDir), content, 0o600, { durable: true, dirMode: 0o700 });
}

export async function removeTrustStore(dataDir: string): Promise<void> {
  await rm(trustStorePath(dataDir), { force: true });
}
