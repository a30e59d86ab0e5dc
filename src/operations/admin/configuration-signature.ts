import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/load.js';
import { REDACTED } from '../../config/redact.js';
import { KeyStoreError } from '../../engines/keystore/errors.js';
import { certificatesOf } from '../../engines/keystore/folder.js';
import { detectFormat, MAX_KEY_STORE_BYTES } from '../../engines/keystore/read.js';
import { readSigningKeyStore } from '../../engines/keystore/signing-keys.js';
import { KEY_STORE_DIR, keyStorePath } from '../../engines/keystore/spec.js';
import { writeFileAtomic } from '../../storage/atomic.js';
import { generatedStoreFiles } from '../signature/key-stores.js';
import { same, type ConfigurationFile, type FieldEdit, type FieldRow } from './configuration-fields.js';
import type { ConfigurationProblem, WireObject } from './configuration-wire.js';

/*
 * The signature settings of the application envelope: `configuration.keystore`
 * (`ApplicationConfig_Keystore`: type, password, per-key passwords `entry`, alias `filter`),
 * `globalKeyStore` (`Admin_KeyStore`: a new store's content in Base64; its certificates) and
 * `configuration.tsa` (`ApplicationConfig_Tsa`) are the `signature.keyStore.*` and `signature.tsa.*`
 * keys. Passwords read as "[redacted]" (posting that back keeps them), and the store's content is
 * never shown (it holds the private keys): `keyStoreContent` reads "" and a posted "" keeps the store.
 */

/** `keystore.type`: our NONE is the generated store; a PEM store (set in the file) has no wire name and reads NONE. */
const wireType = (c: Config) => (c.signature.keyStore.type === 'PEM' ? 'NONE' : c.signature.keyStore.type);

export const SIGNATURE_ROWS: FieldRow[] = [
  { field: 'keystore.type', read: wireType, writes: same('signature.keyStore.type') },
  { field: 'keystore.password', read: (c) => c.signature.keyStore.password, writes: same('signature.keyStore.password') },
  { field: 'tsa.url', read: (c) => c.signature.tsa.url, writes: same('signature.tsa.url') },
  { field: 'tsa.hashAlgorithm', read: (c) => c.signature.tsa.hashAlgorithm, writes: same('signature.tsa.hashAlgorithm') },
  { field: 'tsa.user', read: (c) => c.signature.tsa.user, writes: same('signature.tsa.user') },
  { field: 'tsa.password', read: (c) => c.signature.tsa.password, writes: same('signature.tsa.password') },
];

/** The lists of `configuration.keystore` (the scalar fields are rows), from the redacted configuration. */
export function readKeystoreLists(shown: Config): WireObject {
  return {
    entry: shown.signature.keyStore.entries.map((e) => ({ alias: e.alias, password: e.password })),
    filter: shown.signature.keyStore.filter.map((pattern) => ({ pattern })),
  };
}

/** `globalKeyStore`: never the content; the certificates of the store the signature service uses, as far as its password opens it. */
export function readGlobalKeyStore(config: Config): WireObject {
  const { keyStore } = config.signature;
  let content: Buffer | undefined;
  let password = keyStore.password;
  try {
    if (keyStore.type === 'NONE') {
      const files = generatedStoreFiles(config.dataDir);
      content = readFileSync(files.store);
      password = readFileSync(files.password, 'utf8').trim();
    } else if (keyStore.file !== '') {
      content = readFileSync(keyStorePath(config.dataDir, keyStore.file));
    }
  } catch {
    content = undefined; // not generated yet (the first signature does), or unreadable: no certificates to show
  }
  const certificates =
    content && content.length <= MAX_KEY_STORE_BYTES
      ? certificatesOf(content, [password]).map((c) => ({
          aliasName: c.alias,
          certificate: c.der.toString('base64'),
          hasPrivateKey: c.hasPrivateKey,
          isPrivateKeyReadable: false,
          keyStoreName: keyStore.name,
          keyStoreOrigin: 'global',
        }))
      : [];
  return { keyStoreContent: '', certificates };
}

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;
const CONTENT_FIELD = 'globalKeyStore.keyStoreContent';
/** Where a key store posted through the administration is kept (in <dataDir>/keystore, 0600). */
const GLOBAL_STORE_FILE = { JKS: 'signature-global.jks', PKCS12: 'signature-global.p12' } as const;

/**
 * What a posted application envelope changes of the signature settings besides the rows: the
 * `entry` and `filter` lists, and a new key store content. A list left out is unchanged; a listed
 * entry whose password reads "[redacted]" keeps its stored password. A new content must be a JKS or
 * PKCS#12 (the posted type) that the store password opens when one is set.
 */
export function signatureChanges(posted: WireObject, envelope: WireObject, config: Config, shown: Config): { edits: FieldEdit[]; problems: ConfigurationProblem[]; files: ConfigurationFile[] } {
  const edits: FieldEdit[] = [];
  const problems: ConfigurationProblem[] = [];
  const files: ConfigurationFile[] = [];
  const member = (posted.keystore ?? {}) as { entry?: unknown; filter?: unknown; type?: unknown; password?: unknown };
  const current = config.signature.keyStore;

  if (member.entry !== undefined) {
    const field = 'configuration.keystore.entry';
    if (!Array.isArray(member.entry)) problems.push({ field, key: 'signature.keyStore.entries', message: 'must be a list of {alias, password}' });
    else {
      const entries: { alias: string; password: string }[] = [];
      member.entry.forEach((item: unknown, i) => {
        const { alias, password } = (item ?? {}) as { alias?: unknown; password?: unknown };
        if (typeof alias !== 'string' || alias === '' || typeof password !== 'string') {
          problems.push({ field: `${field}.${i}`, key: 'signature.keyStore.entries', message: 'needs an alias and a password (strings)' });
          return;
        }
        const stored = current.entries.find((e) => e.alias.toLowerCase() === alias.toLowerCase());
        if (password === REDACTED && !stored) problems.push({ field: `${field}.${i}.password`, key: 'signature.keyStore.entries', message: `no password is stored for "${alias}"` });
        else entries.push({ alias, password: password === REDACTED ? stored!.password : password });
      });
      if (JSON.stringify(entries) !== JSON.stringify(current.entries.map((e) => ({ alias: e.alias, password: e.password })))) {
        edits.push({ field, key: ['signature', 'keyStore', 'entries'], value: entries });
      }
    }
  }

  if (member.filter !== undefined) {
    const field = 'configuration.keystore.filter';
    if (!Array.isArray(member.filter)) problems.push({ field, key: 'signature.keyStore.filter', message: 'must be a list of {pattern}' });
    else {
      const patterns: string[] = [];
      member.filter.forEach((item: unknown, i) => {
        const pattern = (item as { pattern?: unknown } | null)?.pattern;
        if (typeof pattern !== 'string' || pattern === '')
          return void problems.push({ field: `${field}.${i}.pattern`, key: 'signature.keyStore.filter', message: 'must be a non-empty regular expression' });
        try {
          new RegExp(pattern);
          patterns.push(pattern);
        } catch (error) {
          problems.push({ field: `${field}.${i}.pattern`, key: 'signature.keyStore.filter', message: `is not a regular expression: ${(error as Error).message}` });
        }
      });
      if (JSON.stringify(patterns) !== JSON.stringify(current.filter)) edits.push({ field, key: ['signature', 'keyStore', 'filter'], value: patterns });
    }
  }

  const text = (envelope.globalKeyStore as { keyStoreContent?: unknown } | null | undefined)?.keyStoreContent;
  if (typeof text === 'string' && text.trim() !== '') {
    const decoded = BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
    const type = typeof member.type === 'string' ? member.type : shown.signature.keyStore.type;
    const password = typeof member.password === 'string' && member.password !== REDACTED ? member.password : current.password;
    const format = decoded ? detectFormat(decoded) : undefined;
    if (!decoded || decoded.length === 0) problems.push({ field: CONTENT_FIELD, key: 'signature.keyStore', message: 'is not Base64' });
    else if (decoded.length > MAX_KEY_STORE_BYTES) problems.push({ field: CONTENT_FIELD, key: 'signature.keyStore', message: `is larger than ${MAX_KEY_STORE_BYTES} bytes: no key store is` });
    else if (type !== 'JKS' && type !== 'PKCS12') problems.push({ field: 'configuration.keystore.type', key: 'signature.keyStore.type', message: 'must be JKS or PKCS12 with a key store content' });
    else if (format !== 'JKS' && format !== 'PKCS12') problems.push({ field: CONTENT_FIELD, key: 'signature.keyStore', message: 'is not a JKS or PKCS#12 key store' });
    else {
      try {
        // Only a store its password opens is stored; without a password it is stored locked (sessions unlock it).
        if (password !== '') readSigningKeyStore(decoded, type, password, 'the key store');
        const name = GLOBAL_STORE_FILE[format];
        const file = path.join(config.dataDir, KEY_STORE_DIR, name);
        // Under signature.keyStore: applying it live gives the service new settings, which makes it read the store again.
        files.push({ field: CONTENT_FIELD, key: ['signature', 'keyStore', `file (${KEY_STORE_DIR}/${name})`], write: () => writeFileAtomic(file, decoded, 0o600, { dirMode: 0o700 }) });
        if (current.file !== name) edits.push({ field: CONTENT_FIELD, key: ['signature', 'keyStore', 'file'], value: name });
      } catch (error) {
        if (!(error instanceof KeyStoreError)) throw error;
        const where = error.kind === 'password' ? { field: 'configuration.keystore.password', key: 'signature.keyStore.password' } : { field: CONTENT_FIELD, key: 'signature.keyStore' };
        problems.push({ ...where, message: error.message });
      }
    }
  }
  return { edits, problems, files };
}
