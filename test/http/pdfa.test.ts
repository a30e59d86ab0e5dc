import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearer, json } from '../helpers/client.js';
import { postWebService } from '../helpers/converter.js';
import { sha256 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { protectedCopy, textImagePdf } from '../operations/pdfa/inputs.js';
import { preflight1b, preflightAvailable } from '../operations/pdfa/preflight.js';

/**
 * POST pdfa/{documentId} (reference §10.2) on a real server with the real Ghostscript, qpdf and our
 * validator; results checked with independent tools: PDFBox preflight (PDF/A-1b), pdfinfo (XMP,
 * encryption), qpdf, and the stored bytes for "unchanged".
 */

const { server, session, upload, download } = useTestServer();

const pdfa = (documentId: string, body: unknown, query = '') => postWebService(`${server.rest}/pdfa/${documentId}${query}`, session.token, body);

async function documentInfo(documentId: string): Promise<Record<string, any>> {
  return json(await fetch(`${server.rest}/documents/${documentId}/info`, { headers: bearer(session.token) }));
}

async function storedBytes(documentId: string): Promise<Buffer> {
  return readFileSync(await download(documentId));
}

/**
 * The report document as stored and as served: its DocumentFile says the format (extension, MIME
 * type, file type id) and the download's Content-Type and attachment name agree with it.
 */
async function reportDocument(documentId: string, extension: 'json' | 'xml', mimeType: string, fileTypeId: number): Promise<string> {
  const described = await documentInfo(documentId);
  expect(described).toMatchObject({ fileExtension: extension, mimeType, fileTypeId });
  const response = await fetch(`${server.rest}/documents/${documentId}`, { headers: { ...bearer(session.token), accept: 'application/octet-stream' } });
  const body = await response.text();
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(mimeType);
  expect(response.headers.get('content-disposition')).toMatch(new RegExp(`\\.${extension}"?(;|$)`));
  return body;
}

function xmpOf(file: string): string {
  return execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' });
}

describe('pdfa analyze', () => {
  it('validates without changing the document: the report is a new JSON document with a rule list, the verdict and the attribution', async () => {
    const uploaded = await upload(await textImagePdf(), 'plain.pdf');
    const before = sha256(await storedBytes(uploaded.documentId));
    const outcome = await pdfa(uploaded.documentId, { pdfa: { analyze: { level: '2b' } } });
    expect(outcome.status).toBe(303);
    const reportId = /documents\/([0-9a-f]{32})\/info$/.exec(outcome.location ?? '')?.[1];
    expect(reportId).toBeDefined();
    expect(reportId).not.toBe(uploaded.documentId);
    const report = JSON.parse(await reportDocument(reportId!, 'json', 'application/json', 63)).report;
    // A pdf-lib file has no XMP, no OutputIntent, no pdfaid: our validator must find it failing.
    expect(report.verdict).toBe('non-compliant');
    expect(report.level).toBe('2b');
    expect(report.attribution).toMatch(/veraPDF.*CC BY 4\.0/);
    const statuses = new Set(report.rules.map((r: { status: string }) => r.status));
    expect([...statuses].every((s) => ['passed', 'failed', 'not-checked'].includes(s as string))).toBe(true);
    const failed = report.rules.filter((r: { status: string }) => r.status === 'failed');
    expect(failed.length).toBe(report.counts.failed);
    expect(failed[0]).toMatchObject({
      id: expect.stringMatching(/^6\.[\d.]+-\d+$/),
      clause: expect.any(String),
      failures: [expect.objectContaining({ object: expect.any(String), count: expect.any(Number) })],
    });
    expect(sha256(await storedBytes(uploaded.documentId))).toBe(before);
  });

  it('writes the report as XML with reportFormat=xml', async () => {
    const uploaded = await upload(await textImagePdf({ image: false, pages: 1 }), 'plain.pdf');
    const outcome = await pdfa(uploaded.documentId, { pdfa: { analyze: { level: '1b' } } }, '?reportFormat=xml');
    expect(outcome.status).toBe(303);
    const reportId = /documents\/([0-9a-f]{32})\/info$/.exec(outcome.location ?? '')![1]!;
    expect(await reportDocument(reportId, 'xml', 'application/xml', 62)).toMatch(/^<\?xml /);
    const file = await download(reportId, 'xml');
    // Independent XML parser: Python's ElementTree.
    const summary = execFileSync('python3', ['-c', 'import sys,xml.etree.ElementTree as E;r=E.parse(sys.argv[1]).getroot();print(r.tag,r.get("verdict"),len(r.find("rules")))', file], {
      encoding: 'utf8',
    })
      .trim()
      .split(' ');
    expect(summary[0]).toBe('pdfaReport');
    expect(summary[1]).toBe('non-compliant');
    expect(Number(summary[2])).toBeGreaterThan(50);
  });
});

describe('pdfa convert', () => {
  it.skipIf(!preflightAvailable)('converts to PDF/A-1b that PDFBox preflight accepts; the DocumentFile shows part 1, conformance B', async () => {
    const uploaded = await upload(await textImagePdf({ javascript: true, hiddenAnnotation: true }), 'report.pdf');
    const outcome = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '1b' } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    expect(outcome.location).toMatch(new RegExp(`/documents/${uploaded.documentId}/info$`));
    const file = await download(uploaded.documentId);
    const checked = preflight1b(file);
    expect(checked.valid, checked.output).toBe(true);
    const xmp = xmpOf(file);
    expect(xmp).toMatch(/pdfaid:part>1</);
    expect(xmp).toMatch(/Prüfbericht – PDF\/A/);
    // JavaScript at open is gone (qpdf's view of the catalog).
    const catalog = JSON.parse(execFileSync('qpdf', ['--json', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
    expect(JSON.stringify(catalog)).not.toMatch(/JavaScript/);
    const described = await documentInfo(uploaded.documentId);
    expect(described.metadata.information.pdfa).toEqual({ part: '1', conformance: 'B' });
  });

  it.each(['2b', '3b', '2u', '3u'])('converts to PDF/A-%s: pdfaid in the XMP, an OutputIntent, the verdict as a warning', async (level) => {
    const uploaded = await upload(await textImagePdf(), `${level}.pdf`);
    const response = await fetch(`${server.rest}/pdfa/${uploaded.documentId}`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ pdfa: { convert: { level } } }),
      redirect: 'manual',
    });
    expect(response.status, await response.clone().text()).toBe(303);
    // Never "compliant" while rules go unchecked: the warning says what the validator concluded.
    expect(response.headers.get('warning')).toMatch(new RegExp(`PDF/A-${level} validation: (compliant|inconclusive)`));
    const file = await download(uploaded.documentId);
    const xmp = xmpOf(file);
    expect(xmp).toContain(`<pdfaid:part>${level[0]}</pdfaid:part>`);
    expect(xmp).toContain(`<pdfaid:conformance>${level[1]!.toUpperCase()}</pdfaid:conformance>`);
    const objects = execFileSync('qpdf', ['--json=1', '--json-key=objects', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(objects).toMatch(/"\/S": "\/GTS_PDFA1"/);
    expect(objects).toMatch(/"\/DestOutputProfile": "\d+ 0 R"/);
    expect(execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).toMatch(/No syntax or stream encoding errors/);
    const described = await documentInfo(uploaded.documentId);
    expect(described.metadata.information.pdfa).toEqual({ part: level[0], conformance: level[1]!.toUpperCase() });
  });

  it('converts a PDF whose cross-reference offsets are wrong (Ghostscript repairs as it reads; no qpdf pass needed)', async () => {
    const pdf = await textImagePdf({ pages: 1 });
    const text = pdf.toString('latin1');
    const at = text.lastIndexOf('startxref');
    const broken = Buffer.from(`${text.slice(0, at)}startxref\n12\n%%EOF\n`, 'latin1');
    const uploaded = await upload(broken, 'broken-xref.pdf');
    const outcome = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '2b', errorCorrection: { enabled: true } } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(uploaded.documentId);
    expect(execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).toMatch(/No syntax or stream encoding errors/);
    expect(execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' })).toContain('Quire PDF/A page 1');
  });

  it('keeps the old state in history mode', async () => {
    const uploaded = await upload(await textImagePdf({ pages: 1 }), 'history.pdf', '?history=true');
    const outcome = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '2b' } } });
    expect(outcome.status).toBe(303);
    const history = await json(await fetch(`${server.rest}/documents/${uploaded.documentId}/history`, { headers: bearer(session.token) }));
    expect(JSON.stringify(history)).toMatch(/pdfa/);
  });

  it('refuses a protected PDF without its password with -21 and leaves it as it was; with the password the result is unencrypted', async () => {
    const uploaded = await upload(protectedCopy(await textImagePdf({ pages: 1 }), 'user-secret'), 'protected.pdf');
    const before = sha256(await storedBytes(uploaded.documentId));
    const refused = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '2b' } } });
    expect(refused).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -21 } });
    expect(sha256(await storedBytes(uploaded.documentId))).toBe(before);
    const converted = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '2b' } }, password: { open: 'user-secret' } });
    expect(converted.status, JSON.stringify(converted.error)).toBe(303);
    const file = await download(uploaded.documentId);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/^Encrypted:\s+no/m);
    expect(xmpOf(file)).toContain('<pdfaid:part>2</pdfaid:part>');
  });

  describe('a result that fails its level (an embedded file in PDF/A-1b, which our fix-ups do not remove)', () => {
    it('errorReport none: -170 naming the failed rule, the document unchanged', async () => {
      const uploaded = await upload(await textImagePdf({ pages: 1, attachment: true }), 'attached.pdf');
      const before = sha256(await storedBytes(uploaded.documentId));
      const refused = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '1b' } } });
      expect(refused).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -170 } });
      expect(refused.error!.errorMessage).toMatch(/6\.1\.11-1/);
      expect(sha256(await storedBytes(uploaded.documentId))).toBe(before);
      expect(execFileSync('pdfdetach', ['-list', await download(uploaded.documentId)], { encoding: 'utf8' })).toMatch(/invoice\.txt/);
    });

    it('errorReport message: the report follows in the message', async () => {
      const uploaded = await upload(await textImagePdf({ pages: 1, attachment: true }), 'attached.pdf');
      const refused = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '1b', errorReport: 'message' } } });
      expect(refused).toMatchObject({ status: 400, error: { errorCode: -170 } });
      expect(refused.error!.errorMessage).toMatch(/<pdfaReport [^>]*verdict="non-compliant"/);
    });

    it('errorReport file: the report becomes a new document, the document stays as it was', async () => {
      const uploaded = await upload(await textImagePdf({ pages: 1, attachment: true }), 'attached.pdf');
      const before = sha256(await storedBytes(uploaded.documentId));
      const outcome = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '1b', errorReport: 'file' } } });
      expect(outcome.status).toBe(303);
      const reportId = /documents\/([0-9a-f]{32})\/info$/.exec(outcome.location ?? '')![1]!;
      expect(reportId).not.toBe(uploaded.documentId);
      const report = JSON.parse(await reportDocument(reportId, 'json', 'application/json', 63)).report;
      expect(report).toMatchObject({ operation: 'convert', level: '1b', verdict: 'non-compliant' });
      expect(report.rules.find((r: { id: string }) => r.id === '6.1.11-1')).toMatchObject({ status: 'failed' });
      expect(report.notes.join(' ')).toMatch(/Ghostscript/);
      expect(sha256(await storedBytes(uploaded.documentId))).toBe(before);
    });
  });

  it('keeps a document that claims the level already and passes: a second conversion changes nothing', async () => {
    const uploaded = await upload(await textImagePdf({ pages: 1 }), 'twice.pdf');
    expect((await pdfa(uploaded.documentId, { pdfa: { convert: { level: '2b' } } })).status).toBe(303);
    const first = sha256(await storedBytes(uploaded.documentId));
    expect((await pdfa(uploaded.documentId, { pdfa: { convert: { level: '2b' } } })).status).toBe(303);
    expect(sha256(await storedBytes(uploaded.documentId))).toBe(first);
  });

  it('refuses an a level on untagged input with a clear error and leaves the document as it was', async () => {
    const uploaded = await upload(await textImagePdf({ pages: 1 }), 'untagged.pdf');
    const before = sha256(await storedBytes(uploaded.documentId));
    const refused = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '2a' } } });
    expect(refused).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -171 } });
    expect(refused.error!.errorMessage).toMatch(/tagged/);
    expect(sha256(await storedBytes(uploaded.documentId))).toBe(before);
  });

  it.each([
    [{ pdfa: { convert: { level: '4b' } } }, /level/],
    [{ pdfa: { convert: { imageQuality: 101 } } }, /imageQuality/],
    [{ pdfa: { convert: { errorReport: 'loud' } } }, /errorReport/],
    [{ pdfa: 'convert' }, /pdfa/],
    [{}, /pdfa/],
  ])('answers 400 naming the field for a bad payload (%j) and changes nothing', async (body, field) => {
    const uploaded = await upload(await textImagePdf({ pages: 1, image: false }), 'bad.pdf');
    const before = sha256(await storedBytes(uploaded.documentId));
    const refused = await pdfa(uploaded.documentId, body);
    expect(refused).toMatchObject({ status: 400, contentType: 'application/json' });
    expect(refused.error!.errorMessage).toMatch(field);
    expect(sha256(await storedBytes(uploaded.documentId))).toBe(before);
  });

  it('refuses successReport linked below part 3, before any work', async () => {
    const uploaded = await upload(await textImagePdf({ pages: 1, image: false }), 'options.pdf');
    const refused = await pdfa(uploaded.documentId, { pdfa: { convert: { successReport: 'linked', level: '2b' } } });
    expect(refused).toMatchObject({ status: 400, error: { errorCode: -104 } });
  });

  it('successReport linked (PDF/A-3): the XML report is an associated file of the PDF/A', async () => {
    const uploaded = await upload(await textImagePdf({ pages: 1 }), 'linked.pdf');
    const outcome = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '3b', successReport: 'linked' } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(uploaded.documentId);
    expect(execFileSync('pdfdetach', ['-list', file], { encoding: 'utf8' })).toMatch(/pdfa-report\.xml/);
    const saved = path.join(path.dirname(file), `report-${uploaded.documentId}.xml`);
    execFileSync('pdfdetach', ['-save', '1', '-o', saved, file]);
    expect(readFileSync(saved, 'utf8')).toMatch(/<pdfaReport [^>]*level="3b"/);
    const objects = execFileSync('qpdf', ['--json=1', '--json-key=objects', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(objects).toMatch(/"\/AFRelationship": "\/Supplement"/);
    expect(xmpOf(file)).toContain('<pdfaid:part>3</pdfaid:part>');
  });

  it('successReport zip: the PDF/A and its XML report zipped', async () => {
    const uploaded = await upload(await textImagePdf({ pages: 1 }), 'zipped.pdf');
    const outcome = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '3b', successReport: 'zip' } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const described = await documentInfo(uploaded.documentId);
    expect(described.fileExtension).toBe('zip');
    const listing = execFileSync('unzip', ['-l', await download(uploaded.documentId, 'zip')], { encoding: 'utf8' });
    expect(listing).toMatch(/zipped\.pdf/);
    expect(listing).toMatch(/zipped-pdfa-report\.xml/);
  });
});
