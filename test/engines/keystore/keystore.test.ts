import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyStoreError } from '../../../src/engines/keystore/errors.js';
import { certificatesOf, listKeyStoreFolder } from '../../../src/engines/keystore/folder.js';
import { MAX_KEY_STORE_BYTES, openKeyStore, parseKeyStore, type KeyStoreSpec } from '../../../src/engines/keystore/read.js';
import { createSelfSignedKeyStore } from '../../../src/engines/keystore/self-signed.js';
import { httpsKeyStoreSpec, isGeneratable } from '../../../src/engines/keystore/spec.js';
import { rejection } from '../../helpers/rejection.js';
import { keytool, keytoolKeyPair, openssl, opensslSelfSigned } from '../../helpers/certificates.js';

/*
 * Key stores made and checked by independent tools: OpenSSL (req, pkcs12, x509) and the JDK's
 * keytool write the stores Quire reads, and read back the ones Quire generates.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-keystore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string) => path.join(dir, name);
const spec = (over: Partial<KeyStoreSpec>): KeyStoreSpec => ({ type: 'JKS', file: '', keyFile: '', password: 'webpdf', alias: '', ...over });

/** A self-signed certificate and its key by OpenSSL, as PEM files. */
function opensslPair(name: string, cn: string, keyArgs: string[] = ['-newkey', 'rsa:2048']): { cert: string; key: string } {
  const cert = file(`${name}.crt`);
  const key = file(`${name}.key`);
  opensslSelfSigned(cert, key, `/CN=${cn}`, { keyArgs });
  return { cert, key };
}

/** The SHA-256 fingerprint OpenSSL reads from a PEM certificate (colons, upper case). */
function fingerprintOf(pem: string): string {
  return openssl('x509', '-noout', '-fingerprint', '-sha256', '-in', pem).trim().replace(/^.*=/, '');
}

describe('self-signed key store', () => {
  it('is a PKCS#12 (mode 0600) whose certificate names the host names, with its key: read back by openssl and keytool', async () => {
    const target = spec({ file: file('gen/ssl.jks') });
    await createSelfSignedKeyStore(target, ['quire.example', 'localhost', '127.0.0.1', '::1']);
    expect(statSync(target.file).mode & 0o777).toBe(0o600);
    const certPem = openssl('pkcs12', '-in', target.file, '-passin', 'pass:webpdf', '-nokeys');
    writeFileSync(file('gen.crt'), certPem);
    const text = openssl('x509', '-in', file('gen.crt'), '-noout', '-subject', '-ext', 'subjectAltName,basicConstraints,extendedKeyUsage', '-checkend', '86400');
    expect(text).toMatch(/CN\s*=\s*quire\.example/);
    expect(text).toContain('DNS:quire.example');
    expect(text).toContain('DNS:localhost');
    expect(text).toContain('IP Address:127.0.0.1');
    expect(text).toContain('CA:FALSE');
    expect(text).toContain('TLS Web Server Authentication');
    expect(openssl('pkcs12', '-in', target.file, '-passin', 'pass:webpdf', '-nocerts', '-nodes')).toContain('-----BEGIN PRIVATE KEY-----');
    // Java reads it with the type the administration shows (JKS; PKCS#12 content, as Java 9+ does).
    expect(keytool('-list', '-keystore', target.file, '-storetype', 'JKS', '-storepass', 'webpdf')).toMatch(/PrivateKeyEntry/);
    const opened = await openKeyStore(target);
    expect(opened.format).toBe('PKCS12');
    expect(opened.served.fingerprint256).toBe(fingerprintOf(file('gen.crt')));
  });

  it('as PEM writes the key (0600) and the certificate to their files, and they belong together', async () => {
    const target = spec({ type: 'PEM', file: file('pem/server.crt'), keyFile: file('pem/server.key'), password: '' });
    await createSelfSignedKeyStore(target, ['localhost']);
    expect(statSync(target.keyFile).mode & 0o777).toBe(0o600);
    const certModulus = openssl('x509', '-in', target.file, '-noout', '-modulus');
    const keyModulus = openssl('rsa', '-in', target.keyFile, '-noout', '-modulus');
    expect(certModulus).toBe(keyModulus);
    expect((await openKeyStore(target)).served.fingerprint256).toBe(fingerprintOf(target.file));
  });

  it('is generated only inside <dataDir>/keystore', () => {
    const config = { dataDir: '/srv/quire', https: { keyStore: { type: 'JKS', file: 'ssl.jks', password: 'p', alias: '', keyFile: '' } } } as never;
    const resolved = httpsKeyStoreSpec(config);
    expect(resolved.file).toBe('/srv/quire/keystore/ssl.jks');
    expect(isGeneratable('/srv/quire', resolved.file)).toBe(true);
    expect(isGeneratable('/srv/quire', '/etc/quire/tls.p12')).toBe(false);
    expect(isGeneratable('/srv/quire', '/srv/quire/keystore/../quire.yaml')).toBe(false);
  });
});

describe('reading key stores', () => {
  it('reads a JKS written by keytool (RSA and EC), choosing the entry by alias', async () => {
    keytoolKeyPair(file('two.jks'), { alias: 'rsa', keyalg: 'RSA', keysize: 2048, dname: 'CN=rsa.example', password: 'webpdf' });
    keytoolKeyPair(file('two.jks'), { alias: 'ec', keyalg: 'EC', dname: 'CN=ec.example', password: 'webpdf' });
    keytool('-exportcert', '-rfc', '-keystore', file('two.jks'), '-storepass', 'webpdf', '-alias', 'ec', '-file', file('two-ec.crt'));
    const ec = await openKeyStore(spec({ file: file('two.jks'), alias: 'EC' }));
    expect(ec.format).toBe('JKS');
    expect(ec.served.fingerprint256).toBe(fingerprintOf(file('two-ec.crt')));
    expect(ec.certificates.map((c) => c.alias).sort()).toEqual(['ec', 'rsa']);
    const first = await openKeyStore(spec({ file: file('two.jks') }));
    expect(first.served.subject).toMatch(/CN=(rsa|ec)\.example/);
    const wrong = await rejection(openKeyStore(spec({ file: file('two.jks'), password: 'wrong' })));
    expect(wrong).toBeInstanceOf(KeyStoreError);
    expect((wrong as KeyStoreError).kind).toBe('password');
    expect(((await rejection(openKeyStore(spec({ file: file('two.jks'), alias: 'nope' })))) as KeyStoreError).kind).toBe('noKey');
    // Certificates of a JKS are listed without its password (as keytool -list does).
    expect(certificatesOf(readFileSync(file('two.jks')), ['not-the-password'])).toHaveLength(2);
  });

  it('reads a PKCS#12 written by openssl (EC key, AES), with either key store type', async () => {
    const pair = opensslPair('ec', 'p12.example', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']);
    openssl('pkcs12', '-export', '-inkey', pair.key, '-in', pair.cert, '-out', file('ec.p12'), '-passout', 'pass:s3cret', '-name', 'web');
    for (const type of ['PKCS12', 'JKS'] as const) {
      const store = await openKeyStore(spec({ type, file: file('ec.p12'), password: 's3cret' }));
      expect(store.format).toBe('PKCS12');
      expect(store.served.fingerprint256).toBe(fingerprintOf(pair.cert));
      expect(store.certificates).toEqual([expect.objectContaining({ alias: 'web', hasPrivateKey: true })]);
    }
    expect(((await rejection(openKeyStore(spec({ type: 'PKCS12', file: file('ec.p12'), password: 'wrong' })))) as KeyStoreError).kind).toBe('password');
  });

  it('reads PEM: certificate and key in one file or two, an encrypted key with the password; refuses a key of another certificate', async () => {
    const pair = opensslPair('pem', 'pem.example');
    const other = opensslPair('other', 'other.example');
    writeFileSync(file('both.pem'), readFileSync(pair.cert, 'utf8') + readFileSync(pair.key, 'utf8'));
    expect((await openKeyStore(spec({ type: 'PEM', file: file('both.pem'), password: '' }))).served.fingerprint256).toBe(fingerprintOf(pair.cert));
    expect((await openKeyStore(spec({ type: 'PEM', file: pair.cert, keyFile: pair.key, password: '' }))).served.fingerprint256).toBe(fingerprintOf(pair.cert));
    openssl('pkcs8', '-topk8', '-in', pair.key, '-out', file('enc.key'), '-passout', 'pass:keypw', '-v2', 'aes-256-cbc');
    expect((await openKeyStore(spec({ type: 'PEM', file: pair.cert, keyFile: file('enc.key'), password: 'keypw' }))).served.subject).toContain('pem.example');
    expect(((await rejection(openKeyStore(spec({ type: 'PEM', file: pair.cert, keyFile: file('enc.key'), password: 'nope' })))) as KeyStoreError).kind).toBe('password');
    expect(((await rejection(openKeyStore(spec({ type: 'PEM', file: pair.cert, keyFile: other.key, password: '' })))) as KeyStoreError).kind).toBe('noKey');
  });

  it('refuses content of another type, JCEKS, no key store at all, a missing file and an oversized one', async () => {
    const pair = opensslPair('mix', 'mix.example');
    expect(() => parseKeyStore(readFileSync(pair.cert), spec({ type: 'JKS' }))).toThrow(/PEM content, but the type is JKS/);
    keytool('-genseckey', '-keystore', file('s.jceks'), '-storetype', 'JCEKS', '-storepass', 'webpdf', '-keypass', 'webpdf', '-alias', 'k', '-keyalg', 'AES', '-keysize', '128');
    expect(() => parseKeyStore(readFileSync(file('s.jceks')), spec({}))).toThrow(/JCEKS/);
    expect(() => parseKeyStore(Buffer.from('hello'), spec({}))).toThrow(/neither a JKS, a PKCS#12 nor a PEM/);
    expect(((await rejection(openKeyStore(spec({ file: file('absent.jks') })))) as KeyStoreError).kind).toBe('missing');
    writeFileSync(file('huge.jks'), Buffer.alloc(MAX_KEY_STORE_BYTES + 10, 0xfe));
    expect(((await rejection(openKeyStore(spec({ file: file('huge.jks') })))) as KeyStoreError).message).toMatch(/larger than/);
  });

  it('lists a folder of key stores by file name, skipping temporary files', async () => {
    const folder = path.join(dir, 'folder');
    await createSelfSignedKeyStore(spec({ file: path.join(folder, 'ssl.jks') }), ['localhost']);
    writeFileSync(path.join(folder, 'ssl.jks.abc.tmp'), 'partial');
    const listed = listKeyStoreFolder(folder, ['webpdf']);
    expect(listed.map((s) => s.name)).toEqual(['ssl.jks']);
    expect(listed[0]!.certificates).toHaveLength(1);
  });
});
