import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { pdfFacts } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-xmp-'));
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
const NAMESPACE = { namespaceName: 'webPDF XMP Properties', namespacePrefix: 'webpdf', namespaceURI: 'http://ns.webpdf.de/webpdf/6.0/' };

/** The /Metadata stream of the catalog, decoded, as qpdf reads it (an independent reader). */
function metadataStream(file: string): string | undefined {
  const trailer = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', '--json-object=trailer', file], { encoding: 'utf8' })).qpdf[1].trailer.value;
  const root = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', `--json-object=${trailer['/Root']}`, file], { encoding: 'utf8' })).qpdf[1][`obj:${trailer['/Root']}`].value;
  const ref = root['/Metadata'] as string | undefined;
  if (!ref) return undefined;
  const stream = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', '--json-stream-data=inline', `--json-object=${ref}`, file], { encoding: 'utf8' })).qpdf[1][`obj:${ref}`].stream;
  expect(stream.dict).toMatchObject({ '/Type': '/Metadata', '/Subtype': '/XML' });
  expect(stream.dict['/Filter']).toBeUndefined();
  return Buffer.from(stream.data, 'base64').toString('utf8');
}

async function pdfWithXmp(packet: string): Promise<Buffer> {
  const document = await PDFDocument.load(await numberedPdf(2));
  document.catalog.set(PDFName.of('Metadata'), document.context.register(document.context.stream(packet, { Type: 'Metadata', Subtype: 'XML' })));
  return Buffer.from(await document.save());
}

const PDFA_PACKET = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>2</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance></rdf:Description>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Kept title</rdf:li></rdf:Alt></dc:title></rdf:Description>
</rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`;

describe('toolbox xmp', () => {
  const { server, session, download } = useTestServer();

  it('adds JSON-defined properties (all types, a structure) with their PDF/A extension schema to a document without XMP', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'plain.pdf');
    const properties = [
      { propertyName: 'invoiceNumber', propertyType: 'Text', propertyCategory: 'external', propertyDescription: 'the number', propertyValue: 'RE-2024 <17> & co' },
      { propertyName: 'copies', propertyType: 'Integer', propertyCategory: 'internal', propertyDescription: 'copies', propertyValue: 3 },
      { propertyName: 'amount', propertyType: 'Real', propertyCategory: 'external', propertyDescription: '', propertyValue: 12.5 },
      { propertyName: 'paid', propertyType: 'Boolean', propertyCategory: 'external', propertyDescription: '', propertyValue: true },
      { propertyName: 'due', propertyType: 'Date', propertyCategory: 'external', propertyDescription: '', propertyValue: '2024-05-01T10:00:00+02:00' },
      {
        propertyName: 'address',
        propertyType: 'Schema',
        propertyCategory: 'external',
        propertyDescription: 'postal address',
        propertyValue: {
          typePrefix: 'adr',
          typeURI: 'http://example.com/ns/address/',
          typeDescription: 'An address',
          fields: [
            { propertyName: 'street', propertyType: 'Text', propertyDescription: 'street', propertyValue: 'Hauptstraße 1' },
            { propertyName: 'zip', propertyType: 'Integer', propertyDescription: 'postal code', propertyValue: '12345' },
          ],
        },
      },
    ];
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ xmp: { data: { source: 'value', value: b64(properties) }, dataFormat: 'json', namespace: NAMESPACE } }]);
    const file = await download(uploaded.documentId);
    expect(pdfFacts(file).pages).toBe(2);
    const xmp = execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' });
    expect(metadataStream(file)).toContain('<webpdf:copies>3</webpdf:copies>');
    expect(xmp).toMatch(/^<\?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"\?>/);
    expect(xmp).toContain('xmlns:webpdf="http://ns.webpdf.de/webpdf/6.0/"');
    expect(xmp).toContain('<webpdf:invoiceNumber>RE-2024 &lt;17&gt; &amp; co</webpdf:invoiceNumber>');
    expect(xmp).toContain('<webpdf:copies>3</webpdf:copies>');
    expect(xmp).toContain('<webpdf:amount>12.5</webpdf:amount>');
    expect(xmp).toContain('<webpdf:paid>True</webpdf:paid>');
    expect(xmp).toContain('<webpdf:due>2024-05-01T08:00:00Z</webpdf:due>');
    expect(xmp).toContain('<webpdf:address rdf:parseType="Resource"><adr:street>Hauptstraße 1</adr:street><adr:zip>12345</adr:zip></webpdf:address>');
    expect(xmp).toContain('<pdfaSchema:schema>webPDF XMP Properties</pdfaSchema:schema>');
    expect(xmp).toContain('<pdfaSchema:namespaceURI>http://ns.webpdf.de/webpdf/6.0/</pdfaSchema:namespaceURI>');
    expect(xmp).toContain('<pdfaProperty:name>copies</pdfaProperty:name><pdfaProperty:valueType>Integer</pdfaProperty:valueType><pdfaProperty:category>internal</pdfaProperty:category>');
    expect(xmp).toContain('<pdfaProperty:name>address</pdfaProperty:name><pdfaProperty:valueType>Address</pdfaProperty:valueType>');
    expect(xmp).toContain('<pdfaType:type>Address</pdfaType:type><pdfaType:namespaceURI>http://example.com/ns/address/</pdfaType:namespaceURI><pdfaType:prefix>adr</pdfaType:prefix>');
    expect(xmp).toContain('<pdfaField:name>zip</pdfaField:name><pdfaField:valueType>Integer</pdfaField:valueType>');
  });

  it('supplements an existing packet: keeps its properties, replaces redefined ones, keeps one schema entry per namespace', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await pdfWithXmp(PDFA_PACKET), 'pdfa.pdf');
    const first = [
      { propertyName: 'alpha', propertyType: 'Text', propertyCategory: 'external', propertyDescription: 'first', propertyValue: 'one' },
      { propertyName: 'beta', propertyType: 'Text', propertyCategory: 'external', propertyDescription: 'second', propertyValue: 'two' },
    ];
    const second = [{ propertyName: 'beta', propertyType: 'Integer', propertyCategory: 'external', propertyDescription: 'now a number', propertyValue: 2 }];
    await toolboxOk(
      server.rest,
      session.token,
      uploaded.documentId,
      [
        { xmp: { data: { value: b64(first) }, namespace: NAMESPACE } },
        { xmp: { data: { value: b64(second) }, dataFormat: 'json', namespace: NAMESPACE } },
        // The packet claims PDF/A-2 of a document that is not (no OutputIntent...): under the default
        // pdfaEditProfile (removePdfaMetadata) the edit would drop the claim this test looks for.
      ],
      { settings: { pdfa: { pdfaEditProfile: 'noEditRestrictions' } } },
    );
    const xmp = metadataStream(await download(uploaded.documentId))!;
    expect(xmp).toContain('<pdfaid:part>2</pdfaid:part>');
    expect(xmp).toContain('<rdf:li xml:lang="x-default">Kept title</rdf:li>');
    expect(xmp).toContain('<webpdf:alpha>one</webpdf:alpha>');
    expect(xmp).toContain('<webpdf:beta>2</webpdf:beta>');
    expect(xmp).not.toContain('<webpdf:beta>two</webpdf:beta>');
    expect(xmp.match(/<pdfaSchema:namespaceURI>http:\/\/ns\.webpdf\.de\/webpdf\/6\.0\/<\/pdfaSchema:namespaceURI>/g)).toHaveLength(1);
    expect(xmp.match(/<pdfaProperty:name>beta<\/pdfaProperty:name>/g)).toHaveLength(1);
    expect(xmp).toContain('<pdfaProperty:name>alpha</pdfaProperty:name>');
    expect(xmp).toContain('<pdfaProperty:description>now a number</pdfaProperty:description>');
    expect(xmp.match(/<\?xpacket begin/g)).toHaveLength(1);
  });

  it('replaces the packet with dataFormat xml (adding the xpacket wrapper it lacks)', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await pdfWithXmp(PDFA_PACKET), 'replace.pdf');
    const packet = `<?xml version="1.0" encoding="UTF-8"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:my="http://example.com/my/"><my:note>Ersetzt &#8211; replaced</my:note></rdf:Description>
</rdf:RDF></x:xmpmeta>`;
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      { xmp: { data: { source: 'value', value: b64(packet) }, dataFormat: 'xml', namespace: { namespaceName: '', namespacePrefix: '', namespaceURI: 'http://example.com/my/' } } },
    ]);
    const xmp = execFileSync('pdfinfo', ['-meta', await download(uploaded.documentId)], { encoding: 'utf8' });
    expect(xmp).toMatch(/^<\?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"\?>\n<x:xmpmeta/);
    expect(xmp).toContain('<my:note>Ersetzt – replaced</my:note>');
    expect(xmp).not.toContain('pdfaid');
    expect(xmp.trim().endsWith('<?xpacket end="w"?>')).toBe(true);
  });

  it('refuses data that is not XMP or not valid property JSON with -14 naming the member, and leaves the document unchanged', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(1), 'refuse.pdf');
    const good = [{ propertyName: 'a', propertyType: 'Text', propertyCategory: 'external', propertyDescription: '', propertyValue: 'x' }];
    const cases: [unknown, RegExp][] = [
      [{ data: { value: b64('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF>') }, dataFormat: 'xml' }, /xmp\.data\.value: not well-formed XML: namespace prefix "rdf"/],
      [{ data: { value: b64('<a><b></a>') }, dataFormat: 'xml' }, /xmp\.data\.value: not well-formed XML: end tag <\/a> does not match <b>/],
      [{ data: { value: b64('<root/>') }, dataFormat: 'xml' }, /xmp\.data\.value: the XML is not XMP/],
      [{ data: { value: b64('<!DOCTYPE x [<!ENTITY a "b">]><x:xmpmeta xmlns:x="adobe:ns:meta/"/>') }, dataFormat: 'xml' }, /document type declarations are not allowed/],
      [
        { data: { value: b64(PDFA_PACKET) }, dataFormat: 'xml', namespace: { namespaceURI: 'http://example.com/absent/' } },
        /xmp\.namespace\.namespaceURI: the XMP packet .* does not use the namespace/,
      ],
      [{ data: { value: b64('{"not": "an array"') }, namespace: NAMESPACE }, /xmp\.data\.value: not valid JSON/],
      [{ data: { value: b64({ propertyName: 'a' }) }, namespace: NAMESPACE }, /xmp\.data\.value: the JSON must be an array/],
      [{ data: { value: b64([{ ...good[0], propertyType: 'Colour' }]) }, namespace: NAMESPACE }, /xmp\.data\.value\[0\]\.propertyType: must be one of Text, Integer/],
      [{ data: { value: b64([{ ...good[0], propertyName: 'has space' }]) }, namespace: NAMESPACE }, /xmp\.data\.value\[0\]\.propertyName/],
      [{ data: { value: b64([{ ...good[0], propertyType: 'Integer', propertyValue: 1.5 }]) }, namespace: NAMESPACE }, /xmp\.data\.value\[0\]\.propertyValue: an Integer value must be a whole number/],
      [{ data: { value: b64([{ ...good[0], propertyType: 'Date', propertyValue: '31.02.2024' }]) }, namespace: NAMESPACE }, /\[0\]\.propertyValue: a Date value must be an ISO 8601 date/],
      [{ data: { value: b64(good) } }, /xmp\.namespace: required for dataFormat "json"/],
      [{ data: { value: b64(good) }, namespace: { ...NAMESPACE, namespaceURI: '' } }, /xmp\.namespace\.namespaceURI: required/],
      [{ data: { value: b64(good) }, namespace: { ...NAMESPACE, namespacePrefix: 'a:b' } }, /xmp\.namespace\.namespacePrefix/],
      [{ data: { value: b64(good) }, namespace: { ...NAMESPACE, namespacePrefix: 'rdf' } }, /namespacePrefix: "rdf" is reserved/],
      [{ data: { value: b64(good) }, dataFormat: 'yaml', namespace: NAMESPACE }, /dataFormat/],
      [{ data: { value: '' }, namespace: NAMESPACE }, /xmp\.data\.value: Base64 content is required/],
      [{ namespace: NAMESPACE }, /data/],
    ];
    for (const [options, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ xmp: options }]);
      expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: -14 } });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(message);
    }
    const uri = await runToolbox(server.rest, session.token, uploaded.documentId, [{ xmp: { data: { source: 'uri', uri: 'http://example.com/x.json' }, namespace: NAMESPACE } }]);
    expect(uri.error).toMatchObject({ errorCode: -104 });
    expect(uri.error?.errorMessage).toMatch(/toolbox\[0\]\.xmp\.data\.source "uri" is not supported/);
    const file = await download(uploaded.documentId);
    expect(metadataStream(file)).toBeUndefined();
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize });
  });

  it('works on a protected PDF with its password (-5008 for a wrong one); -7 for a damaged PDF', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(1));
    execFileSync('qpdf', ['--encrypt', 'geheim', 'owner-pw', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    const step = { xmp: { data: { value: b64([{ propertyName: 'k', propertyType: 'Text', propertyValue: 'v' }]) }, namespace: NAMESPACE } };
    expect((await runToolbox(server.rest, session.token, locked.documentId, [step], { password: { open: 'wrong' } })).error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [step], { password: { open: 'geheim' } });
    const file = await download(locked.documentId);
    expect(() => pdfFacts(file)).toThrow();
    expect(execFileSync('pdfinfo', ['-meta', '-upw', 'geheim', file], { encoding: 'utf8' })).toContain('<webpdf:k>v</webpdf:k>');

    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\nnot a pdf\n'), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, [step])).error).toMatchObject({ errorCode: -7 });
    expect(await info(server.rest, session.token, damaged.documentId)).toMatchObject({ fileSize: damaged.fileSize });
  });
});
