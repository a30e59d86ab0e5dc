import { sign, verify, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyStoreError } from '../../../src/engines/keystore/errors.js';
import { GENERATED_SIGNING_ALIAS, generateSigningKeyStore, readSigningKeyStore } from '../../../src/engines/keystore/signing-keys.js';
import { keytool, keytoolKeyPair, openssl } from '../../helpers/certificates.js';
import { scratchDir } from '../../helpers/pdf-tools.js';

const scratch = scratchDir('signing-keys');
afterAll(() => scratch.remove());

/** Whether the key opened from the entry signs what its certificate verifies. */
function signsForItsCertificate(entry: ReturnType<typeof readSigningKeyStore>[number], password?: string): boolean {
  const data = Buffer.from('quire');
  const signature = sign('sha256', data, entry.openKey(password));
  return verify('sha256', data, new X509Certificate(entry.chain[0]!).publicKey, signature);
}

describe('readSigningKeyStore', () => {
  it('reads a PKCS#12 made by openssl with its chain (key entry first, then the CA), and refuses a wrong password', () => {
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=Test CA', '-keyout', scratch.file('ca.key'), '-out', scratch.file('ca.pem'), '-days', '5');
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=Signer', '-keyout', scratch.file('s.key'), '-out', scratch.file('s.csr'));
    openssl('x509', '-req', '-in', scratch.file('s.csr'), '-CA', scratch.file('ca.pem'), '-CAkey', scratch.file('ca.key'), '-CAcreateserial', '-out', scratch.file('s.pem'), '-days', '5');
    openssl(
      'pkcs12',
      '-export',
      '-inkey',
      scratch.file('s.key'),
      '-in',
      scratch.file('s.pem'),
      '-certfile',
      scratch.file('ca.pem'),
      '-name',
      'my signer',
      '-passout',
      'pass:p12-pw',
      '-out',
      scratch.file('s.p12'),
    );
    const entries = readSigningKeyStore(readFileSync(scratch.file('s.p12')), 'PKCS12', 'p12-pw', 's.p12');
    const signer = entries.find((e) => e.hasPrivateKey)!;
    expect(signer.alias).toBe('my signer');
    expect(signer.chain.map((der) => new X509Certificate(der).subject)).toEqual(['CN=Signer', 'CN=Test CA']);
    expect(signsForItsCertificate(signer)).toBe(true);
    expect(() => readSigningKeyStore(readFileSync(scratch.file('s.p12')), 'PKCS12', 'wrong', 's.p12')).toThrow(KeyStoreError);
  });

  it('reads a JKS by keytool whose key password differs from the store password', () => {
    const store = scratch.file('two.jks');
    keytoolKeyPair(store, { alias: 'first', keyalg: 'RSA', keysize: 2048, dname: 'CN=First', password: 'store-pw' });
    keytool('-keypasswd', '-keystore', store, '-storepass', 'store-pw', '-alias', 'first', '-keypass', 'store-pw', '-new', 'key-pw');
    const [entry] = readSigningKeyStore(readFileSync(store), 'JKS', 'store-pw', 'two.jks');
    expect(entry!.alias).toBe('first');
    expect(() => entry!.openKey()).toThrow(KeyStoreError);
    expect(signsForItsCertificate(entry!, 'key-pw')).toBe(true);
    // Opened keys are kept for the next signature, but only for the password that opened them.
    expect(entry!.openKey('key-pw')).toBe(entry!.openKey('key-pw'));
    expect(() => entry!.openKey('wrong')).toThrow(KeyStoreError);
    expect(() => entry!.openKey()).toThrow(KeyStoreError);
  });

  it('reads a PEM certificate and an encrypted key', () => {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-passout',
      'pass:pem-pw',
      '-subj',
      '/CN=Pem Signer',
      '-keyout',
      scratch.file('p.key'),
      '-out',
      scratch.file('p.pem'),
      '-days',
      '5',
    );
    const [entry] = readSigningKeyStore(readFileSync(scratch.file('p.pem')), 'PEM', 'pem-pw', 'p.pem', readFileSync(scratch.file('p.key')));
    expect(entry!.alias).toBe('Pem Signer');
    expect(signsForItsCertificate(entry!)).toBe(true);
  });

  it('generates a PKCS#12 that openssl opens: one RSA-2048 key under the generated alias, signed with SHA-256', async () => {
    const content = await generateSigningKeyStore(GENERATED_SIGNING_ALIAS, 'gen-pw', 'Generated Signer');
    const file = scratch.file('generated.p12');
    writeFileSync(file, content);
    const info = openssl('pkcs12', '-in', file, '-passin', 'pass:gen-pw', '-nokeys', '-info');
    expect(info).toContain(`friendlyName: ${GENERATED_SIGNING_ALIAS}`);
    const cert = openssl('pkcs12', '-in', file, '-passin', 'pass:gen-pw', '-nokeys', '-clcerts');
    writeFileSync(scratch.file('generated.pem'), cert);
    const text = openssl('x509', '-in', scratch.file('generated.pem'), '-noout', '-text');
    expect(text).toContain('Public-Key: (2048 bit)');
    expect(text).toContain('sha256WithRSAEncryption');
    expect(text).toMatch(/Digital Signature, Non Repudiation/);
  });
});
