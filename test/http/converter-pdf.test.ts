import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { convert, convertOk, downloadToFile, pageText, pdfFacts } from '../helpers/converter.js';
import { info, uploadFile } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { numberedPdf } from '../helpers/toolbox.js';
import { imageSizes } from '../helpers/pdf-tools.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-converter-pdf-'));

function encrypt(pdf: Buffer, user: string): Buffer {
  const input = path.join(scratch, `plain-${Date.now()}.pdf`);
  const output = `${input}.enc.pdf`;
  writeFileSync(input, pdf);
  execFileSync('qpdf', ['--encrypt', user, `${user}-owner`, '256', '--', input, output]);
  return readFileSync(output);
}

describe('converter: PDF, PostScript input and the finishing options', () => {
  const { server, session } = useTestServer();

  it('normalises a PDF and keeps the selected pages in the given order ("4-5,1")', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(5), 'numbers.pdf');
    await convertOk(server.rest, session.token, uploaded.documentId, { converter: { pages: '4-5,1' } });
    const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
    expect(pdfFacts(file).pages).toBe(3);
    expect([1, 2, 3].map((p) => pageText(file, p).trim())).toEqual(['PAGE-4', 'PAGE-5', 'PAGE-1']);
  });

  it('writes uncompressed streams with compression false', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'plain.pdf');
    await convertOk(server.rest, session.token, uploaded.documentId, { converter: { compression: false } });
    const bytes = readFileSync(await downloadToFile(server.rest, session.token, uploaded.documentId));
    expect(bytes.includes('/FlateDecode')).toBe(false);
    // The page content is readable text (operators in the clear).
    expect(bytes.includes(' Tj')).toBe(true);
  });

  it('needs the open password of a protected PDF (-5009), takes it from the call, and keeps the protection', async () => {
    const uploaded = await uploadFile(server.rest, session.token, encrypt(await numberedPdf(3), 'geheim'), 'locked.pdf');
    const refused = await convert(server.rest, session.token, uploaded.documentId, { converter: { pages: '2' } });
    expect(refused).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -5009 } });
    const wrong = await convert(server.rest, session.token, uploaded.documentId, { converter: { pages: '2' }, password: { open: 'nope' } });
    expect(wrong.error?.errorCode).toBe(-5008);
    await convertOk(server.rest, session.token, uploaded.documentId, { converter: { pages: '2' }, password: { open: 'geheim' } });
    const file = await downloadToFile(server.rest, session.token, uploaded.documentId);
    expect(() => pdfFacts(file)).toThrow(/password/i);
    const facts = pdfFacts(file, 'geheim');
    expect(facts.pages).toBe(1);
    expect(facts.text).toContain('PAGE-2');
  });

  it('down-samples images with reduceResolution and dpi (Ghostscript)', async () => {
    const png = await sharp({ create: { width: 2400, height: 2400, channels: 3, background: { r: 200, g: 30, b: 30 } } })
      .composite([{ input: Buffer.from('<svg width="2400" height="2400"><circle cx="1200" cy="1200" r="900" fill="#2040c0"/></svg>'), top: 0, left: 0 }])
      .png()
      .toBuffer();
    const document = await PDFDocument.create();
    const image = await document.embedPng(png);
    // 2400 px on 4 inches: 600 dpi.
    document.addPage([288, 288]).drawImage(image, { x: 0, y: 0, width: 288, height: 288 });
    const uploaded = await uploadFile(server.rest, session.token, Buffer.from(await document.save()), 'photo.pdf');
    await convertOk(server.rest, session.token, uploaded.documentId, { converter: { reduceResolution: true, dpi: 150, jpegQuality: 80 } });
    const [embedded] = imageSizes(await downloadToFile(server.rest, session.token, uploaded.documentId));
    expect(embedded?.width).toBeLessThanOrEqual(610);
    expect(embedded?.width).toBeGreaterThanOrEqual(590);
  });

  it('converts PostScript (Ghostscript, sandboxed)', async () => {
    const ps = Buffer.from('%!PS-Adobe-3.0\n/Helvetica findfont 24 scalefont setfont\n72 720 moveto (QUIRE-PS-MARKER) show\nshowpage\n', 'latin1');
    const uploaded = await uploadFile(server.rest, session.token, ps, 'page.ps');
    await convertOk(server.rest, session.token, uploaded.documentId);
    const facts = pdfFacts(await downloadToFile(server.rest, session.token, uploaded.documentId));
    expect(facts.pages).toBe(1);
    expect(facts.text).toContain('QUIRE-PS-MARKER');
  });

  it('refuses converter/new, unknown types, unknown fileExtension values and unsupported options clearly', async () => {
    const response = await fetch(`${server.rest}/converter/new?history=false`, {
      method: 'POST',
      headers: { ...session.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ converter: {} }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errorMessage: string }).errorMessage).toMatch(/upload the document first/);

    const zip = execFileSync('sh', ['-c', `cd ${scratch} && echo hi > a.txt && zip -q a.zip a.txt && cat a.zip`]);
    const archive = await uploadFile(server.rest, session.token, zip, 'a.zip');
    const unsupported = await convert(server.rest, session.token, archive.documentId);
    expect(unsupported).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -101 } });
    expect(unsupported.error?.errorMessage).toMatch(/"zip"/);

    const pdf = await uploadFile(server.rest, session.token, await numberedPdf(1), 'one.pdf');
    expect((await convert(server.rest, session.token, pdf.documentId, { converter: { fileExtension: 'nope' } })).error).toMatchObject({ errorCode: -14 });
    const bridge = await convert(server.rest, session.token, pdf.documentId, { converter: { officeBridge: {} } });
    expect(bridge.error).toMatchObject({ errorCode: -104 });
    expect(bridge.error?.errorMessage).toMatch(/converter\.officeBridge/);
    expect((await convert(server.rest, session.token, pdf.documentId, { converter: { pages: '1-x' } })).error).toMatchObject({ errorCode: -14 });
    expect((await convert(server.rest, session.token, pdf.documentId, { converter: { dpi: 99999 } })).error).toMatchObject({ errorCode: -14 });
    expect(await info(server.rest, session.token, pdf.documentId)).toMatchObject({ isFileLocked: false, fileSize: pdf.fileSize });
  });

  it('answers ENGINE_UNAVAILABLE (-107) for Office input when LibreOffice is disabled', async () => {
    const docx = readFileSync(path.resolve(import.meta.dirname, '../fixtures/office/sample.docx'));
    const uploaded = await uploadFile(server.rest, session.token, docx, 'off.docx');
    const outcome = await convert(server.rest, session.token, uploaded.documentId);
    expect(outcome).toMatchObject({ status: 503, contentType: 'application/json', error: { errorCode: -107 } });
  });
});
