import { X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import { EngineError } from '../engine-error.js';

/** Why a trust store is refused: not a JKS or PKCS#12 that can be read, or the password does not open it. */
export type TrustStoreKind = 'format' | 'password';

export class TrustStoreError extends EngineError<TrustStoreKind> {}

/** A trust store is a few kilobytes (a full CA bundle some hundred); anything past this is refused unread. */
export const MAX_TRUST_STORE_BYTES = 1024 * 1024;

export interface TrustedCertificate {
  alias: string;
  /** The certificate, DER. */
  der: Buffer;
  /** The entry is a key entry (its own certificate is listed); a pure trust store has none. */
  hasPrivateKey: boolean;
}

export interface TrustStoreContents {
  format: 'JKS' | 'PKCS12';
  certificates: TrustedCertificate[];
}

// jks-js and node-forge are CommonJS and load with the first trust store, not at server start.
const require = createRequire(import.meta.url);
type JksModule = typeof import('jks-js');
type ForgeModule = typeof import('node-forge');

/**
 * Reads a trust store's bytes as Java would: a JKS (magic 0xFEEDFEED; with a password, its keyed
 * SHA-1 integrity digest is checked, as `keytool -list -storepass` does) or a PKCS#12 (with its MAC
 * checked). Every certificate must parse as X.509. Nothing a file declares is trusted: sizes and
 * counts run against the bytes there are (jks-js reads past the end as an error, not as data).
 */
export function readTrustStore(content: Buffer, password: string): TrustStoreContents {
  if (content.length > MAX_TRUST_STORE_BYTES) throw new TrustStoreError('format', `is larger than ${MAX_TRUST_STORE_BYTES} bytes: no trust store is`);
  if (content.length < 4) throw new TrustStoreError('format', 'is not a JKS or PKCS#12 trust store (too short)');
  const magic = content.readUInt32BE(0);
  if (magic === 0xcececece) throw new TrustStoreError('format', 'is a JCEKS key store; convert it to JKS or PKCS#12 (keytool -importkeystore -deststoretype PKCS12)');
  const certificates = magic === 0xfeedfeed ? fromJks(content, password) : content[0] === 0x30 ? fromPkcs12(content, password) : undefined;
  if (certificates === undefined) throw new TrustStoreError('format', 'is not a JKS or PKCS#12 trust store');
  for (const certificate of certificates) {
    try {
      new X509Certificate(certificate.der);
    } catch (error) {
      throw new TrustStoreError('format', `entry "${certificate.alias}" is not an X.509 certificate: ${(error as Error).message}`);
    }
  }
  return { format: magic === 0xfeedfeed ? 'JKS' : 'PKCS12', certificates };
}

function fromJks(content: Buffer, password: string): TrustedCertificate[] {
  const jks = require('jks-js') as JksModule;
  let entries: ReturnType<JksModule['parseJks']>;
  try {
    // The structure first, without the digest: a cut file then reads as damaged (its certificates do
    // not parse), not as a wrong password.
    entries = jks.parseJks(content, '');
  } catch (error) {
    throw new TrustStoreError('format', `is not a readable JKS: ${(error as Error).message}`);
  }
  for (const entry of entries) {
    const der = 'cert' in entry ? entry.cert.value : entry.chain[0]?.value;
    if (der === undefined || !isCertificate(Buffer.from(der))) throw new TrustStoreError('format', `is not a readable JKS: entry "${entry.alias}" holds no X.509 certificate (a damaged or cut file)`);
  }
  if (password !== '') {
    try {
      jks.parseJks(content, password);
    } catch {
      throw new TrustStoreError('password', 'the password does not open this JKS (its integrity digest does not match)');
    }
  }
  return entries.map((entry) =>
    'cert' in entry
      ? { alias: entry.alias, der: Buffer.from(entry.cert.value), hasPrivateKey: false }
      : { alias: entry.alias, der: Buffer.from(entry.chain[0]?.value ?? Buffer.alloc(0)), hasPrivateKey: true },
  );
}

function isCertificate(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

function fromPkcs12(content: Buffer, password: string): TrustedCertificate[] {
  const forge = require('node-forge') as ForgeModule;
  let p12: import('node-forge').pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(content.toString('binary'), true), true, password);
  } catch (error) {
    const message = (error as Error).message;
    if (/MAC could not be verified|Invalid password/i.test(message)) throw new TrustStoreError('password', 'the password does not open this PKCS#12 (its MAC does not match)');
    throw new TrustStoreError('format', `is not a readable PKCS#12: ${message}`);
  }
  const keyIds = new Set(
    [...(p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[forge.pki.oids.pkcs8ShroudedKeyBag!] ?? []), ...(p12.getBags({ bagType: forge.pki.oids.keyBag! })[forge.pki.oids.keyBag!] ?? [])]
      .map((bag) => bag.attributes.localKeyId?.[0])
      .filter((id): id is string => typeof id === 'string'),
  );
  const bags = p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [];
  return bags.map((bag, index) => {
    const asn1 = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : (bag.asn1 as import('node-forge').asn1.Asn1);
    const der = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    const alias = (bag.attributes.friendlyName?.[0] as string | undefined) ?? `entry-${index + 1}`;
    const keyId = bag.attributes.localKeyId?.[0] as string | undefined;
    return { alias, der, hasPrivateKey: keyId !== undefined && keyIds.has(keyId) };
  });
}
