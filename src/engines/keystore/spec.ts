import path from 'node:path';
import type { Config } from '../../config/load.js';
import type { KeyStoreSpec } from './read.js';

/** Where key stores named without a directory live, like webPDF's keystore folder. */
export const KEY_STORE_DIR = 'keystore';

/** A configured key store path: absolute as written, relative inside `<dataDir>/keystore`. */
export function keyStorePath(dataDir: string, file: string): string {
  return path.isAbsolute(file) ? file : path.join(dataDir, KEY_STORE_DIR, file);
}

/** The HTTPS listener's key store with its paths resolved. */
export function httpsKeyStoreSpec(config: Pick<Config, 'dataDir' | 'https'>): KeyStoreSpec {
  const { keyStore } = config.https;
  return {
    type: keyStore.type,
    file: keyStorePath(config.dataDir, keyStore.file),
    keyFile: keyStore.keyFile === '' ? '' : keyStorePath(config.dataDir, keyStore.keyFile),
    password: keyStore.password,
    alias: keyStore.alias,
  };
}

/**
 * Whether a missing key store may be generated: only inside the data dir's key store folder. A
 * missing file elsewhere is an operator's path that is wrong, and a self-signed certificate in its
 * place would hide that.
 */
export function isGeneratable(dataDir: string, file: string): boolean {
  const relative = path.relative(path.join(dataDir, KEY_STORE_DIR), file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
