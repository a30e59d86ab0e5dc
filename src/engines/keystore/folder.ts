import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { KeyStoreError } from './errors.js';
import { detectFormat, listCertificates, MAX_KEY_STORE_BYTES, type StoredCertificate } from './read.js';

/** At most this many key stores of a folder are listed (a folder of thousands is not an administration view). */
export const MAX_LISTED_KEY_STORES = 50;

/** A key store file as the administration shows it: its bytes and the certificates that could be read. */
export interface ListedKeyStore {
  name: string;
  content: Buffer;
  certificates: StoredCertificate[];
}

/** A plain file name in the key store folder: no directory part, no hidden or temporary file. */
export function isKeyStoreName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(name) && !name.endsWith('.tmp');
}

/**
 * The certificates of a key store's bytes for a listing: the first password that opens it (JKS
 * certificates are readable without one; a PEM file needs none); none when nothing opens it.
 */
export function certificatesOf(content: Buffer, passwords: readonly string[]): StoredCertificate[] {
  const format = detectFormat(content);
  if (format === undefined || format === 'JCEKS') return [];
  for (const password of [...passwords, '']) {
    try {
      return listCertificates(content, { type: format, password });
    } catch (error) {
      if (!(error instanceof KeyStoreError)) throw error;
    }
  }
  return [];
}

/** Reads one key store file for a listing; undefined when it is missing, unreadable or too large. */
export function readListedKeyStore(file: string, name: string, passwords: readonly string[]): ListedKeyStore | undefined {
  try {
    const stat = statSync(file);
    if (!stat.isFile() || stat.size > MAX_KEY_STORE_BYTES) return undefined;
    const content = readFileSync(file);
    if (content.length > MAX_KEY_STORE_BYTES) return undefined;
    return { name, content, certificates: certificatesOf(content, passwords) };
  } catch {
    return undefined;
  }
}

/**
 * Every key store in a folder (sorted by name, at most MAX_LISTED_KEY_STORES). Synchronous: the
 * administration's read of a configuration is, and a key store is a few kilobytes.
 */
export function listKeyStoreFolder(dir: string, passwords: readonly string[]): ListedKeyStore[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter(isKeyStoreName).sort().slice(0, MAX_LISTED_KEY_STORES);
  } catch {
    return [];
  }
  return names.map((name) => readListedKeyStore(path.join(dir, name), name, passwords)).filter((entry): entry is ListedKeyStore => entry !== undefined);
}
