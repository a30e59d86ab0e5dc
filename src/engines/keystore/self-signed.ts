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

/**
 * Generates a self-signed server certificate with a new RSA-2048 key (Node's own key generation;
 * node-forge builds and signs the certificate, SHA-256) and writes it where the spec points, in the
 * spec's format: PKCS#12 for JKS and PKCS12 (what keytool writes by default since Java 9, and what a
 * JKS type reads), key and certificate as PEM otherwise. Every file is written with mode 0600 and
 * appears complete or not at all (temporary file, flush, rename).
 */
export async function createSelfSignedKeyStore(spec: KeyStoreSpec, hostNames: readonly string[]): Promise<void> {
  const forge = require('node-forge') as ForgeModule;
  const { privateKey: keyPem } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const key = forge.pki.privateKeyFromPem(keyPem) as import('node-forge').pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  // A positive serial of 128 random bits (RFC 5280 §4.1.2.2: at most 20 octets, positive).
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  cert.serialNumber = serial.toString('hex');
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(now + SELF_SIGNED_DAYS * 24 * 60 * 60 * 1000);
  const name = [
    { name: 'commonName', value: hostNames[0] ?? 'localhost' },
    { name: 'organizationName', value: 'Quire (self-signed)' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: hostNames.map((host) => (isIP(host) ? { type: 7, ip: host } : { type: 2, value: host })) },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);

  if (spec.type === 'PEM') {
    if (spec.keyFile === '') {
      await writePrivate(spec.file, Buffer.from(keyPem + certPem));
    } else {
      await writePrivate(spec.keyFile, Buffer.from(keyPem));
      await writePrivate(spec.file, Buffer.from(certPem));
    }
    return;
  }
  const p12 = forge.pkcs12.toPkcs12Asn1(key, [cert], spec.password, {
    algorithm: 'aes256',
    friendlyName: spec.alias || 'quire',
    generateLocalKeyId: true,
  });
  await writePrivate(spec.file, Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'));
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
