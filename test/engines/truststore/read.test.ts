import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TRUST_STORE_BYTES, readTrustStore, TrustStoreError } from '../../../src/engines/truststore/read.js';

/** Trust stores made by keytool (the tool administrators use), read back; hostile headers refused quickly. */
describe('readTrustStore', () => {
  let dir: string;
  let jks: Buffer;
  let der: Buffer;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'quire-truststore-read-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'ca.key'), '-out', path.join(dir, 'ca.pem'), '-days', '30', '-subj', '/CN=Read Test CA'], {
      stdio: 'ignore',
    });
    execFileSync('keytool', ['-importcert', '-noprompt', '-alias', 'read-ca', '-file', path.join(dir, 'ca.pem'), '-keystore', path.join(dir, 't.jks'), '-storetype', 'JKS', '-storepass', 'changeit'], {
      stdio: 'ignore',
    });
    jks = readFileSync(path.join(dir, 't.jks'));
    der = execFileSync('openssl', ['x509', '-in', path.join(dir, 'ca.pem'), '-outform', 'DER']);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const kind = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(TrustStoreError);
      return (error as TrustStoreError).kind;
    }
    throw new Error('expected a TrustStoreError');
  };

  it('lists the certificates of a JKS its password opens', () => {
    const { format, certificates } = readTrustStore(jks, 'changeit');
    expect(format).toBe('JKS');
    expect(certificates).toEqual([{ alias: 'read-ca', der, hasPrivateKey: false }]);
    expect(kind(() => readTrustStore(jks, 'wrong'))).toBe('password');
  });

  it('refuses a header that claims two billion entries, at once, as damaged', () => {
    const header = Buffer.alloc(12);
    header.writeUInt32BE(0xfeedfeed, 0);
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(0x7fffffff, 8);
    expect(kind(() => readTrustStore(header, 'changeit'))).toBe('format');
    // A trusted-certificate entry whose certificate length points far past the end.
    const lying = Buffer.concat([jks.subarray(0, 12), Buffer.from([0, 0, 0, 2, 0, 1, 0x61]), Buffer.alloc(8), Buffer.from([0, 5]), Buffer.from('X.509'), Buffer.from([0x7f, 0xff, 0xff, 0xff])]);
    expect(kind(() => readTrustStore(lying, 'changeit'))).toBe('format');
  });

  it('refuses JCEKS, other files and anything above the size cap before parsing', () => {
    const jceks = Buffer.from(jks);
    jceks.writeUInt32BE(0xcececece, 0);
    expect(kind(() => readTrustStore(jceks, 'changeit'))).toBe('format');
    expect(kind(() => readTrustStore(Buffer.from('%PDF-1.7'), 'x'))).toBe('format');
    expect(kind(() => readTrustStore(Buffer.concat([jks, Buffer.alloc(MAX_TRUST_STORE_BYTES)]), 'changeit'))).toBe('format');
    expect(kind(() => readTrustStore(Buffer.from([0x30, 0x82, 0xff, 0xff, 1, 2, 3]), 'x'))).toBe('format');
  });
});
