import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QpdfRunner } from '../../../src/engines/pdf/qpdf.js';
import { buildCms } from '../../../src/engines/signature/cms.js';
import { readSignableDocument, uniqueFieldName } from '../../../src/engines/signature/document.js';
import { writeSignatureUpdate, type SignatureFields } from '../../../src/engines/signature/update-writer.js';
import { openssl } from '../../helpers/certificates.js';
import { catalogOf, labelledPdf, objectDict, qpdfCheck, qpdfObjects, scratchDir, type QDict } from '../../helpers/pdf-tools.js';

const qpdf = new QpdfRunner({ qpdfPath: 'qpdf', timeoutMs: 30_000 });
const scratch = scratchDir('sign-engine');
let signer: { chain: Buffer[]; key: ReturnType<typeof createPrivateKey> };

/** pdfsig's report (exit status ignored: it is non-zero for untrusted self-signed certificates). */
function pdfsig(file: string): string {
  const result = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`;
}

/** The signature dictionaries of a file, as qpdf reads them. */
function signatureDicts(file: string): QDict[] {
  return Object.values(qpdfObjects(file))
    .map((entry) => entry.value)
    .filter((value): value is QDict => typeof value === 'object' && value !== null && !Array.isArray(value) && (value as QDict)['/Type'] === '/Sig');
}

/** The DocMDP P of the catalog's certification signature, as qpdf reads it. */
function docMdpLevel(file: string): unknown {
  const objects = qpdfObjects(file);
  const perms = objectDict(objects, catalogOf(objects)['/Perms']);
  const signature = objectDict(objects, perms?.['/DocMDP']);
  const reference = (signature?.['/Reference'] as QDict[] | undefined)?.[0];
  return (reference?.['/TransformParams'] as QDict | undefined)?.['/P'];
}

function fields(overrides: Partial<SignatureFields> = {}): SignatureFields {
  return {
    fieldName: 'Signature1',
    reason: 'Approved',
    location: 'Köln',
    contact: 'signer@example.org',
    name: 'Test Signer',
    signingTime: new Date(),
    certificationLevel: undefined,
    page: 1,
    rect: [0, 0, 0, 0],
    ...overrides,
  };
}

async function sign(input: string, output: string, overrides: Partial<SignatureFields> = {}): Promise<void> {
  const doc = await readSignableDocument(qpdf, input, {});
  await writeSignatureUpdate(doc, output, fields(overrides), async (digest) => buildCms(digest, signer).der);
}

beforeAll(() => {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '30', '-subj', '/CN=Test Signer/O=Quire Tests', '-keyout', scratch.file('key.pem'), '-out', scratch.file('cert.pem'));
  signer = { chain: [new X509Certificate(readFileSync(scratch.file('cert.pem'))).raw], key: createPrivateKey(readFileSync(scratch.file('key.pem'))) };
});
afterAll(() => (process.env.KEEP ? undefined : scratch.remove()));

describe('writeSignatureUpdate', () => {
  it('signs a PDF with an xref stream as an incremental update that pdfsig finds valid, covering the whole document', async () => {
    const input = await labelledPdf(scratch.file('stream.pdf'), [
      [595, 842],
      [595, 842],
    ]);
    const output = scratch.file('stream-signed.pdf');
    await sign(input, output, { certificationLevel: 2 });
    const original = readFileSync(input);
    const signed = readFileSync(output);
    expect(signed.subarray(0, original.length).equals(original)).toBe(true);
    qpdfCheck(output);
    const report = pdfsig(output);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
    expect(report).toContain('ETSI.CAdES.detached');
    expect(report).toContain('Signer Certificate Common Name: Test Signer');
    expect(report).toContain('Signing Hash Algorithm: SHA-256');
    expect(report).toMatch(/Signature Field Name: Signature1/);
    const [dict] = signatureDicts(output);
    expect(dict).toMatchObject({ '/Reason': 'u:Approved', '/Location': 'u:Köln', '/ContactInfo': 'u:signer@example.org', '/SubFilter': '/ETSI.CAdES.detached' });
    expect(docMdpLevel(output)).toBe(2);
  });

  it('signs a PDF with a classic xref table, keeps the kind, and a second signature leaves the first valid', async () => {
    const made = await labelledPdf(scratch.file('made.pdf'));
    const input = scratch.file('table.pdf');
    execFileSync('qpdf', ['--object-streams=disable', made, input]);
    const once = scratch.file('table-once.pdf');
    await sign(input, once, { certificationLevel: undefined });
    const twice = scratch.file('table-twice.pdf');
    const doc = await readSignableDocument(qpdf, once, {});
    expect(doc.xrefKind).toBe('table');
    expect(doc.fieldNames.has('Signature1')).toBe(true);
    await sign(once, twice, { fieldName: uniqueFieldName('Signature1', doc.fieldNames) });
    const tail = readFileSync(twice).toString('latin1');
    expect(tail.lastIndexOf('xref\n')).toBeGreaterThan(readFileSync(once).length);
    const report = pdfsig(twice);
    expect(report.match(/Signature is Valid\./g)).toHaveLength(2);
    expect(report).toContain('Signature Field Name: Signature2');
    // The first signature covers the first revision only; the second the whole file.
    expect(report).toContain('Total document signed');
    expect(signatureDicts(twice)).toHaveLength(2);
    expect(docMdpLevel(twice)).toBeUndefined();
  });

  it('writes a CAdES CMS that openssl verifies over the byte ranges, with ESS signing-certificate-v2 and no signing time', async () => {
    const input = await labelledPdf(scratch.file('cms.pdf'));
    const output = scratch.file('cms-signed.pdf');
    await sign(input, output);
    const bytes = readFileSync(output);
    const text = bytes.toString('latin1');
    const range = /\/ByteRange\s*\[0 (\d+) (\d+) (\d+)\]/.exec(text)!;
    const [a, b, c] = [Number(range[1]), Number(range[2]), Number(range[3])];
    expect(b + c).toBe(bytes.length);
    const hex = text.slice(a + 1, b - 1);
    writeFileSync(scratch.file('sig.der'), Buffer.from(hex, 'hex'));
    writeFileSync(scratch.file('content.bin'), Buffer.concat([bytes.subarray(0, a), bytes.subarray(b, b + c)]));
    const printed = openssl('cms', '-cmsout', '-print', '-inform', 'DER', '-in', scratch.file('sig.der'));
    expect(printed).toMatch(/id-smime-aa-signingCertificateV2/);
    expect(printed).not.toMatch(/signingTime/);
    const verified = spawnSync('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', scratch.file('sig.der'), '-content', scratch.file('content.bin'), '-noverify', '-out', '/dev/null'], {
      encoding: 'utf8',
    });
    expect(verified.stderr).toContain('Verification successful');
  });

  it('gives a digest mismatch when one byte inside the signed range changes', async () => {
    const input = await labelledPdf(scratch.file('tamper.pdf'));
    const output = scratch.file('tamper-signed.pdf');
    await sign(input, output);
    const bytes = readFileSync(output);
    const at = bytes.indexOf('PAGE-1') >= 0 ? bytes.indexOf('/MediaBox') + 2 : 200;
    bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
    writeFileSync(scratch.file('tampered.pdf'), bytes);
    expect(pdfsig(scratch.file('tampered.pdf'))).toMatch(/Digest Mismatch/);
  });

  it('refuses a second signature on a document certified with no changes allowed (P=1), and a page past the end', async () => {
    const input = await labelledPdf(scratch.file('certified.pdf'));
    const output = scratch.file('certified-signed.pdf');
    await sign(input, output, { certificationLevel: 1 });
    expect(pdfsig(output)).toContain('Signature is Valid.');
    await expect(sign(output, scratch.file('again.pdf'), { fieldName: 'Other', certificationLevel: undefined })).rejects.toMatchObject({ kind: 'certified' });
    await expect(sign(input, scratch.file('page.pdf'), { page: 2000 })).rejects.toMatchObject({ kind: 'pageOutOfRange' });
  });

  it('makes a taken field name unique', () => {
    expect(uniqueFieldName('Signature1', new Set(['Signature1', 'Signature2']))).toBe('Signature3');
    expect(uniqueFieldName('Approval', new Set(['Approval']))).toBe('Approval_2');
    expect(uniqueFieldName('Free', new Set())).toBe('Free');
  });
});
