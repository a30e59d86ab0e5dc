import { generateKeyPair, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { KeyStoreSpec } from './read.js';

/** Days a generated certificate is valid (what browsers accepted of a public certificate until 2020). */
export const SELF_SIGNED_DAYS = 825;

const require = createRequire(import.meta.url);
type ForgeModule = typeof import('node-forge');
const forge = (): ForgeModule => require('node-forge') as ForgeModule;

/**
 * Generates a self-signed server certificate with a new RSA-2048 key (Node's own key generation;
 * node-forge builds and signs the certificate, SHA-256) and writes it where the spec points, in the
 * spec's format: PKCS#12 for JKS and PKCS12 (what keytool writes by default since Java 9, and what a
 * JKS type reads), key and certificate as PEM otherwise. Every file is written with mode 0600 and
 * appears complete or not at all (temporary file, flush, rename).
 */
export async function createSelfSignedKeyStore(spec: KeyStoreSpec, hostNames: readonly string[]): Promise<void> {
  const { key, keyPem, cert } = await selfSignedCertificate(hostNames[0] ?? 'localhost', SELF_SIGNED_DAYS, [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: hostNames.map((host) => (isIP(host) ? { type: 7, ip: host } : { type: 2, value: host })) },
    { name: 'subjectKeyIdentifier' },
  ]);
  const certPem = forge().pki.certificateToPem(cert);
  if (spec.type === 'PEM') {
    if (spec.keyFile === '') {
      await writePrivate(spec.file, Buffer.from(keyPem + certPem));
    } else {
      await writePrivate(spec.keyFile, Buffer.from(keyPem));
      await writePrivate(spec.file, Buffer.from(certPem));
    }
    return;
  }
  await writePrivate(spec.file, toPkcs12(key, cert, spec.password, spec.alias || 'quire'));
}

type ForgeKey = import('node-forge').pki.rsa.PrivateKey;
type ForgeCertificate = import('node-forge').pki.Certificate;

/**
 * A new RSA-2048 key (Node's own key generation) and a self-signed SHA-256 certificate for it (built
 * and signed by node-forge) with the given extensions, valid from an hour ago for `days`: the HTTPS
 * connector's and the signature service's generated stores.
 */
export async function selfSignedCertificate(commonName: string, days: number, extensions: object[]): Promise<{ key: ForgeKey; keyPem: string; cert: ForgeCertificate }> {
  const f = forge();
  const { privateKey: keyPem } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const key = f.pki.privateKeyFromPem(keyPem) as ForgeKey;
  const cert = f.pki.createCertificate();
  cert.publicKey = f.pki.setRsaPublicKey(key.n, key.e);
  // A positive serial of 128 random bits (RFC 5280 §4.1.2.2: at most 20 octets, positive).
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  cert.serialNumber = serial.toString('hex');
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(now + days * 24 * 60 * 60 * 1000);
  const name = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'Quire (self-signed)' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions(extensions);
  cert.sign(key, f.md.sha256.create());
  return { key, keyPem, cert };
}

/** A PKCS#12 store (AES-256) holding the key and its certificate under `alias`, sealed with `password`. */
export function toPkcs12(key: ForgeKey, cert: ForgeCertificate, password: string, alias: string): Buffer {
  const f = forge();
  const p12 = f.pkcs12.toPkcs12Asn1(key, [cert], password, { algorithm: 'aes256', friendlyName: alias, generateLocalKeyId: true });
  return Buffer.from(f.asn1.toDer(p12).getBytes(), 'binary');
}

/** Writes a file readable by its owner only, atomically (no reader sees a part of it): key stores hold private keys. */
async function writePrivate(file: string, content: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
}
