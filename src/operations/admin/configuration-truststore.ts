import { X509Certificate } from 'node:crypto';
import type { Config } from '../../config/load.js';
import { REDACTED } from '../../config/redact.js';
import { MAX_TRUST_STORE_BYTES, readTrustStore, TrustStoreError, type TrustedCertificate } from '../../engines/truststore/read.js';
import { readStoredTrustStore, removeTrustStore, writeTrustStore } from '../../storage/trust-store-file.js';
import type { ConfigurationFile, FieldEdit } from './configuration-fields.js';
import type { ConfigurationProblem, WireObject } from './configuration-wire.js';

/*
 * The trust store of the server envelope: `configuration.truststore` (`ServerConfig_TruststoreServer`:
 * the name the administration gave it and its password) and `trustStoreKeyStore`
 * (`Admin_TrustStoreKeyStore`: the content in Base64 and its certificates). The content is stored as
 * <dataDir>/keys/truststore whatever the name says; the name and password are the `truststore.*` keys.
 */

const CONTENT_FIELD = 'trustStoreKeyStore.keyStoreContent';
const EMPTY = { keyStoreContent: '', certificates: [] };

/** `Certificate_Entry` of a trust store certificate (the certificate in Base64 DER). */
function certificateEntry(certificate: TrustedCertificate, keyStoreName: string) {
  return {
    aliasName: certificate.alias,
    certificate: certificate.der.toString('base64'),
    hasPrivateKey: certificate.hasPrivateKey,
    isPrivateKeyReadable: false,
    keyStoreName,
    keyStoreOrigin: 'global',
  };
}

/** `configuration.truststore` (absent when none is configured, as webPDF shows it) with the password redacted. */
export function readTrustStoreMember(config: Config): WireObject | undefined {
  if (config.truststore.file === '') return undefined;
  return { file: config.truststore.file, password: config.truststore.password === '' ? '' : REDACTED };
}

/** `trustStoreKeyStore`: the stored content and the certificates its password opens (none when it no longer opens). */
export function readTrustStoreKeyStore(config: Config): WireObject {
  if (config.truststore.file === '') return { ...EMPTY };
  const content = readStoredTrustStore(config.dataDir, MAX_TRUST_STORE_BYTES);
  if (!content) return { ...EMPTY };
  let certificates: ReturnType<typeof certificateEntry>[] = [];
  try {
    certificates = readTrustStore(content, config.truststore.password).certificates.map((c) => certificateEntry(c, config.truststore.file));
  } catch {
    // Shown as stored; the certificates stay empty (a write checks the store, so only a hand-edited file gets here).
  }
  return { keyStoreContent: content.toString('base64'), certificates };
}

export interface TrustStoreChanges {
  edits: FieldEdit[];
  problems: ConfigurationProblem[];
  files: ConfigurationFile[];
}

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;
/** A name shown to administrators: no control characters, no more than a file name. */
const PLAIN_NAME = /^[^\u0000-\u001f\u007f]{1,255}$/;

/**
 * What a posted server envelope changes of the trust store. The envelope is the whole server
 * configuration (its `host`, `connectors`, `shutdown` and `user` members are required), so a missing
 * `truststore` member removes the trust store, as it does in webPDF. A posted one needs a content
 * (new, or the stored one), which must be a JKS or PKCS#12 its password opens; `password` as read
 * (redacted) keeps the stored password, and an empty or absent `keyStoreContent` keeps the stored content.
 */
export async function trustStoreChanges(posted: WireObject, envelope: WireObject, config: Config): Promise<TrustStoreChanges> {
  const none: TrustStoreChanges = { edits: [], problems: [], files: [] };
  const member = posted.truststore as { file?: unknown; password?: unknown } | null | undefined;
  const field = 'configuration.truststore';
  const dataDir = config.dataDir;

  if (member === undefined || member === null || member.file === '' || member.file === undefined) {
    if (config.truststore.file === '') return none;
    return {
      edits: [{ field, key: ['truststore'], value: undefined }],
      problems: [],
      files: [{ field: CONTENT_FIELD, key: ['truststore', 'content'], write: () => removeTrustStore(dataDir) }],
    };
  }

  const problems: ConfigurationProblem[] = [];
  if (typeof member.file !== 'string' || !PLAIN_NAME.test(member.file)) {
    problems.push({ field: `${field}.file`, key: 'truststore.file', message: 'must be a name of 1-255 characters without control characters' });
  }
  if (member.password !== undefined && typeof member.password !== 'string') problems.push({ field: `${field}.password`, key: 'truststore.password', message: 'must be a string' });
  if (problems.length > 0) return { ...none, problems };
  const file = member.file as string;
  const password = member.password === undefined || member.password === REDACTED ? config.truststore.password : (member.password as string);

  const text = (envelope.trustStoreKeyStore as { keyStoreContent?: unknown } | null | undefined)?.keyStoreContent;
  const stored = config.truststore.file === '' ? undefined : readStoredTrustStore(dataDir, MAX_TRUST_STORE_BYTES);
  let content = stored;
  let fresh = false;
  if (typeof text === 'string' && text.trim() !== '') {
    const decoded = BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
    if (!decoded || decoded.length === 0) return { ...none, problems: [{ field: CONTENT_FIELD, key: 'truststore', message: 'is not Base64' }] };
    if (decoded.length > MAX_TRUST_STORE_BYTES)
      return { ...none, problems: [{ field: CONTENT_FIELD, key: 'truststore', message: `is larger than ${MAX_TRUST_STORE_BYTES} bytes: no trust store is` }] };
    fresh = !stored?.equals(decoded);
    content = decoded;
  }
  if (!content) return { ...none, problems: [{ field: CONTENT_FIELD, key: 'truststore', message: 'a trust store needs its content: a JKS or PKCS#12 in Base64' }] };

  try {
    const { certificates } = readTrustStore(content, password);
    for (const certificate of certificates) new X509Certificate(certificate.der);
  } catch (error) {
    if (!(error instanceof TrustStoreError)) throw error;
    const where = error.kind === 'password' ? { field: `${field}.password`, key: 'truststore.password' } : { field: CONTENT_FIELD, key: 'truststore' };
    return { ...none, problems: [{ ...where, message: error.message }] };
  }

  const edits: FieldEdit[] = [];
  if (file !== config.truststore.file || password !== config.truststore.password) edits.push({ field, key: ['truststore'], value: { file, password } });
  const bytes = content;
  const files: ConfigurationFile[] = fresh ? [{ field: CONTENT_FIELD, key: ['truststore', 'content'], write: () => writeTrustStore(dataDir, bytes) }] : [];
  return { edits, problems: [], files };
}
