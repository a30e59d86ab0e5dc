/**
 * PDSignature and PKCSDataObject (PDF/A-2 6.4.3): a signature field whose CMS object openssl made, in a file
 * whose /ByteRange is right or off by one byte. pdfsig (poppler) is the independent judge of whether the range
 * covers the whole file; openssl of what the CMS holds (with or without the signer's certificate).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedDataFacts } from '../../../../../src/engines/pdfa-validator/model/pd/signature.js';
import { type PdfaReport, validatePdfa } from '../../../../../src/engines/pdfa-validator/validate.js';
import { buildPdf } from '../../cos/build-pdf.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pdfa-sig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function openssl(args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

let withCert: Buffer;
let noCert: Buffer;
beforeAll(() => {
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-subj', '/CN=pdfa test', '-days', '2']);
  writeFileSync(path.join(dir, 'data'), 'signed bytes');
  openssl(['cms', '-sign', '-binary', '-in', 'data', '-signer', 'c.pem', '-inkey', 'k.pem', '-outform', 'DER', '-out', 'with.der']);
  openssl(['cms', '-sign', '-binary', '-in', 'data', '-signer', 'c.pem', '-inkey', 'k.pem', '-nocerts', '-outform', 'DER', '-out', 'none.der']);
  withCert = readFileSync(path.join(dir, 'with.der'));
  noCert = readFileSync(path.join(dir, 'none.der'));
});

/** A one-page file with a signature field whose /V holds `cms` (zero-padded) and a /ByteRange shifted by `skew` bytes. */
function signedPdf(cms: Buffer, skew: number): string {
  const hex = Buffer.concat([cms, Buffer.alloc(64)]).toString('hex');
  const placeholder = '[0 0000000000 0000000000 0000000000]';
  const bodies = [
    '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /SigFlags 3 >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>',
    '<< /FT /Sig /T (s) /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /F 132 /P 3 0 R /V 5 0 R >>',
    `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange ${placeholder} /Contents <${hex}> >>`,
  ];
  const built = buildPdf(bodies);
  const text = built.bytes.toString('latin1');
  const start = text.indexOf(`/Contents <${hex}>`) + '/Contents '.length;
  const end = start + hex.length + 2;
  const range = `[0 ${String(start + skew).padStart(10, '0')} ${String(end).padStart(10, '0')} ${String(built.bytes.length - end).padStart(10, '0')}]`;
  const file = path.join(dir, `signed-${skew}-${cms.length}.pdf`);
  writeFileSync(file, Buffer.from(text.replace(placeholder, range), 'latin1'));
  return file;
}

function statusOf(r: PdfaReport, id: string): string | undefined {
  return r.rules.find((x) => x.id === id)?.status;
}

describe('signatures (PDF/A-2 6.4.3)', () => {
  it('a byte range over the whole file but the /Contents string passes 6.4.3-1; one byte off fails it (pdfsig agrees)', async () => {
    const good = signedPdf(withCert, 0);
    const pdfsig = spawnSync('pdfsig', [good], { encoding: 'utf8' });
    expect(pdfsig.stdout).toContain('Total document signed');
    const r = await validatePdfa(good, '2b');
    expect(statusOf(r, '6.4.3-1')).toBe('passed');
    expect(statusOf(r, '6.4.3-2')).toBe('passed');
    expect(statusOf(r, '6.4.3-3')).toBe('passed');

    const off = signedPdf(withCert, 1);
    expect(spawnSync('pdfsig', [off], { encoding: 'utf8' }).stdout).not.toContain('Total document signed');
    const bad = await validatePdfa(off, '2b');
    expect(statusOf(bad, '6.4.3-1')).toBe('failed');
    expect(bad.rules.find((x) => x.id === '6.4.3-1')?.failures[0]?.object).toBe('5 0 obj');
  });

  it('a CMS object without the signer certificate fails 6.4.3-2', async () => {
    const r = await validatePdfa(signedPdf(noCert, 0), '2b');
    expect(statusOf(r, '6.4.3-2')).toBe('failed');
    expect(statusOf(r, '6.4.3-3')).toBe('passed');
  });

  it('reads the DER: one signer, its certificate there or not; anything else has no signer', () => {
    expect(signedDataFacts(withCert)).toEqual({ SignerInfoCount: 1, signingCertificatePresent: true });
    expect(signedDataFacts(noCert)).toEqual({ SignerInfoCount: 1, signingCertificatePresent: false });
    expect(signedDataFacts(withCert.subarray(0, 200))).toEqual({ SignerInfoCount: 0, signingCertificatePresent: false });
    expect(signedDataFacts(Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]))).toEqual({ SignerInfoCount: 0, signingCertificatePresent: false });
    expect(signedDataFacts(Buffer.alloc(0))).toEqual({ SignerInfoCount: 0, signingCertificatePresent: false });
  });
});
