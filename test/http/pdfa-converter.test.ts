import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { bearer, json } from '../helpers/client.js';
import { postWebService } from '../helpers/converter.js';
import { useTestServer } from '../helpers/fixture.js';
import { preflight1b, preflightAvailable } from '../operations/pdfa/preflight.js';

/**
 * The nested step `converter.pdfa`: the pdfa web service's conversion inside the converter's
 * transaction. Office input keeps LibreOffice's own PDF/A export (validated by our validator, kept as
 * it is unless it fails); other input goes through Ghostscript and our fix-ups. Checked with PDFBox
 * preflight (1b) and poppler's view of the XMP.
 */

const OFFICE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'office');
const { server, session, upload, download } = useTestServer({ engines: true, env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false' } });

const convert = (documentId: string, body: unknown) => postWebService(`${server.rest}/converter/${documentId}`, session.token, body);
const xmpOf = (file: string): string => execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' });

async function pdfaOf(documentId: string): Promise<unknown> {
  const described = await json(await fetch(`${server.rest}/documents/${documentId}/info`, { headers: bearer(session.token) }));
  return (described.metadata as { information: { pdfa: unknown } }).information.pdfa;
}

describe('converter.pdfa', () => {
  it.skipIf(!preflightAvailable)('DOCX to PDF/A-1b: LibreOffice exports it, our validator checks it, PDFBox preflight accepts it', async () => {
    const uploaded = await upload(readFileSync(path.join(OFFICE, 'sample.docx')), 'sample.docx');
    const outcome = await convert(uploaded.documentId, { converter: { pdfa: { convert: { level: '1b', errorReport: 'message' } } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(uploaded.documentId);
    const checked = preflight1b(file);
    expect(checked.valid, checked.output).toBe(true);
    expect(await pdfaOf(uploaded.documentId)).toEqual({ part: '1', conformance: 'B' });
  });

  it('ODT to PDF/A-2u: LibreOffice renders, Ghostscript and our fix-ups make the PDF/A', async () => {
    const uploaded = await upload(readFileSync(path.join(OFFICE, 'sample.odt')), 'sample.odt');
    const outcome = await convert(uploaded.documentId, { converter: { pdfa: { convert: { level: '2u' } } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(uploaded.documentId);
    expect(xmpOf(file)).toContain('<pdfaid:conformance>U</pdfaid:conformance>');
    expect(execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' })).toContain('QUIRE-MARKER-odt');
    expect(await pdfaOf(uploaded.documentId)).toEqual({ part: '2', conformance: 'U' });
  });

  it("DOCX to PDF/A-2a with autoTagging: LibreOffice's tagged export, our fix-ups keep its structure tree", async () => {
    const uploaded = await upload(readFileSync(path.join(OFFICE, 'sample.docx')), 'tagged.docx');
    const outcome = await convert(uploaded.documentId, { converter: { embedFonts: true, pdfa: { convert: { level: '2a', autoTagging: true } } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(uploaded.documentId);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/^Tagged:\s+yes/m);
    expect(xmpOf(file)).toContain('<pdfaid:conformance>A</pdfaid:conformance>');
    expect(await pdfaOf(uploaded.documentId)).toEqual({ part: '2', conformance: 'A' });
  });

  it('an image to PDF/A-3b through the pdfa step', async () => {
    const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 200, g: 40, b: 40 } } })
      .png()
      .toBuffer();
    const uploaded = await upload(png, 'red.png');
    const outcome = await convert(uploaded.documentId, { converter: { pdfa: { convert: { level: '3b' } } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(uploaded.documentId);
    expect(xmpOf(file)).toContain('<pdfaid:part>3</pdfaid:part>');
    expect(execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })).toMatch(/\s400\s+300\s/);
    expect(await pdfaOf(uploaded.documentId)).toEqual({ part: '3', conformance: 'B' });
  });

  it('refuses converter.pdfa options not done yet before converting', async () => {
    const uploaded = await upload(readFileSync(path.join(OFFICE, 'sample.odt')), 'refused.odt');
    const outcome = await convert(uploaded.documentId, { converter: { pdfa: { convert: { level: '3b', successReport: 'zip' } } } });
    expect(outcome).toMatchObject({ status: 400, error: { errorCode: -104 } });
    const described = await json(await fetch(`${server.rest}/documents/${uploaded.documentId}/info`, { headers: bearer(session.token) }));
    expect(described.fileExtension).toBe('odt');
  });
});
