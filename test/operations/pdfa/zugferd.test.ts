import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postWebService } from '../../helpers/converter.js';
import { useTestServer } from '../../helpers/fixture.js';
import { convertRequest, pdfaService } from './service.js';
import { openTestStore, qpdfCheck, sha256, type TestStore } from '../transaction/store.js';
import { textImagePdf } from './inputs.js';

/**
 * `convert.zugferd.xmlFile`: the invoice XML becomes the PDF/A-3's associated file. Seen with qpdf
 * (--list-attachments, the file specification's /AFRelationship, the catalog's /AF), poppler
 * (pdfdetach gives back the same bytes, pdfinfo -meta shows the XMP) and our validator's verdict.
 */

const INVOICE = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">
  <rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:cen.eu:en16931:2017</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument><ram:ID>INV-2026-0042</ram:ID><ram:TypeCode>380</ram:TypeCode></rsm:ExchangedDocument>
</rsm:CrossIndustryInvoice>
`;

const convert = (level: string, zugferd: unknown) => convertRequest(level, { zugferd });
const xmlFile = (xml: string, version = 'v23EN16931') => ({ xmlFile: { source: 'value', value: Buffer.from(xml).toString('base64'), version } });

describe('PDF/A-3 with a ZUGFeRD/Factur-X invoice', () => {
  let store: TestStore;
  let documentId: string;
  let before: string;

  beforeEach(async () => {
    store = await openTestStore();
    documentId = (await store.upload(await textImagePdf({ pages: 1 }), 'invoice.pdf')).id;
    before = sha256(store.storedFile(documentId));
  });
  afterEach(() => store.close());

  const service = () => pdfaService(store);

  it('3b: factur-x.xml is an associated file (Alternative, in the catalog /AF) with the same bytes; the XMP has the fx properties and their extension schema', async () => {
    const { warnings } = await service().run(store.session, documentId, convert('3b', xmlFile(INVOICE)), 'json');
    expect(warnings[0]).toMatch(/^PDF\/A-3b validation: (compliant|inconclusive)/);
    const file = store.storedFile(documentId);
    expect(qpdfCheck(file)).toMatch(/No syntax or stream encoding errors/);
    expect(execFileSync('qpdf', ['--list-attachments', file], { encoding: 'utf8' })).toMatch(/^factur-x\.xml ->/m);

    const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-zugferd-'));
    expect(execFileSync('pdfdetach', ['-list', file], { encoding: 'utf8' })).toMatch(/1: factur-x\.xml/);
    execFileSync('pdfdetach', ['-save', '1', '-o', path.join(dir, 'out.xml'), file]);
    expect(readFileSync(path.join(dir, 'out.xml'), 'utf8')).toBe(INVOICE);

    const json = JSON.parse(execFileSync('qpdf', ['--json', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as {
      qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>];
    };
    const objects = Object.values(json.qpdf[1]).map((o) => o.value ?? {});
    const spec = objects.find((o) => o['/Type'] === '/Filespec');
    expect(spec?.['/AFRelationship']).toBe('/Alternative');
    const catalog = objects.find((o) => o['/Type'] === '/Catalog');
    expect(catalog?.['/AF']).toBeDefined();

    const xmp = execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' });
    expect(xmp).toMatch(/xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"/);
    expect(xmp).toMatch(/<fx:DocumentFileName>factur-x\.xml<\/fx:DocumentFileName>/);
    expect(xmp).toMatch(/<fx:DocumentType>INVOICE<\/fx:DocumentType>/);
    expect(xmp).toMatch(/<fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/);
    expect(xmp).toMatch(/<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#<\/pdfaSchema:namespaceURI>/);
    expect(xmp).toMatch(/<pdfaSchema:prefix>fx<\/pdfaSchema:prefix>/);
    expect(xmp).toMatch(/pdfaid:part>3</);
  });

  it('any level below 3 is refused with -171 before any work; the document is unchanged', async () => {
    for (const level of ['1b', '2b', '2u']) {
      const call = service().run(store.session, documentId, convert(level, xmlFile(INVOICE)), 'json');
      await expect(call).rejects.toMatchObject({ errorCode: -171 });
      await expect(call).rejects.toThrow(/only PDF\/A-3 allows/);
    }
    expect(sha256(store.storedFile(documentId))).toBe(before);
  });

  it('what is not an invoice XML, a missing value and an unknown version are refused (-14, the field named); uri (-104); the document is unchanged', async () => {
    const cases: [unknown, number, RegExp][] = [
      [xmlFile('<html><body>not an invoice</body></html>'), -14, /zugferd\.xmlFile\.value.*not a ZUGFeRD/],
      [xmlFile('<rsm:CrossIndustryInvoice'), -14, /not well-formed/],
      [{ xmlFile: { source: 'value' } }, -14, /zugferd\.xmlFile\.value/],
      [xmlFile(INVOICE, 'v99Gold'), -14, /zugferd\.xmlFile\.version/],
      [{}, -14, /zugferd\.xmlFile/],
      [{ xmlFile: { source: 'uri', uri: 'http://example.org/invoice.xml' } }, -104, /uri/],
    ];
    for (const [zugferd, code, message] of cases) {
      const call = service().run(store.session, documentId, convert('3b', zugferd), 'json');
      await expect(call).rejects.toMatchObject({ errorCode: code });
      await expect(call).rejects.toThrow(message);
    }
    expect(sha256(store.storedFile(documentId))).toBe(before);
  });
});

describe('zugferd over HTTP (the route, its schema and the service)', () => {
  const { server, session, upload, download } = useTestServer();
  const pdfa = (documentId: string, body: unknown) => postWebService(`${server.rest}/pdfa/${documentId}`, session.token, body);

  it('3b with the invoice: 303 and factur-x.xml attached; 2b: 400 with -171; a version the reference does not know: 400 with -14', async () => {
    const uploaded = await upload(await textImagePdf({ pages: 1, image: false }), 'invoice.pdf');
    const refused = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '2b', zugferd: xmlFile(INVOICE) } } });
    expect(refused).toMatchObject({ status: 400, error: { errorCode: -171 } });
    const unknown = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '3b', zugferd: xmlFile(INVOICE, 'v30Gold') } } });
    expect(unknown).toMatchObject({ status: 400, error: { errorCode: -14 } });
    const outcome = await pdfa(uploaded.documentId, { pdfa: { convert: { level: '3b', zugferd: xmlFile(INVOICE) } } });
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    expect(execFileSync('qpdf', ['--list-attachments', await download(uploaded.documentId)], { encoding: 'utf8' })).toMatch(/^factur-x\.xml ->/m);
  });
});
