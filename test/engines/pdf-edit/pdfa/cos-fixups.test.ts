import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString } from '@cantoo/pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ghostscript } from '../../../../src/engines/ghostscript/ghostscript.js';
import { findSrgbProfile } from '../../../../src/engines/ghostscript/pdfa.js';
import { inspectPdfaInput } from '../../../../src/engines/pdf-edit/pdfa/cos-description.js';
import { cosFixupUpdate } from '../../../../src/engines/pdf-edit/pdfa/cos-fixups.js';
import { applyPdfaFixups, readIccProfile } from '../../../../src/engines/pdf-edit/pdfa/fixups.js';
import { validatePdfa } from '../../../../src/engines/pdfa-validator/validate.js';
import { preflight1b, preflightAvailable } from '../../../operations/pdfa/preflight.js';
import { textImagePdf } from '../../../operations/pdfa/inputs.js';

/**
 * The b-level fix-ups of Ghostscript's output without pdf-lib (cos-fixups.ts): an incremental update
 * of the information dictionary and the XMP packet under their own numbers. Checked with poppler
 * (pdfinfo, -meta), qpdf, PDFBox preflight for part 1, and our validator; files with what only the
 * pdf-lib way removes (JavaScript, annotations) are left to it.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-cos-fixups-'));
const icc = findSrgbProfile();
const ghostscript = new Ghostscript();

async function distil(name: string, pdf: Buffer, part: 1 | 2 | 3): Promise<string> {
  const input = path.join(dir, `${name}-in.pdf`);
  const output = path.join(dir, `${name}-gs.pdf`);
  writeFileSync(input, pdf);
  await ghostscript.pdfa(input, output, { part, iccProfile: icc!, prefixFile: path.join(dir, `${name}.ps`), jpegQuality: 75, timeoutMs: 60_000 });
  return output;
}

describe.skipIf(icc === undefined)('b-level fix-ups without pdf-lib', () => {
  let plain: string;
  let plainInput: string;
  beforeAll(async () => {
    const pdf = await textImagePdf({ pages: 2 });
    plainInput = path.join(dir, 'plain-in.pdf');
    plain = await distil('plain', pdf, 1);
  });

  it('reads the input: description with non-ASCII text, creation date, no claim, untagged', async () => {
    const input = await inspectPdfaInput(plainInput);
    expect(input).toMatchObject({ claimed: undefined, tagged: false, description: { title: 'Prüfbericht – PDF/A', author: 'Quire tests', subject: 'PDF/A conversion' } });
    expect(input.description.created?.toISOString()).toBe('2024-03-01T10:00:00.000Z');
  });

  it("appends the Info and XMP of the original to Ghostscript's PDF/A-1 output: poppler, qpdf, PDFBox and our validator agree", async () => {
    const source = (await inspectPdfaInput(plainInput)).description;
    const original = readFileSync(plain);
    const output = path.join(dir, 'plain-out.pdf');
    const result = await applyPdfaFixups(plain, output, { part: 1, conformance: 'B', iccProfile: await readIccProfile(icc!), incremental: true, source, now: new Date('2026-01-02T03:04:05Z') });
    expect(result.changes).toEqual([]);
    const fixed = readFileSync(output);
    // An incremental update: Ghostscript's bytes as they were, then one more xref section of two objects.
    expect(fixed.subarray(0, original.length).equals(original)).toBe(true);
    expect(fixed.subarray(original.length).toString('latin1')).toMatch(
      /^(\n)?\d+ 0 obj\n[\s\S]*xref\n(?:\d+ 1\n\d{10} 00000 n\r\n){2}trailer\n<<\/Size \d+ \/Root \d+ 0 R \/Info \d+ 0 R \/ID \[<[0-9a-f]{32}> <[0-9a-f]{32}>\] \/Prev \d+>>\nstartxref\n\d+\n%%EOF\n$/,
    );
    execFileSync('qpdf', ['--check', output]);
    const info = execFileSync('pdfinfo', ['-isodates', output], { encoding: 'utf8' });
    expect(info).toMatch(/^Title:\s+Prüfbericht – PDF\/A$/m);
    expect(info).toMatch(/^Author:\s+Quire tests$/m);
    expect(info).toMatch(/^CreationDate:\s+2024-03-01T10:00:00Z$/m);
    expect(info).toMatch(/^ModDate:\s+2026-01-02T03:04:05Z$/m);
    const xmp = execFileSync('pdfinfo', ['-meta', output], { encoding: 'utf8' });
    expect(xmp).toContain('<pdfaid:part>1</pdfaid:part>');
    expect(xmp).toContain('<pdfaid:conformance>B</pdfaid:conformance>');
    expect(xmp).toContain('Prüfbericht – PDF/A');
    expect((await validatePdfa(output, '1b')).verdict).toBe('compliant');
    if (preflightAvailable) expect(preflight1b(output).valid).toBe(true);
  });

  it('PDF/A-3 output: the update passes our validator at 3b', async () => {
    const gs = await distil('part3', await textImagePdf({ pages: 1, image: false }), 3);
    const output = path.join(dir, 'part3-out.pdf');
    await applyPdfaFixups(gs, output, { part: 3, conformance: 'B', iccProfile: await readIccProfile(icc!), incremental: true });
    expect(readFileSync(output).length).toBeGreaterThan(readFileSync(gs).length);
    expect(execFileSync('pdfinfo', ['-meta', output], { encoding: 'utf8' })).toContain('<pdfaid:part>3</pdfaid:part>');
    expect((await validatePdfa(output, '3b')).verdict).toBe('compliant');
  });

  it('leaves files with annotations to the pdf-lib way (undefined), whose result is compliant too', async () => {
    // A printable link: Ghostscript keeps it (non-printing annotations and JavaScript it drops itself).
    const document = await PDFDocument.create();
    const page = document.addPage([595, 842]);
    const context = document.context;
    const link = context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 700, 200, 720], Border: [0, 0, 0], F: 4, A: { S: 'URI', URI: PDFString.of('https://example.org') } });
    page.node.set(PDFName.of('Annots'), context.obj([context.register(link)]));
    const gs = await distil('annots', Buffer.from(await document.save()), 1);
    expect(readFileSync(gs).toString('latin1')).toMatch(/\/Annots\s*\[/);
    expect(cosFixupUpdate(readFileSync(gs), { part: 1, now: new Date() })).toBeUndefined();
    const output = path.join(dir, 'annots-out.pdf');
    await applyPdfaFixups(gs, output, { part: 1, conformance: 'B', iccProfile: await readIccProfile(icc!), incremental: true });
    expect(execFileSync('pdfinfo', ['-meta', output], { encoding: 'utf8' })).toContain('<pdfaid:part>1</pdfaid:part>');
    expect((await validatePdfa(output, '1b')).verdict).toBe('compliant');
  });

  it('a broken file is left to the pdf-lib way', () => {
    const broken = Buffer.concat([readFileSync(plain).subarray(0, 2000), Buffer.from('\n%%EOF\n')]);
    expect(cosFixupUpdate(broken, { part: 1, now: new Date() })).toBeUndefined();
  });
});
