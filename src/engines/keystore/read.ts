import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { KeyStoreError } from './errors.js';

/** `ServerConfig_SSLKeystoreFormat` as far as Quire reads it (the Windows stores do not exist here). */
export const KEY_STORE_TYPES = ['JKS', 'PKCS12', 'PEM'] as const;
export type KeyStoreType = (typeof KEY_STORE_TYPES)[number];

/** A key store file is a few kilobytes; anything past this is refused before it is parsed. */
export const MAX_KEY_STORE_BYTES = 1024 * 1024;

export interface KeyStoreSpec {
  type: KeyStoreType;
  /** Absolute path: the JKS or PKCS#12 file, or the PEM file with the certificate chain (and the key when keyFile is empty). */
  file: string;
  /** PEM only: the private key's file when `file` holds only the certificates; '' otherwise. */
  keyFile: string;
  password: string;
  /** JKS: the key entry to serve (Java compares aliases without case); '' = the first entry with a private key. */
  alias: string;
}

/** One certificate of a key store, as the administration lists it. */
export interface StoredCertificate {
  alias: string;
  der: Buffer;
  hasPrivateKey: boolean;
}

export interface KeyStoreContents {
  /** What the content is: JKS and PKCS12 accept each other's content, as Java's key stores do since Java 9. */
  format: KeyStoreType;
  /** What node:tls takes: the key and its chain as PEM, or the PKCS#12 itself with its password. */
  tls: Pick<SecureContextOptions, 'key' | 'cert' | 'pfx' | 'passphrase'>;
  /** Every certificate of the store (one per entry; a key entry's own certificate). */
  certificates: StoredCertificate[];
  /** The certificate the listener presents. */
  served: X509Certificate;
}

/** The file's bytes, at most MAX_KEY_STORE_BYTES (a larger file is refused, whatever its size claims). */
export async function readKeyStoreFile(file: string): Promise<Buffer> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new KeyStoreError('missing', `${file} does not exist`);
    throw new KeyStoreError('unreadable', `${file} cannot be read: ${(error as Error).message}`);
  }
  try {
    const buffer = Buffer.alloc(MAX_KEY_STORE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_KEY_STORE_BYTES) throw new KeyStoreError('format', `${file} is larger than ${MAX_KEY_STORE_BYTES} bytes: no key store is`);
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** Reads and checks the key store a spec names: the listener's TLS material and the certificates. */
export async function openKeyStore(spec: KeyStoreSpec): Promise<KeyStoreContents> {
  const content = await readKeyStoreFile(spec.file);
  const key = spec.type === 'PEM' && spec.keyFile !== '' ? await readKeyStoreFile(spec.keyFile) : undefined;
  return parseKeyStore(content, spec, key);
}

/** What the bytes are, by their first bytes: JKS and JCEKS by magic number, PKCS#12 as DER, PEM as text. */
export function detectFormat(content: Buffer): KeyStoreType | 'JCEKS' | undefined {
  if (content.length >= 4) {
    const magic = content.readUInt32BE(0);
    if (magic === 0xfeedfeed) return 'JKS';
    if (magic === 0xcececece) return 'JCEKS';
  }
  if (content[0] === 0x30) return 'PKCS12';
  if (content.includes('-----BEGIN ')) return 'PEM';
  return undefined;
}

/**
 * Parses a key store's content (and, for PEM, the separate key file's). A JKS or PKCS12 type reads
 * either content, as Java does (keystore.type.compat); PEM is its own. The key must belong to the
 * certificate served: a mismatch is found here, not at the first handshake.
 */
export function parseKeyStore(content: Buffer, spec: Pick<KeyStoreSpec, 'type' | 'password' | 'alias'> & { file?: string }, keyContent?: Buffer): KeyStoreContents {
  const name = spec.file ?? 'the key store';
  const format = checkedFormat(content, spec.type, name);
  if (format === 'JKS') return fromJks(content, spec, name);
  if (format === 'PKCS12') return fromPkcs12(content, spec.password, name);
  return fromPem(content, keyContent, spec.password, name);
}

function checkedFormat(content: Buffer, type: KeyStoreType, name: string): KeyStoreType {
  const format = detectFormat(content);
  if (format === 'JCEKS') throw new KeyStoreError('format', `${name} is a JCEKS key store; convert it to PKCS#12 (keytool -importkeystore -deststoretype PKCS12)`);
  if (format === undefined) throw new KeyStoreError('format', `${name} is neither a JKS, a PKCS#12 nor a PEM file`);
  if ((type === 'PEM') !== (format === 'PEM')) throw new KeyStoreError('format', `${name} holds ${format} content, but the type is ${type}`);
  return format;
}

// jks-js and node-forge are CommonJS and load with the first key store, not at server start.
const require = createRequire(import.meta.url);
type JksModule = typeof import('jks-js');
type ForgeModule = typeof import('node-forge');
const jks = (): JksModule => require('jks-js') as JksModule;
const forge = (): ForgeModule => require('node-forge') as ForgeModule;

interface JksKeyEntry {
  alias: string;
  chain: Buffer[];
  protectedKey: Buffer;
}

function readJks(content: Buffer, password: string, name: string): { certificates: StoredCertificate[]; keyEntries: JksKeyEntry[] } {
  let entries;
  try {
    entries = jks().parseJks(content, password);
  } catch (error) {
    const message = (error as Error).message;
    if (/password/i.test(message)) throw new KeyStoreError('password', `${name}: the password does not open the key store`);
    throw new KeyStoreError('format', `${name} is not a readable JKS key store: ${message}`);
  }
  const certificates: StoredCertificate[] = [];
  const keyEntries: JksKeyEntry[] = [];
  for (const entry of entries) {
    if ('chain' in entry) {
      const chain = entry.chain.map((c) => c.value);
      if (chain[0]) certificates.push({ alias: entry.alias, der: chain[0], hasPrivateKey: true });
      if (chain.length > 0) keyEntries.push({ alias: entry.alias, chain, protectedKey: entry.protectedPrivateKey });
    } else {
      certificates.push({ alias: entry.alias, der: entry.cert.value, hasPrivateKey: false });
    }
  }
  return { certificates, keyEntries };
}

function fromJks(content: Buffer, spec: { password: string; alias: string }, name: string): KeyStoreContents {
  const { certificates, keyEntries } = readJks(content, spec.password, name);
  const chosen = keyEntries.find((entry) => spec.alias === '' || entry.alias.toLowerCase() === spec.alias.toLowerCase());
  if (!chosen) throw new KeyStoreError('noKey', spec.alias ? `${name} has no key entry "${spec.alias}"` : `${name} has no key entry (only trusted certificates)`);
  let keyPem: string;
  try {
    keyPem = jks().decrypt(chosen.protectedKey, spec.password);
  } catch {
    throw new KeyStoreError('password', `${name}: the password does not open the key of "${chosen.alias}" (Quire takes the key password to be the store password)`);
  }
  const chain = chosen.chain.map((der) => new X509Certificate(der));
  const served = chain[0]!;
  matchKey(served, privateKey(keyPem, '', name), name);
  return { format: 'JKS', tls: { key: keyPem, cert: chain.map((c) => c.toString()).join('') }, certificates, served };
}

function readPkcs12(content: Buffer, password: string, name: string): StoredCertificate[] {
  const f = forge();
  let p12;
  try {
    p12 = f.pkcs12.pkcs12FromAsn1(f.asn1.fromDer(f.util.createBuffer(content.toString('binary'))), password);
  } catch (error) {
    const message = (error as Error).message;
    if (/password|MAC/i.test(message)) throw new KeyStoreError('password', `${name}: the password does not open the PKCS#12 key store`);
    throw new KeyStoreError('format', `${name} is not a readable PKCS#12 key store: ${message}`);
  }
  const keyIds = new Set<string>();
  for (const type of [f.pki.oids.pkcs8ShroudedKeyBag!, f.pki.oids.keyBag!]) {
    for (const bag of p12.getBags({ bagType: type })[type] ?? []) keyIds.add(bagId(bag));
  }
  const certificates: StoredCertificate[] = [];
  for (const bag of p12.getBags({ bagType: f.pki.oids.certBag! })[f.pki.oids.certBag!] ?? []) {
    // forge parses RSA certificates (bag.cert) and keeps the ASN.1 of those it cannot (EC, bag.asn1).
    const asn1 = bag.asn1 ?? (bag.cert ? f.pki.certificateToAsn1(bag.cert) : undefined);
    if (!asn1) continue;
    const der = Buffer.from(f.asn1.toDer(asn1).getBytes(), 'binary');
    certificates.push({ alias: String(bag.attributes.friendlyName?.[0] ?? ''), der, hasPrivateKey: keyIds.has(bagId(bag)) });
  }
  return certificates;
}

function fromPkcs12(content: Buffer, password: string, name: string): KeyStoreContents {
  const certificates = readPkcs12(content, password, name);
  const keyed = certificates.find((c) => c.hasPrivateKey);
  if (!keyed) throw new KeyStoreError('noKey', `${name} holds no private key with its certificate`);
  // OpenSSL reads the PKCS#12 for the listener itself (every key type); this also proves key and certificate belong together.
  const tls = { pfx: content, passphrase: password };
  try {
    createSecureContext(tls);
  } catch (error) {
    throw new KeyStoreError('noKey', `${name} cannot serve TLS: ${(error as Error).message}`);
  }
  return { format: 'PKCS12', tls, certificates, served: new X509Certificate(keyed.der) };
}

/** What ties a key bag to its certificate bag: the local key id, else the friendly name. */
function bagId(bag: { attributes: Record<string, unknown[] | undefined> }): string {
  const id = bag.attributes.localKeyId?.[0];
  if (typeof id === 'string') return `id:${id}`;
  return `name:${String(bag.attributes.friendlyName?.[0] ?? '')}`;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
const KEY_LABELS = new Set(['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY', 'ENCRYPTED PRIVATE KEY']);

function pemBlocks(content: Buffer | undefined): RegExpMatchArray[] {
  return content ? [...content.toString('latin1').matchAll(PEM_BLOCK)] : [];
}

function readPemCertificates(content: Buffer, name: string, withKey: boolean): { pems: string[]; chain: X509Certificate[]; certificates: StoredCertificate[] } {
  const pems = pemBlocks(content)
    .filter((b) => b[1] === 'CERTIFICATE')
    .map((b) => b[0]);
  if (pems.length === 0) throw new KeyStoreError('format', `${name} holds no certificate (-----BEGIN CERTIFICATE-----)`);
  let chain: X509Certificate[];
  try {
    chain = pems.map((pem) => new X509Certificate(pem));
  } catch (error) {
    throw new KeyStoreError('format', `${name}: a certificate cannot be read: ${(error as Error).message}`);
  }
  const certificates = chain.map((c, i) => ({ alias: i === 0 ? 'server' : `chain-${i}`, der: c.raw, hasPrivateKey: i === 0 && withKey }));
  return { pems, chain, certificates };
}

function fromPem(content: Buffer, keyContent: Buffer | undefined, password: string, name: string): KeyStoreContents {
  const keys = [...pemBlocks(content), ...pemBlocks(keyContent)].filter((b) => KEY_LABELS.has(b[1]!)).map((b) => b[0]);
  const { pems, chain, certificates } = readPemCertificates(content, name, keys.length > 0);
  const served = chain[0]!;
  if (keys.length !== 1) throw new KeyStoreError('noKey', keys.length === 0 ? `${name}: no private key (in the file or https.keyStore.keyFile)` : `${name}: more than one private key`);
  const key = privateKey(keys[0]!, password, name);
  matchKey(served, key, name);
  return { format: 'PEM', tls: { key: keys[0]!, cert: pems.join('\n'), ...(password ? { passphrase: password } : {}) }, certificates, served };
}

function privateKey(pem: string, password: string, name: string): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: 'pem', ...(password ? { passphrase: password } : {}) });
  } catch (error) {
    if (/passphrase|decrypt/i.test((error as Error).message)) throw new KeyStoreError('password', `${name}: the password does not open the private key`);
    throw new KeyStoreError('format', `${name}: the private key cannot be read: ${(error as Error).message}`);
  }
}

function matchKey(served: X509Certificate, key: KeyObject, name: string): void {
  if (!served.checkPrivateKey(key)) throw new KeyStoreError('noKey', `${name}: the private key does not belong to the certificate (${served.subject.replace(/\n/g, ', ')})`);
}

/**
 * The certificates of a key store's content, for the administration: the password must open the
 * store, but no key has to serve (a PEM key may live in its own file).
 */
export function listCertificates(content: Buffer, spec: Pick<KeyStoreSpec, 'type' | 'password'> & { file?: string }): StoredCertificate[] {
  const name = spec.file ?? 'the key store';
  const format = checkedFormat(content, spec.type, name);
  if (format === 'JKS') return readJks(content, spec.password, name).certificates;
  if (format === 'PKCS12') return readPkcs12(content, spec.password, name);
  return readPemCertificates(
    content,
    name,
    pemBlocks(content).some((b) => KEY_LABELS.has(b[1]!)),
  ).certificates;
}
