import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openssl } from '../helpers/certificates.js';
import { realPdf } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { startLocalPki, type Issued } from '../helpers/local-pki.js';
import { startLocalTsa } from '../helpers/local-tsa.js';
import { catalogOf, objectDict, qpdfCheck, qpdfObjects, type QDict } from '../helpers/pdf-tools.js';

// A local CA (root and intermediate) with OCSP responders and CRLs, and a time-stamp authority it certified.
const pki = await startLocalPki();
const tsaCert = pki.issue('Quire Test TSA', { extendedKeyUsage: 'timeStamping' });
const tsa = await startLocalTsa({ cert: tsaCert.cert, key: tsaCert.key, chain: pki.intermediate.cert });
afterAll(async () => {
  await tsa.close();
  await pki.close();
});

const sign = (rest: string, headers: Record<string, string>, documentId: string, signer: Issued, certificationLevel = 'none') =>
  fetch(`${rest}/signature/${documentId}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      signature: { add: { certificationLevel, signer: { keyPair: { certificate: { value: signer.chainPem }, privateKey: { value: readFileSync(signer.key, 'utf8') } } } } },
    }),
  });

/** The data of a stream object, as qpdf decodes it. */
function streamData(file: string, ref: string): Buffer {
  return execFileSync('qpdf', [`--show-object=${ref}`, '--filtered-stream-data', file], { maxBuffer: 64 * 1024 * 1024 });
}

/** The VRI key of each signature, computed here: uppercase SHA-1 hex of its /Contents bytes (the hex string between the byte ranges). */
function vriKeys(file: string): string[] {
  const text = readFileSync(file).toString('latin1');
  return [...text.matchAll(/\/ByteRange\s*\[0 (\d+) (\d+) \d+\]/g)].map((m) =>
    createHash('sha1')
      .update(Buffer.from(text.slice(Number(m[1]) + 1, Number(m[2]) - 1), 'hex'))
      .digest('hex')
      .toUpperCase(),
  );
}

function pdfsig(file: string): string {
  const result = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`;
}

async function errorOf(response: Response): Promise<{ errorCode: number; errorMessage: string }> {
  expect(response.headers.get('content-type')).toBe('application/json');
  return (await response.json()) as { errorCode: number; errorMessage: string };
}

describe('B-LT signatures', () => {
  const { server, session, upload, download } = useTestServer({
    yaml: `network:\n  allowHosts: ['127.0.0.1']\nsignature:\n  tsa:\n    url: ${tsa.url}\n  revocation:\n    check: both\n    timeout: 5\n`,
  });
  const signer = pki.issue('LTV Signer');

  it("adds a DSS with the OCSP responses, CRLs and certificates of the signer's and the authority's chains, in an update after the signature", async () => {
    const original = await realPdf(1);
    const document = await upload(original, 'ltv.pdf');
    const before = pki.requests.length;
    expect((await sign(server.rest, session.headers, document.documentId, signer)).status).toBe(303);
    const file = await download(document.documentId, 'pdf');
    const bytes = readFileSync(file);
    // The original, then the signature's update, then the DSS update: the signature is valid and covers all but the DSS.
    expect(bytes.subarray(0, original.length).equals(original)).toBe(true);
    expect(bytes.toString('latin1').match(/%%EOF/g)?.length).toBe((original.toString('latin1').match(/%%EOF/g)?.length ?? 0) + 2);
    const report = pdfsig(file);
    expect(report).toContain('Signature is Valid.');
    expect(report).toContain('Not total document signed'); // the DSS update follows the signed revision
    qpdfCheck(file);
    // Leaf, intermediate and TSA at the intermediate's responder, the intermediate at the root's; both CRLs.
    expect(pki.requests.slice(before).filter((r) => r === 'POST /ocsp/intermediate')).toHaveLength(2);
    expect(pki.requests.slice(before)).toEqual(expect.arrayContaining(['POST /ocsp/root', 'GET /crl/intermediate.crl', 'GET /crl/root.crl']));

    const objects = qpdfObjects(file);
    const dss = objectDict(objects, catalogOf(objects)['/DSS'])!;
    const refs = (name: string) => dss[name] as string[];
    const subjects = refs('/Certs').map((ref) => new X509Certificate(streamData(file, ref)).subject.split('\n')[0]);
    expect(subjects.sort()).toEqual(['CN=LTV Signer', 'CN=Quire Test Intermediate CA', 'CN=Quire Test OCSP Responder', 'CN=Quire Test Root CA', 'CN=Quire Test TSA']);
    // Each embedded OCSP response as `openssl ocsp -respin` reads it: good, and together about the signer, the TSA and the intermediate.
    const statuses = refs('/OCSPs').map((ref, i) => {
      const response = path.join(pki.dir, `embedded${i}.der`);
      writeFileSync(response, streamData(file, ref));
      return openssl('ocsp', '-respin', response, '-resp_text', '-noverify');
    });
    expect(statuses).toHaveLength(3);
    for (const text of statuses) expect(text).toContain('Cert Status: good');
    const serials = statuses.map((text) => /Serial Number: (\w+)/.exec(text)?.[1]);
    const intermediateSerial = openssl('x509', '-in', pki.intermediate.cert, '-noout', '-serial').trim().replace('serial=', '');
    expect(serials.sort()).toEqual([signer.serial, tsaCert.serial, intermediateSerial].sort());
    const crlIssuers = refs('/CRLs').map((ref, i) => {
      const list = path.join(pki.dir, `embedded${i}.crl`);
      writeFileSync(list, streamData(file, ref));
      return openssl('crl', '-inform', 'DER', '-in', list, '-noout', '-issuer').trim();
    });
    expect(crlIssuers.sort()).toEqual(['issuer=CN = Quire Test Intermediate CA, O = Quire Tests', 'issuer=CN = Quire Test Root CA, O = Quire Tests']);
    // The VRI entry of the signature, keyed by the SHA-1 of its /Contents, lists the same data.
    const vri = objectDict(objects, dss['/VRI'])!;
    const [key] = vriKeys(file);
    expect(Object.keys(vri)).toEqual([`/${key}`]);
    const entry = vri[`/${key}`] as QDict;
    expect((entry['/OCSP'] as string[]).sort()).toEqual([...refs('/OCSPs')].sort());
    expect((entry['/CRL'] as string[]).sort()).toEqual([...refs('/CRLs')].sort());
    expect(entry['/Cert'] as string[]).toHaveLength(5);
  });

  it('adds to the DSS at a second signature: both signatures valid, one VRI entry each', async () => {
    const document = await upload(await realPdf(1), 'ltv-twice.pdf');
    expect((await sign(server.rest, session.headers, document.documentId, signer)).status).toBe(303);
    expect((await sign(server.rest, session.headers, document.documentId, signer)).status).toBe(303);
    const file = await download(document.documentId, 'pdf');
    expect(pdfsig(file).match(/Signature is Valid\./g)).toHaveLength(2);
    const objects = qpdfObjects(file);
    const dss = objectDict(objects, catalogOf(objects)['/DSS'])!;
    expect(Object.keys(objectDict(objects, dss['/VRI'])!).sort()).toEqual(
      vriKeys(file)
        .map((key) => `/${key}`)
        .sort(),
    );
    expect(dss['/OCSPs'] as string[]).toHaveLength(6);
  });

  it('refuses a revoked certificate with -183 and leaves the document as it was', async () => {
    const revoked = pki.issue('Revoked LTV Signer');
    pki.revoke(revoked);
    const original = await realPdf(1);
    const document = await upload(original, 'revoked.pdf');
    const response = await sign(server.rest, session.headers, document.documentId, revoked);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.errorCode).toBe(-183);
    expect(error.errorMessage).toContain('CN=Revoked LTV Signer');
    expect(error.errorMessage).toContain('revoked');
    expect(readFileSync(await download(document.documentId, 'pdf')).equals(original)).toBe(true);
  });

  it('fails with -184 naming the responder when it cannot be reached', async () => {
    const lonely = pki.issue('Unreachable LTV Signer', { ocspUrl: 'http://127.0.0.1:9/ocsp', crlUrl: null });
    const original = await realPdf(1);
    const document = await upload(original, 'unreachable.pdf');
    const response = await sign(server.rest, session.headers, document.documentId, lonely);
    expect(response.status).toBe(502);
    const error = await errorOf(response);
    expect(error.errorCode).toBe(-184);
    expect(error.errorMessage).toContain('http://127.0.0.1:9/ocsp');
    expect(readFileSync(await download(document.documentId, 'pdf')).equals(original)).toBe(true);
  });
});

describe('B-LT without the responders allowed by the address policy', () => {
  const { server, session, upload, download } = useTestServer({ yaml: 'signature:\n  revocation:\n    check: ocsp\n' });

  it('refuses the internal address with -184 and asks nothing', async () => {
    const original = await realPdf(1);
    const document = await upload(original, 'internal.pdf');
    const before = pki.requests.length;
    const response = await sign(server.rest, session.headers, document.documentId, pki.issue('Internal LTV Signer'));
    expect(response.status).toBe(502);
    const error = await errorOf(response);
    expect(error.errorCode).toBe(-184);
    expect(error.errorMessage).toMatch(/is not allowed: 127\.0\.0\.1 is a loopback address/);
    expect(pki.requests.length).toBe(before);
    expect(readFileSync(await download(document.documentId, 'pdf')).equals(original)).toBe(true);
  });
});

describe('B-LTA: a document time-stamp after the DSS', () => {
  const { server, session, upload, download } = useTestServer({
    yaml: `network:\n  allowHosts: ['127.0.0.1']\nsignature:\n  tsa:\n    url: ${tsa.url}\n    hashAlgorithm: SHA-512\n  revocation:\n    check: ocsp\n  documentTimestamp: true\n`,
  });

  it('covers the whole file, the DSS included, with a token openssl verifies against the test CA', async () => {
    const document = await upload(await realPdf(1), 'lta.pdf');
    expect((await sign(server.rest, session.headers, document.documentId, pki.issue('LTA Signer'))).status).toBe(303);
    const file = await download(document.documentId, 'pdf');
    const bytes = readFileSync(file);
    const text = bytes.toString('latin1');
    const ranges = [...text.matchAll(/\/ByteRange\s*\[0 (\d+) (\d+) (\d+)\]/g)].map((m) => [Number(m[1]), Number(m[2]), Number(m[3])] as const);
    expect(ranges).toHaveLength(2);
    const [start, end, rest] = ranges[1]!;
    // The time-stamp's ranges end at the end of the file, and the DSS lies inside them.
    expect(end + rest).toBe(bytes.length);
    const objects = qpdfObjects(file);
    const dssRef = catalogOf(objects)['/DSS'] as string;
    expect(text.indexOf(`\n${dssRef.replace(' R', ' obj')}`)).toBeGreaterThan(ranges[0]![1]);
    expect(text.indexOf(`\n${dssRef.replace(' R', ' obj')}`)).toBeLessThan(start);
    const stamp = Object.values(objects)
      .map((entry) => entry.value)
      .find((value) => (value as QDict | undefined)?.['/Type'] === '/DocTimeStamp') as QDict;
    expect(stamp['/SubFilter']).toBe('/ETSI.RFC3161');
    expect(stamp['/M']).toBeUndefined();
    // openssl checks the token: over the byte ranges (SHA-512, as configured), signed by the TSA the test CA certified.
    const data = path.join(pki.dir, 'lta-ranges.bin');
    const token = path.join(pki.dir, 'lta-token.der');
    writeFileSync(data, Buffer.concat([bytes.subarray(0, start), bytes.subarray(end)]));
    writeFileSync(token, Buffer.from(text.slice(start + 1, end - 1).replace(/(00)+$/, ''), 'hex'));
    const untrusted = path.join(pki.dir, 'lta-untrusted.pem');
    writeFileSync(untrusted, `${readFileSync(tsaCert.cert, 'utf8')}${readFileSync(pki.intermediate.cert, 'utf8')}`);
    const verified = spawnSync('openssl', ['ts', '-verify', '-data', data, '-in', token, '-token_in', '-CAfile', pki.root.cert, '-untrusted', untrusted], { encoding: 'utf8' });
    expect(`${verified.stdout}${verified.stderr}`).toContain('Verification: OK');
    expect(openssl('ts', '-reply', '-in', token, '-token_in', '-text')).toContain('Hash Algorithm: sha512');
    // The signature before it is still valid; pdfsig lists the time-stamp, covering the whole file, but cannot validate that type.
    const report = pdfsig(file);
    expect(report).toContain('Signature is Valid.');
    expect(report.slice(report.indexOf('Signature #2'))).toMatch(/Signature Field Name: DocTimeStamp1[\s\S]*Signer Certificate Common Name: Quire Test TSA[\s\S]*Total document signed/);
  });

  it('follows a certification with no changes allowed (the default): a DSS and a document time-stamp are no change', async () => {
    const document = await upload(await realPdf(1), 'lta-certified.pdf');
    expect((await sign(server.rest, session.headers, document.documentId, pki.issue('Certifying Signer'), 'noChanges')).status).toBe(303);
    const file = await download(document.documentId, 'pdf');
    const objects = qpdfObjects(file);
    const perms = objectDict(objects, catalogOf(objects)['/Perms'])!;
    expect(perms['/DocMDP']).toBeDefined();
    expect(catalogOf(objects)['/DSS']).toBeDefined();
    expect(Object.values(objects).some((entry) => (entry.value as QDict | undefined)?.['/Type'] === '/DocTimeStamp')).toBe(true);
    expect(pdfsig(file)).toContain('Signature is Valid.');
  });
});

describe('B-LTA without a time-stamp authority', () => {
  const { server, session, upload, download } = useTestServer({ yaml: 'signature:\n  documentTimestamp: true\n' });

  it('fails with -182 naming the missing setting', async () => {
    const original = await realPdf(1);
    const document = await upload(original, 'no-tsa.pdf');
    const response = await sign(server.rest, session.headers, document.documentId, pki.issue('No TSA Signer'));
    expect(response.status).toBe(502);
    const error = await errorOf(response);
    expect(error.errorCode).toBe(-182);
    expect(error.errorMessage).toContain('signature.tsa.url');
    expect(readFileSync(await download(document.documentId, 'pdf')).equals(original)).toBe(true);
  });
});
