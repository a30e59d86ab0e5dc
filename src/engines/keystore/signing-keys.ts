import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { KeyStoreError } from './errors.js';
import { detectFormat, type KeyStoreType } from './read.js';
import { selfSignedCertificate, toPkcs12 } from './self-signed.js';

/** Days the generated signing certificate is valid. */
const SIGNING_CERTIFICATE_DAYS = 3 * 365;

/**
 * Key stores as the signature service reads them: every entry with its certificate chain and, for
 * key entries, a way to open the private key (with the entry's own password, which JKS allows to
 * differ from the store's). The HTTPS listener's reading (read.ts) serves one key for TLS; this one
 * keeps every alias.
 */

const require = createRequire(import.meta.url);
type JksModule = typeof import('jks-js');
type ForgeModule = typeof import('node-forge');
const jks = (): JksModule => require('jks-js') as JksModule;
const forge = (): ForgeModule => require('node-forge') as ForgeModule;

export interface SigningEntry {
  alias: string;
  /** The entry's certificate first, then the rest of its chain (DER). */
  chain: Buffer[];
  hasPrivateKey: boolean;
  /** Opens the private key; `password` undefined = the store's password. Throws `KeyStoreError('password')`. */
  openKey(password?: string): KeyObject;
}

/** The alias of the key the server generates when no signing key store is configured (the official clients sign with it). */
export const GENERATED_SIGNING_ALIAS = 'Generic self-signed certificate';

/** Reads a signing key store's content (JKS, PKCS#12, or PEM with `keyContent` as the separate key). */
export function readSigningKeyStore(content: Buffer, type: KeyStoreType, password: string, name: string, keyContent?: Buffer): SigningEntry[] {
  const format = detectFormat(content);
  if (format === 'JCEKS') throw new KeyStoreError('format', `${name} is a JCEKS key store; convert it to PKCS#12`);
  if (format === undefined) throw new KeyStoreError('format', `${name} is neither a JKS, a PKCS#12 nor a PEM file`);
  if ((type === 'PEM') !== (format === 'PEM')) throw new KeyStoreError('format', `${name} holds ${format} content, but the type is ${type}`);
  const entries = format === 'JKS' ? fromJks(content, password, name) : format === 'PKCS12' ? fromPkcs12(content, password, name) : fromPem(content, keyContent, password, name);
  return entries.map((entry) => ({ ...entry, openKey: rememberOpened(entry.openKey) }));
}

/** Opened keys an entry keeps (one per password that opened it; a store's keys are opened with one or two). */
const MAX_OPENED_PER_ENTRY = 4;

/**
 * `openKey` that keeps the keys it opened, so that a signature does not decrypt and parse the private
 * key again (a JKS key's decryption and the PEM parse cost ~1 ms a call). The key is kept under a
 * hash of the password that opened it and handed out only to a call giving that same password: a
 * wrong password still fails, and the cache holds no password. It lives as long as the entries do
 * (the server store's for the server's life, a session's unlocked copy until the session ends).
 */
function rememberOpened(open: SigningEntry['openKey']): SigningEntry['openKey'] {
  const opened = new Map<string, KeyObject>();
  return (password) => {
    const id = password === undefined ? 'store' : createHash('sha256').update('key-password\0').update(password).digest('base64');
    const known = opened.get(id);
    if (known) return known;
    const key = open(password);
    if (opened.size >= MAX_OPENED_PER_ENTRY) opened.delete(opened.keys().next().value!);
    opened.set(id, key);
    return key;
  };
}

function pemKey(pem: string, passphrase: string | undefined, name: string): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: 'pem', ...(passphrase ? { passphrase } : {}) });
  } catch (error) {
    if (/passphrase|decrypt|bad decrypt/i.test((error as Error).message)) throw new KeyStoreError('password', `${name}: the password does not open the private key`);
    throw new KeyStoreError('format', `${name}: the private key cannot be read`);
  }
}

function fromJks(content: Buffer, password: string, name: string): SigningEntry[] {
  let entries;
  try {
    entries = jks().parseJks(content, password);
  } catch (error) {
    if (/password/i.test((error as Error).message)) throw new KeyStoreError('password', `${name}: the password does not open the key store`);
    throw new KeyStoreError('format', `${name} is not a readable JKS key store`);
  }
  return entries.map((entry): SigningEntry => {
    if ('chain' in entry) {
      const chain = entry.chain.map((c) => c.value);
      return {
        alias: entry.alias,
        chain,
        hasPrivateKey: true,
        openKey(keyPassword) {
          let pem: string;
          try {
            pem = jks().decrypt(entry.protectedPrivateKey, keyPassword ?? password);
          } catch {
            throw new KeyStoreError('password', `${name}: the password does not open the key "${entry.alias}"`);
          }
          return pemKey(pem, undefined, name);
        },
      };
    }
    return { alias: entry.alias, chain: [entry.cert.value], hasPrivateKey: false, openKey: noKey(name, entry.alias) };
  });
}

function noKey(name: string, alias: string): () => never {
  return () => {
    throw new KeyStoreError('noKey', `${name}: "${alias}" holds a certificate only`);
  };
}

function fromPkcs12(content: Buffer, password: string, name: string): SigningEntry[] {
  const f = forge();
  let p12;
  try {
    p12 = f.pkcs12.pkcs12FromAsn1(f.asn1.fromDer(f.util.createBuffer(content.toString('binary'))), password);
  } catch (error) {
    if (/password|MAC|Invalid/i.test((error as Error).message)) throw new KeyStoreError('password', `${name}: the password does not open the PKCS#12 key store`);
    throw new KeyStoreError('format', `${name} is not a readable PKCS#12 key store`);
  }
  type Bag = import('node-forge').pkcs12.Bag;
  const idOf = (bag: Bag) => {
    const id = bag.attributes.localKeyId?.[0];
    return typeof id === 'string' ? `id:${id}` : `name:${String(bag.attributes.friendlyName?.[0] ?? '')}`;
  };
  const keys = new Map<string, Bag>();
  for (const type of [f.pki.oids.pkcs8ShroudedKeyBag!, f.pki.oids.keyBag!]) {
    for (const bag of p12.getBags({ bagType: type })[type] ?? []) keys.set(idOf(bag), bag);
  }
  const certBags = p12.getBags({ bagType: f.pki.oids.certBag! })[f.pki.oids.certBag!] ?? [];
  const ders = certBags.map((bag): Buffer | undefined => {
    const asn1 = bag.asn1 ?? (bag.cert ? f.pki.certificateToAsn1(bag.cert) : undefined);
    return asn1 ? Buffer.from(f.asn1.toDer(asn1).getBytes(), 'binary') : undefined;
  });
  const all: X509Certificate[] = [];
  for (const d of ders) if (d) all.push(new X509Certificate(d));
  const entries: SigningEntry[] = [];
  certBags.forEach((bag, i) => {
    const der = ders[i];
    if (!der) return;
    const keyBag = keys.get(idOf(bag));
    const alias = String(bag.attributes.friendlyName?.[0] ?? '');
    // A key entry's chain: its certificate, then the issuers the store holds.
    const chain = [der];
    for (let current = new X509Certificate(der); chain.length < 10; ) {
      const issuer = all.find((c) => c.subject === current.issuer && !c.raw.equals(current.raw) && current.checkIssued(c));
      if (!issuer) break;
      chain.push(issuer.raw);
      current = issuer;
    }
    if (!keyBag?.key) {
      entries.push({ alias, chain: keyBag ? chain : [der], hasPrivateKey: false, openKey: noKey(name, alias) });
      return;
    }
    const pem = f.pki.privateKeyToPem(keyBag.key);
    entries.push({ alias, chain, hasPrivateKey: true, openKey: () => pemKey(pem, undefined, name) });
  });
  return entries;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
const KEY_LABELS = new Set(['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY', 'ENCRYPTED PRIVATE KEY']);

function fromPem(content: Buffer, keyContent: Buffer | undefined, password: string, name: string): SigningEntry[] {
  const blocks = [...content.toString('latin1').matchAll(PEM_BLOCK), ...(keyContent ? keyContent.toString('latin1').matchAll(PEM_BLOCK) : [])];
  const certificates = blocks.filter((b) => b[1] === 'CERTIFICATE').map((b) => new X509Certificate(b[0]).raw);
  const keys = blocks.filter((b) => KEY_LABELS.has(b[1]!)).map((b) => b[0]);
  if (certificates.length === 0) throw new KeyStoreError('format', `${name} holds no certificate`);
  if (keys.length > 1) throw new KeyStoreError('noKey', `${name}: more than one private key`);
  const key = keys[0];
  const alias = new X509Certificate(certificates[0]!).subject.match(/CN=([^\n]+)/)?.[1] ?? 'key';
  return [
    {
      alias,
      chain: certificates,
      hasPrivateKey: key !== undefined,
      openKey: key === undefined ? noKey(name, alias) : (keyPassword) => pemKey(key, keyPassword ?? password, name),
    },
  ];
}

/**
 * A new PKCS#12 key store with one self-signed RSA-2048/SHA-256 signing certificate under `alias`
 * (key usage digitalSignature and nonRepudiation, valid three years), sealed with `password`.
 * Node generates the key; node-forge builds and signs the certificate and the PKCS#12 (AES-256).
 */
export async function generateSigningKeyStore(alias: string, password: string, subjectName: string): Promise<Buffer> {
  const { key, cert } = await selfSignedCertificate(subjectName, SIGNING_CERTIFICATE_DAYS, [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  return toPkcs12(key, cert, password, alias);
}
