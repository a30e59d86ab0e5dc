import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QpdfRunner } from '../../../src/engines/pdf/qpdf.js';
import { buildCms } from '../../../src/engines/signature/cms.js';
import { readSignableDocument, uniqueFieldName } from '../../../src/engines/signature/document.js';
import { vriKey, writeDssUpdate } from '../../../src/engines/signature/dss.js';
import { writeSignatureUpdate } from '../../../src/engines/signature/update-writer.js';
import { openssl } from '../../helpers/certificates.js';
import { catalogOf, labelledPdf, objectDict, qpdfCheck, qpdfObjects, scratchDir, type QDict } from '../../helpers/pdf-tools.js';

const qpdf = new QpdfRunner({ qpdfPath: 'qpdf', timeoutMs: 30_000 });
const scratch = scratchDir('dss-engine');
let signer: { chain: Buffer[]; key: ReturnType<typeof createPrivateKey> };

beforeAll(() => {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '30', '-subj', '/CN=DSS Signer', '-keyout', scratch.file('key.pem'), '-out', scratch.file('cert.pem'));
  signer = { chain: [new X509Certificate(readFileSync(scratch.file('cert.pem'))).raw], key: createPrivateKey(readFileSync(scratch.file('key.pem'))) };
});
afterAll(() => (process.env.KEEP ? undefined : scratch.remove()));

/** Signs `input` into `output`; the VRI key of the new signature, computed from the file's bytes. */
async function sign(input: string, output: string): Promise<string> {
  const doc = await readSignableDocument(qpdf, input, {});
  const fieldName = uniqueFieldName('Signature1', doc.fieldNames);
  await writeSignatureUpdate(
    doc,
    output,
    { fieldName, reason: '', location: '', contact: '', name: 'DSS Signer', signingTime: new Date(), certificationLevel: undefined, page: 1, rect: [0, 0, 0, 0] },
    async (digest) => buildCms(digest, signer).der,
  );
  const text = readFileSync(output).toString('latin1');
  const last = [...text.matchAll(/\/ByteRange\s*\[0 (\d+) (\d+) \d+\]/g)].at(-1)!;
  return createHash('sha1')
    .update(Buffer.from(text.slice(Number(last[1]) + 1, Number(last[2]) - 1), 'hex'))
    .digest('hex')
    .toUpperCase();
}

function stream(file: string, ref: string): Buffer {
  return execFileSync('qpdf', [`--show-object=${ref}`, '--filtered-stream-data', file]);
}

function pdfsig(file: string): string {
  const result = spawnSync('pdfsig', ['-nocert', file], { encoding: 'utf8' });
  return `${result.stdout}${result.stderr}`;
}

describe('writeDssUpdate', () => {
  // Stand-ins for the validation data: the writer embeds bytes, whatever they are; distinct so they can be told apart.
  const data = { ocsps: [Buffer.from('ocsp-response-1')], crls: [Buffer.from('crl-1'), Buffer.from('crl-2')], undetermined: [] };

  for (const kind of ['stream', 'table'] as const) {
    it(`appends the DSS after a signature in a PDF with an xref ${kind}: the signature stays valid, the data reads back`, async () => {
      const made = await labelledPdf(scratch.file(`${kind}.pdf`));
      const input = scratch.file(`${kind}-input.pdf`);
      execFileSync('qpdf', [`--object-streams=${kind === 'stream' ? 'generate' : 'disable'}`, made, input]);
      const signed = scratch.file(`${kind}-signed.pdf`);
      const key = await sign(input, signed);
      const output = scratch.file(`${kind}-dss.pdf`);
      await writeDssUpdate(await readSignableDocument(qpdf, signed, {}), output, key, { ...data, certs: [signer.chain[0]!] });
      const before = readFileSync(signed);
      const after = readFileSync(output);
      expect(after.subarray(0, before.length).equals(before)).toBe(true);
      expect((await readSignableDocument(qpdf, output, {})).xrefKind).toBe(kind);
      qpdfCheck(output);
      expect(pdfsig(output)).toContain('Signature is Valid.');
      const objects = qpdfObjects(output);
      const dss = objectDict(objects, catalogOf(objects)['/DSS'])!;
      expect(dss['/Type']).toBe('/DSS');
      expect(stream(output, (dss['/Certs'] as string[])[0]!).equals(signer.chain[0]!)).toBe(true);
      expect((dss['/OCSPs'] as string[]).map((ref) => stream(output, ref).toString())).toEqual(['ocsp-response-1']);
      expect((dss['/CRLs'] as string[]).map((ref) => stream(output, ref).toString())).toEqual(['crl-1', 'crl-2']);
      const vri = objectDict(objects, dss['/VRI'])!;
      expect(Object.keys(vri)).toEqual([`/${key}`]);
      expect((vri[`/${key}`] as QDict)['/CRL']).toEqual(dss['/CRLs']);
    });
  }

  it('keeps an existing DSS and adds a second signature to it', async () => {
    const input = await labelledPdf(scratch.file('twice.pdf'));
    const once = scratch.file('twice-1.pdf');
    const first = await sign(input, once);
    const onceDss = scratch.file('twice-1-dss.pdf');
    await writeDssUpdate(await readSignableDocument(qpdf, once, {}), onceDss, first, { ...data, certs: [signer.chain[0]!] });
    const twice = scratch.file('twice-2.pdf');
    const second = await sign(onceDss, twice);
    expect(second).not.toBe(first);
    const output = scratch.file('twice-2-dss.pdf');
    await writeDssUpdate(await readSignableDocument(qpdf, twice, {}), output, second, { certs: [], ocsps: [Buffer.from('ocsp-response-2')], crls: [], undetermined: [] });
    expect(pdfsig(output).match(/Signature is Valid\./g)).toHaveLength(2);
    const objects = qpdfObjects(output);
    const dss = objectDict(objects, catalogOf(objects)['/DSS'])!;
    expect((dss['/OCSPs'] as string[]).map((ref) => stream(output, ref).toString())).toEqual(['ocsp-response-1', 'ocsp-response-2']);
    expect(dss['/CRLs']).toHaveLength(2);
    const vri = objectDict(objects, dss['/VRI'])!;
    expect(Object.keys(vri).sort()).toEqual([`/${first}`, `/${second}`].sort());
    expect((vri[`/${second}`] as QDict)['/CRL']).toBeUndefined();
  });

  it('keys a signature by the SHA-1 of its /Contents bytes, upper case', () => {
    expect(vriKey(Buffer.from('abc'))).toBe('A9993E364706816ABA3E25717850C26C9CD0D89D');
  });
});
