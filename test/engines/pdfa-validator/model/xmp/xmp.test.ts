/**
 * The XMP model on small packets: RDF forms, the packet header facts from the bytes, value types,
 * extension schemas, and hostile packets (DOCTYPE, depth, size, many properties) that must give an
 * answer, never a crash or a hang.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openCosBytes } from '../../../../../src/engines/pdfa-validator/cos/index.js';
import { xmpObjects } from '../../../../../src/engines/pdfa-validator/model/xmp/index.js';
import { packetFacts } from '../../../../../src/engines/pdfa-validator/model/xmp/packet.js';
import { parseRdf } from '../../../../../src/engines/pdfa-validator/model/xmp/rdf.js';
import type { ModelObject } from '../../../../../src/engines/pdfa-validator/profile/model.js';
import { buildPdf, streamBody } from '../../cos/build-pdf.js';

const RDF = 'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"';
const packet = (descriptions: string, header = `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>`): string =>
  `${header}<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ${RDF}>${descriptions}</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
const ID = '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="1" pdfaid:conformance="B"/>';

function objectsOf(xmp: Buffer | string, flate = false): ModelObject[] {
  const data = typeof xmp === 'string' ? Buffer.from(xmp, 'utf8') : xmp;
  const body = flate ? streamBody('/Type /Metadata /Subtype /XML /Filter /FlateDecode', deflateSync(data)) : streamBody('/Type /Metadata /Subtype /XML', data);
  const pdf = buildPdf(['<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>', body]);
  return xmpObjects(openCosBytes(pdf.bytes));
}

const ofType = (objects: ModelObject[], type: string): ModelObject[] => objects.filter((o) => o.types.includes(type));
const props = (objects: ModelObject[], name: string): ModelObject | undefined => ofType(objects, 'XMPProperty').find((o) => o.get('name') === name);

describe('XMP packets in a PDF', () => {
  it('reads the catalog packet: package facts, identification, properties in attribute and element form', () => {
    const objects = objectsOf(
      packet(
        `${ID}<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">T</rdf:li></rdf:Alt></dc:title></rdf:Description>` +
          '<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Author="me"/>',
      ),
      true,
    );
    const [meta] = ofType(objects, 'PDMetadata');
    expect([meta?.get('isCatalogMetadata'), meta?.get('Filter')]).toEqual([true, 'FlateDecode']);
    const [pkg] = ofType(objects, 'MainXMPPackage');
    expect(['bytes', 'encoding', 'actualEncoding', 'isSerializationValid', 'containsPDFAIdentification'].map((n) => pkg?.get(n))).toEqual([null, null, 'UTF-8', true, true]);
    const [id] = ofType(objects, 'PDFAIdentification');
    expect([id?.get('part'), id?.get('conformance'), id?.get('partPrefix'), id?.get('amdPrefix')]).toEqual([1, 'B', 'pdfaid', null]);
    expect(props(objects, 'title')?.get('isValueTypeCorrect')).toBe(true);
    // Where, for reports: the metadata stream's object and the property's name as written.
    expect(objects.map((o) => (o as { path?: string }).path).slice(0, 4)).toEqual(['4 0 obj', '4 0 obj (XMP)', '4 0 obj (XMP)/pdfaid', '4 0 obj (XMP)/pdfaid:part']);
    // xmp:Author is in no edition of XMP Basic (the corpus' 1b 6-7-2-t03-fail-a).
    expect(['isPredefinedInXMP2004', 'isPredefinedInXMP2005', 'isDefinedInCurrentPackage'].map((n) => props(objects, 'Author')?.get(n))).toEqual([false, false, false]);
  });

  it('checks value types: a Lang Alt written as plain text, a Bag written as Seq, an integer with a fraction', () => {
    const objects = objectsOf(
      packet(
        `${ID}<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" dc:title="plain" tiff:ImageWidth="1.5">` +
          '<dc:subject><rdf:Seq><rdf:li>a</rdf:li></rdf:Seq></dc:subject><dc:creator><rdf:Seq><rdf:li>b</rdf:li></rdf:Seq></dc:creator></rdf:Description>',
      ),
    );
    expect(['title', 'ImageWidth', 'subject', 'creator'].map((n) => props(objects, n)?.get('isValueTypeCorrect'))).toEqual([false, false, false, true]);
  });

  it('an extension schema defines its properties and checks its own description', () => {
    const ext =
      '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">' +
      '<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource"><pdfaSchema:schema>S</pdfaSchema:schema><pdfaSchema:namespaceURI>http://example.com/ns/</pdfaSchema:namespaceURI><pdfaSchema:prefix>ex</pdfaSchema:prefix>' +
      '<pdfaSchema:property><rdf:Seq><rdf:li rdf:parseType="Resource"><pdfaProperty:name>Num</pdfaProperty:name><pdfaProperty:valueType>Integer</pdfaProperty:valueType><pdfaProperty:category>internal</pdfaProperty:category><pdfaProperty:description>d</pdfaProperty:description></rdf:li>' +
      '<rdf:li rdf:parseType="Resource"><pdfaProperty:name>Odd</pdfaProperty:name><pdfaProperty:valueType>NoSuchType</pdfaProperty:valueType><pdfaProperty:category>sometimes</pdfaProperty:category><pdfaProperty:description>d</pdfaProperty:description></rdf:li></rdf:Seq></pdfaSchema:property></rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>';
    const objects = objectsOf(packet(`${ID}${ext}<rdf:Description rdf:about="" xmlns:ex="http://example.com/ns/" ex:Num="x12" ex:Other="1"/>`));
    expect([props(objects, 'Num')?.get('isDefinedInCurrentPackage'), props(objects, 'Num')?.get('isValueTypeCorrect')]).toEqual([true, false]);
    expect(props(objects, 'Other')?.get('isDefinedInCurrentPackage')).toBe(false);
    const [container] = ofType(objects, 'ExtensionSchemasContainer');
    expect([container?.get('isValidBag'), container?.get('prefix')]).toEqual([true, 'pdfaExtension']);
    const properties = ofType(objects, 'ExtensionSchemaProperty');
    expect(properties.map((p) => [p.get('isValueTypeDefined'), p.get('category'), p.get('namePrefix')])).toEqual([
      [true, 'internal', 'pdfaProperty'],
      [false, 'sometimes', 'pdfaProperty'],
    ]);
  });

  it('a packet that cannot be decoded makes its package not-checked, never passed', () => {
    const pdf = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
      streamBody('/Type /Metadata /Filter /DCTDecode', Buffer.from('xx')),
    ]);
    const [pkg] = ofType(xmpObjects(openCosBytes(pdf.bytes)), 'MainXMPPackage');
    expect(pkg?.has('isSerializationValid')).toBe(false);
  });
});

describe('packet header facts from the bytes', () => {
  it('bytes and encoding attributes in any order, the real encoding from BOM and zero bytes', () => {
    expect(packetFacts(Buffer.from(`<?xpacket bytes="870" begin='\ufeff' id='W'?><a/>`)).bytes).toBe('870');
    expect(packetFacts(Buffer.from(`<?xpacket encoding="UTF-8" begin="" id="W"?><a/>`)).encoding).toBe('UTF-8');
    expect(packetFacts(Buffer.from(packet(ID))).bytes).toBeNull();
    const utf16be = Buffer.from(`\ufeff${packet(ID)}`, 'utf16le').swap16();
    const facts = packetFacts(utf16be);
    expect(facts.actualEncoding).toBe('UTF-16BE');
    expect(parseRdf(facts.text).properties.map((p) => p.name)).toEqual(['part', 'conformance']);
    expect(packetFacts(Buffer.from([0x3c, 0x61, 0xff, 0x2f, 0x3e])).actualEncoding).toBeNull();
  });
});

describe('hostile packets', () => {
  it('a DOCTYPE (entity expansion) is invalid serialization and is not expanded', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>${packet(`<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="&b;"/>`, '')}`;
    const rdf = parseRdf(bomb);
    expect(rdf.serializationValid).toBe(false);
    expect(rdf.properties).toEqual([]);
  });

  it('not well-formed XML and an undeclared prefix are invalid serialization', () => {
    expect(parseRdf(packet(`${ID}<rdf:Description rdf:about="">`)).serializationValid).toBe(false);
    expect(parseRdf(packet('<rdf:Description rdf:about="" foo:bar="1"/>')).serializationValid).toBe(false);
    expect(parseRdf(packet(ID)).serializationValid).toBe(true);
  });

  it('deep nesting and many properties stop at the limits', () => {
    const depth = 5000;
    const deep = `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject>${'<rdf:Bag><rdf:li>'.repeat(depth)}x${'</rdf:li></rdf:Bag>'.repeat(depth)}</dc:subject></rdf:Description>`;
    const rdf = parseRdf(packet(deep));
    expect([rdf.limitHit, rdf.serializationValid]).toEqual([true, false]);
    // Below the markup count, the property limit stops the reading.
    const attributes = Array.from({ length: 800 }, (_, i) => `e:p${i}="1"`).join(' ');
    const limited = parseRdf(packet(`<rdf:Description rdf:about="" xmlns:e="http://example.com/" ${attributes}/>`), { maxDepth: 64, maxNodes: 500 });
    expect([limited.limitHit, limited.properties.length]).toEqual([true, 500]);
    const tooMany = parseRdf(packet(`<rdf:Description rdf:about="" xmlns:e="http://example.com/" ${Array.from({ length: 3000 }, (_, i) => `e:p${i}="1"`).join(' ')}/>`), {
      maxDepth: 64,
      maxNodes: 500,
    });
    expect([tooMany.limitHit, tooMany.properties.length]).toEqual([true, 0]);
    // Many elements: refused by counting the markup, before any tree is built.
    const many = parseRdf(packet(`<rdf:Description rdf:about="" xmlns:e="http://example.com/">${'<e:p>1</e:p>'.repeat(2000)}</rdf:Description>`), { maxDepth: 64, maxNodes: 500 });
    expect([many.limitHit, many.properties.length, many.problems]).toEqual([true, 0, ['too many elements or attributes']]);
  });

  it('a packet not read whole makes its package not-checked, with no property objects', () => {
    const pdf = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
      streamBody(
        '/Type /Metadata',
        Buffer.from(
          packet(
            `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject>${'<rdf:Bag><rdf:li>'.repeat(100)}x${'</rdf:li></rdf:Bag>'.repeat(100)}</dc:subject></rdf:Description>`,
          ),
        ),
      ),
    ]);
    const objects = xmpObjects(openCosBytes(pdf.bytes));
    expect(ofType(objects, 'MainXMPPackage')[0]?.has('isSerializationValid')).toBe(false);
    expect(ofType(objects, 'XMPProperty')).toEqual([]);
  });

  it('a packet larger than the limit is not read', () => {
    const big = packet(`${ID}<!-- ${'x'.repeat(2000)} -->`);
    const pdf = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
      streamBody('/Type /Metadata', Buffer.from(big)),
    ]);
    const objects = xmpObjects(openCosBytes(pdf.bytes), { limits: { maxPacketBytes: 1000, maxPackets: 10 } });
    expect(ofType(objects, 'MainXMPPackage')[0]?.has('bytes')).toBe(false);
    expect(ofType(objects, 'XMPProperty')).toEqual([]);
  });
});
