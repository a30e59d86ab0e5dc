import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../../../src/engines/net/address-policy.js';
import { SignatureEngineError } from '../../../src/engines/signature/errors.js';
import { collectValidationData, type RevocationOptions } from '../../../src/engines/signature/revocation.js';
import { openssl } from '../../helpers/certificates.js';
import { startLocalPki, type Issued } from '../../helpers/local-pki.js';

const pki = await startLocalPki();
afterAll(() => pki.close());

const options = (overrides: Partial<RevocationOptions> = {}): RevocationOptions => ({
  check: 'both',
  required: true,
  timeoutMs: 5000,
  policy: new AddressPolicy({ allowHosts: ['127.0.0.1'] }),
  ...overrides,
});

/** The DER certificates of an issued chain (leaf, intermediate, root). */
function chainOf(issued: Issued): Buffer[] {
  return [...issued.chainPem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]).raw);
}

/** openssl's reading of an OCSP response (not verified: the reading is what is checked). */
function ocspText(der: Buffer, name: string): string {
  const file = path.join(pki.dir, `${name}.resp`);
  writeFileSync(file, der);
  return openssl('ocsp', '-respin', file, '-resp_text', '-noverify');
}

async function failure(promise: Promise<unknown>): Promise<SignatureEngineError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SignatureEngineError);
  return error as SignatureEngineError;
}

describe('collectValidationData', () => {
  const good = pki.issue('Good Signer');

  it('fetches OCSP responses and CRLs for every certificate but the trust anchor, checked and embeddable', async () => {
    const before = pki.requests.length;
    const data = await collectValidationData(chainOf(good), options());
    const asked = pki.requests.slice(before);
    expect(asked).toEqual(expect.arrayContaining(['POST /ocsp/intermediate', 'POST /ocsp/root', 'GET /crl/intermediate.crl', 'GET /crl/root.crl']));
    expect(data.undetermined).toEqual([]);
    // Leaf and intermediate: one OCSP response each, good, about their serials.
    expect(data.ocsps).toHaveLength(2);
    const texts = data.ocsps.map((der, i) => ocspText(der, `good${i}`));
    for (const text of texts) {
      expect(text).toContain('OCSP Response Status: successful (0x0)');
      expect(text).toContain('Cert Status: good');
    }
    expect(texts[0]).toContain(`Serial Number: ${good.serial}`);
    // The intermediate's CRL and the root's, as openssl reads them.
    const issuers = data.crls.map((der, i) => {
      const file = path.join(pki.dir, `list${i}.crl`);
      writeFileSync(file, der);
      return openssl('crl', '-inform', 'DER', '-in', file, '-noout', '-issuer').trim();
    });
    expect(issuers.sort()).toEqual(['issuer=CN = Quire Test Intermediate CA, O = Quire Tests', 'issuer=CN = Quire Test Root CA, O = Quire Tests']);
    // The chain and the delegated responder's certificate.
    const subjects = data.certs.map((der) => new X509Certificate(der).subject.split('\n')[0]);
    expect(subjects).toEqual(['CN=Good Signer', 'CN=Quire Test Intermediate CA', 'CN=Quire Test Root CA', 'CN=Quire Test OCSP Responder']);
  });

  it('asks only the responders with check ocsp, only the CRLs with check crl', async () => {
    let before = pki.requests.length;
    const ocsp = await collectValidationData(chainOf(good), options({ check: 'ocsp' }));
    expect(ocsp.crls).toEqual([]);
    expect(pki.requests.slice(before).every((r) => r.startsWith('POST /ocsp/'))).toBe(true);
    before = pki.requests.length;
    const crl = await collectValidationData(chainOf(good), options({ check: 'crl' }));
    expect(crl.ocsps).toEqual([]);
    expect(crl.crls).toHaveLength(2);
    expect(pki.requests.slice(before).every((r) => r.startsWith('GET /crl/'))).toBe(true);
  });

  it('fetches a missing issuer from the caIssuers address', async () => {
    const before = pki.requests.length;
    const data = await collectValidationData(chainOf(good).slice(0, 1), options({ check: 'ocsp' }));
    expect(pki.requests.slice(before)).toEqual(expect.arrayContaining(['GET /ca/intermediate.crt', 'GET /ca/root.crt']));
    expect(data.ocsps).toHaveLength(2);
  });

  it('refuses a revoked certificate, by OCSP and by CRL', async () => {
    const revoked = pki.issue('Revoked Signer');
    pki.revoke(revoked);
    for (const check of ['ocsp', 'crl'] as const) {
      const error = await failure(collectValidationData(chainOf(revoked), options({ check })));
      expect(error.kind).toBe('revoked');
      expect(error.message).toContain('CN=Revoked Signer');
      expect(error.message).toContain(check === 'ocsp' ? 'OCSP responder' : 'CRL');
    }
  });

  it('names an unreachable responder; without required the certificate goes without', async () => {
    const lonely = pki.issue('Unreachable Responder Signer', { ocspUrl: 'http://127.0.0.1:9/ocsp', crlUrl: null });
    const error = await failure(collectValidationData(chainOf(lonely), options({ check: 'ocsp' })));
    expect(error.kind).toBe('revocation');
    expect(error.message).toContain('CN=Unreachable Responder Signer');
    expect(error.message).toContain('127.0.0.1:9');
    const data = await collectValidationData(chainOf(lonely), options({ check: 'ocsp', required: false }));
    expect(data.undetermined).toHaveLength(1);
    expect(data.ocsps).toHaveLength(1); // the intermediate's
  });

  it('refuses internal addresses unless the policy allows them, asking nothing', async () => {
    const before = pki.requests.length;
    const error = await failure(collectValidationData(chainOf(good), options({ policy: new AddressPolicy() })));
    expect(error.kind).toBe('revocation');
    expect(error.message).toMatch(/not allowed: 127\.0\.0\.1 is a loopback address/);
    expect(pki.requests.length).toBe(before);
  });

  it('refuses an answer its issuer did not sign', async () => {
    // A certificate whose OCSP address is the root's responder: the root answers about a serial it never issued, signed by the root, not by the certificate's issuer.
    const misdirected = pki.issue('Misdirected Signer', { ocspUrl: `${pki.base}/ocsp/root`, crlUrl: null });
    const error = await failure(collectValidationData(chainOf(misdirected), options({ check: 'ocsp' })));
    expect(error.kind).toBe('revocation');
    expect(error.message).toContain('CN=Misdirected Signer');
    expect(error.message).toMatch(/responder certificate its issuer did not issue/);
  });
});
