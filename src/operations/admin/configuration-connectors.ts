import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/load.js';
import { REDACTED } from '../../config/redact.js';
import { KeyStoreError } from '../../engines/keystore/errors.js';
import { isKeyStoreName, listKeyStoreFolder, readListedKeyStore, type ListedKeyStore } from '../../engines/keystore/folder.js';
import { detectFormat, KEY_STORE_TYPES, MAX_KEY_STORE_BYTES, parseKeyStore, type KeyStoreType, type StoredCertificate } from '../../engines/keystore/read.js';
import { isGeneratable, KEY_STORE_DIR, keyStorePath } from '../../engines/keystore/spec.js';
import { same, type ConfigurationFile, type FieldEdit, type FieldRow } from './configuration-fields.js';
import { getPath, setPath, type ConfigurationProblem, type WireObject } from './configuration-wire.js';
import { writeFileAtomic } from '../../storage/atomic.js';

/*
 * The HTTPS listener as webPDF's second connector (`connectors.connector[1]`, ServerConfig_Connector
 * with its ServerConfig_SSL), and the key stores of `<dataDir>/keystore` as the envelope's
 * `connectorKeyStore` map (file name → content and certificates). What the administration writes
 * here goes to the https.* keys and into the key store folder; it takes effect at the next start.
 */

const HTTPS = 'connectors.connector.1';

export const HTTPS_CONNECTOR_ROWS: FieldRow[] = [
  { field: `${HTTPS}.enabled`, read: (c) => c.https.enabled, writes: same('https.enabled') },
  { field: `${HTTPS}.protocol`, read: () => 'HTTP/1.1' },
  { field: `${HTTPS}.address`, read: (c) => c.https.host || c.server.host, writes: same('https.host') },
  { field: `${HTTPS}.port`, read: (c) => c.https.port, writes: same('https.port') },
  { field: `${HTTPS}.ssl.scheme`, read: () => 'https' },
  { field: `${HTTPS}.ssl.clientAuth`, read: () => false },
  { field: `${HTTPS}.ssl.ciphers.forceOrder`, read: () => true },
  { field: `${HTTPS}.ssl.keystore.type`, read: (c) => c.https.keyStore.type, writes: same('https.keyStore.type') },
  { field: `${HTTPS}.ssl.keystore.file`, read: (c) => c.https.keyStore.file, writes: same('https.keyStore.file') },
  { field: `${HTTPS}.ssl.keystore.password`, read: (c) => c.https.keyStore.password, writes: same('https.keyStore.password') },
  { field: `${HTTPS}.ssl.keystore.alias`, read: (c) => c.https.keyStore.alias, writes: same('https.keyStore.alias') },
];

const PROTOCOLS = `${HTTPS}.ssl.protocols.protocol`;
const CIPHERS = `${HTTPS}.ssl.ciphers.cipher`;

/** The members of connector[1] that are lists (the rows hold scalars). */
export function readHttpsConnectorLists(configuration: WireObject, shown: Config): void {
  setPath(configuration, PROTOCOLS, shown.https.minVersion === 'TLSv1.2' ? ['TLSv1.2', 'TLSv1.3'] : ['TLSv1.3']);
  setPath(configuration, CIPHERS, shown.https.ciphers ? shown.https.ciphers.split(':') : []);
}

/** `Certificate_Entry` of a certificate in a connector key store. */
function certificateEntry(certificate: StoredCertificate, keyStoreName: string) {
  return {
    aliasName: certificate.alias,
    certificate: certificate.der.toString('base64'),
    hasPrivateKey: certificate.hasPrivateKey,
    isPrivateKeyReadable: certificate.hasPrivateKey,
    keyStoreName,
    keyStoreOrigin: 'global',
  };
}

/** A PEM private key that is not encrypted never leaves the server, not even to an administrator. */
const PLAIN_PEM_KEY = /-----BEGIN (RSA |EC )?PRIVATE KEY-----/;

/**
 * `connectorKeyStore`: every key store in `<dataDir>/keystore` (and the configured one when it lies
 * elsewhere), with its Base64 content and the certificates the configured password (or none) opens.
 */
export function readConnectorKeyStores(config: Config): WireObject {
  const password = config.https.keyStore.password;
  const dir = path.join(config.dataDir, KEY_STORE_DIR);
  const listed: ListedKeyStore[] = listKeyStoreFolder(dir, [password]);
  const configured = keyStorePath(config.dataDir, config.https.keyStore.file);
  if (path.dirname(configured) !== dir) {
    const outside = readListedKeyStore(configured, config.https.keyStore.file, [password]);
    if (outside) listed.push(outside);
  }
  return Object.fromEntries(
    listed.map((store) => [
      store.name,
      {
        keyStoreContent: detectFormat(store.content) === 'PEM' && PLAIN_PEM_KEY.test(store.content.toString('latin1')) ? '' : store.content.toString('base64'),
        certificates: store.certificates.map((c) => certificateEntry(c, store.name)),
      },
    ]),
  );
}

export interface ConnectorChanges {
  edits: FieldEdit[];
  problems: ConfigurationProblem[];
  files: ConfigurationFile[];
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * What a posted envelope changes beyond the rows: the TLS protocol list (https.minVersion), the
 * cipher list, and key store contents (written into `<dataDir>/keystore` before the configuration
 * file). The key store the connector will use is opened with the posted settings: a store that would
 * not serve is a problem of the envelope, not a server that fails its next start.
 */
export async function httpsConnectorChanges(posted: WireObject, envelope: WireObject, config: Config, shown: Config, rowEdits: readonly FieldEdit[]): Promise<ConnectorChanges> {
  const edits: FieldEdit[] = [];
  const problems: ConfigurationProblem[] = [];
  const files: ConfigurationFile[] = [];

  const protocols = getPath(posted, PROTOCOLS);
  if (Array.isArray(protocols)) {
    const field = `configuration.${PROTOCOLS}`;
    if (protocols.some((p) => p === 'TLSv1' || p === 'TLSv1.1')) problems.push({ field, key: 'https.minVersion', message: 'TLS 1.0 and 1.1 are not offered: TLSv1.2 and TLSv1.3 only' });
    else {
      const minVersion = protocols.includes('TLSv1.2') ? 'TLSv1.2' : protocols.includes('TLSv1.3') ? 'TLSv1.3' : undefined;
      if (!minVersion) problems.push({ field, key: 'https.minVersion', message: 'names no TLS version (TLSv1.2, TLSv1.3)' });
      else if (minVersion !== config.https.minVersion) edits.push({ field, key: ['https', 'minVersion'], value: minVersion });
    }
  }
  const ciphers = getPath(posted, CIPHERS);
  if (Array.isArray(ciphers) && ciphers.join(':') !== shown.https.ciphers) {
    edits.push({ field: `configuration.${CIPHERS}`, key: ['https', 'ciphers'], value: ciphers.map(String).join(':') });
  }

  // Key store contents: only new or changed bytes count; an absent or empty content leaves the file as it is.
  const stores = envelope.connectorKeyStore;
  const contents = new Map<string, Buffer>();
  if (stores && typeof stores === 'object') {
    for (const [name, entry] of Object.entries(stores as Record<string, unknown>)) {
      const text = (entry as { keyStoreContent?: unknown } | null)?.keyStoreContent;
      if (typeof text !== 'string' || text.trim() === '') continue;
      const field = `connectorKeyStore.${name}.keyStoreContent`;
      if (!isKeyStoreName(name)) {
        problems.push({ field, key: 'https.keyStore.file', message: 'a key store is stored in <dataDir>/keystore under a plain file name (letters, digits, ".", "_", "-")' });
        continue;
      }
      const content = BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
      if (!content || content.length === 0) {
        problems.push({ field, key: 'https.keyStore.file', message: 'is not Base64' });
        continue;
      }
      if (content.length > MAX_KEY_STORE_BYTES) {
        problems.push({ field, key: 'https.keyStore.file', message: `is larger than ${MAX_KEY_STORE_BYTES} bytes: no key store is` });
        continue;
      }
      const format = detectFormat(content);
      if (format === undefined || format === 'JCEKS') {
        problems.push({ field, key: 'https.keyStore.file', message: 'is neither a JKS, a PKCS#12 nor a PEM file' });
        continue;
      }
      const file = path.join(config.dataDir, KEY_STORE_DIR, name);
      const current = await readFile(file).catch(() => undefined);
      if (current?.equals(content)) continue;
      contents.set(name, content);
      files.push({ field, key: ['https', `keyStore (${KEY_STORE_DIR}/${name})`], write: () => writeFileAtomic(file, content, 0o600, { dirMode: 0o700 }) });
    }
  }

  // The key store the connector will serve with once the change is live.
  const edited = (key: string) => rowEdits.find((e) => e.key.join('.') === key)?.value;
  const type = (edited('https.keyStore.type') ?? config.https.keyStore.type) as KeyStoreType;
  const fileName = String(edited('https.keyStore.file') ?? config.https.keyStore.file);
  const postedPassword = edited('https.keyStore.password');
  const password = postedPassword === undefined || postedPassword === REDACTED ? config.https.keyStore.password : String(postedPassword);
  const alias = String(edited('https.keyStore.alias') ?? config.https.keyStore.alias);
  const touched = ['type', 'file', 'password', 'alias'].some((k) => edited(`https.keyStore.${k}`) !== undefined) || contents.has(fileName);
  if (touched && KEY_STORE_TYPES.includes(type)) {
    const problem = await checkKeyStore(config, { type, fileName, password, alias }, contents.get(fileName));
    if (problem) problems.push(problem);
  }
  return { edits, problems, files };
}

async function checkKeyStore(config: Config, spec: { type: KeyStoreType; fileName: string; password: string; alias: string }, posted: Buffer | undefined): Promise<ConfigurationProblem | undefined> {
  const field = (member: string) => `configuration.${HTTPS}.ssl.keystore.${member}`;
  const file = keyStorePath(config.dataDir, spec.fileName);
  const content = posted ?? (await readFile(file).catch(() => undefined));
  if (!content) {
    // A missing store in the key store folder is generated (self-signed) at the next start with HTTPS on.
    if (isGeneratable(config.dataDir, file)) return undefined;
    return { field: field('file'), key: 'https.keyStore.file', message: `${file} does not exist` };
  }
  const keyFile = spec.type === 'PEM' && config.https.keyStore.keyFile ? await readFile(keyStorePath(config.dataDir, config.https.keyStore.keyFile)).catch(() => undefined) : undefined;
  try {
    parseKeyStore(content, { type: spec.type, password: spec.password, alias: spec.alias, file: spec.fileName }, keyFile);
    return undefined;
  } catch (error) {
    if (!(error instanceof KeyStoreError)) throw error;
    const member = error.kind === 'password' ? 'password' : error.kind === 'noKey' && spec.alias ? 'alias' : error.kind === 'format' && !posted ? 'type' : 'file';
    return { field: field(member), key: `https.keyStore.${member}`, message: error.message };
  }
}
