/**
 * The smaller Cos* properties on hand-built objects whose expected values follow from the specification
 * text (ISO 32000-1 §7.3, Annex D; ISO 19005), and the content-stream tokens.
 */
import { PDFHexString } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import {
  contentTokens,
  cosBBoxProperties,
  cosFileSpecificationProperties,
  cosFilterProperties,
  cosLangProperties,
  cosNameProperties,
  cosStringProperties,
  filterChain,
  openCosBytes,
} from '../../../../src/engines/pdfa-validator/cos/index.js';
import { BASE_OBJECTS, buildPdf, streamBody } from './build-pdf.js';

const pdf = buildPdf([
  ...BASE_OBJECTS,
  '<FEFF00640065002D00440045>', // 4: /Lang "de-DE" in UTF-16BE
  '(\\215quoted\\216 \\200)', // 5: PDFDocEncoding 8D … 8E 20 80
  '[0 0.5 -3 14403.25]', // 6: a BBox
  '/Cyan#c2', // 7: not UTF-8 after #-expansion
  '/Caf#C3#A9', // 8: UTF-8 "Café"
  '< 4 1 4 >', // 9: hex with white-space, odd count
  '<4G>', // 10: non-hex digit
  '<< /Type /Filespec /F (a.xml) /UF <FEFF0061002E0078006D006C> /EF << /F 1 0 R >> /AFRelationship /Data >>', // 11
  streamBody('/Length 0 /Filter [/Crypt /FlateDecode] /DecodeParms [<< /Name /Identity >> null]', Buffer.alloc(0)), // 12
]);
const doc = openCosBytes(pdf.bytes);
const value = (n: number) => {
  const v = doc.getObject(n)?.value;
  if (v === undefined) throw new Error(`object ${n} missing`);
  return v;
};

describe('Cos* properties', () => {
  it('text strings: UTF-16BE with BOM and PDFDocEncoding (CosLang.unicodeValue)', () => {
    const lang = value(4);
    const pdfdoc = value(5);
    if (lang.kind !== 'string' || pdfdoc.kind !== 'string') throw new Error('strings expected');
    expect(cosLangProperties(lang).unicodeValue).toBe('de-DE');
    // pdf-lib's PDFDocEncoding decoder is the independent reading of the same bytes.
    expect(pdfdoc.bytes.toString('hex').toUpperCase()).toBe('8D71756F7465648E2080');
    expect(cosLangProperties(pdfdoc).unicodeValue).toBe(PDFHexString.of('8D71756F7465648E2080').decodeText());
    expect(cosLangProperties(pdfdoc).unicodeValue).toBe('\u201cquoted\u201d \u2022');
  });

  it('names: bytes after #-expansion, UTF-8 validity', () => {
    const cyan = value(7);
    const cafe = value(8);
    if (cyan.kind !== 'name' || cafe.kind !== 'name') throw new Error('names expected');
    expect(cosNameProperties(cyan)).toEqual({ internalRepresentation: 'Cyan\u00c2', isValidUtf8: false });
    expect(cosNameProperties(cafe).isValidUtf8).toBe(true);
    expect(cosNameProperties(cafe).internalRepresentation.length).toBe(5); // bytes, as Annex C counts
  });

  it('hex strings: count of non-white-space characters and hex-only', () => {
    const odd = value(9);
    const bad = value(10);
    if (odd.kind !== 'string' || bad.kind !== 'string') throw new Error('strings expected');
    expect(cosStringProperties(odd)).toMatchObject({ isHex: true, hexCount: 3, containsOnlyHex: true });
    expect(odd.bytes).toEqual(Buffer.from([0x41, 0x40]));
    expect(cosStringProperties(bad)).toMatchObject({ isHex: true, hexCount: 2, containsOnlyHex: false });
  });

  it('BBox, file specification and filters', () => {
    const bbox = value(6);
    if (bbox.kind !== 'array') throw new Error('array expected');
    expect(cosBBoxProperties(doc, bbox)).toEqual({ left: 0, bottom: 0.5, right: -3, top: 14403.25 });
    const spec = value(11);
    if (spec.kind !== 'dict') throw new Error('dict expected');
    expect(cosFileSpecificationProperties(doc, spec)).toEqual({ containsEF: true, F: 'a.xml', UF: 'a.xml', AFRelationship: 'Data' });
    const s = value(12);
    if (s.kind !== 'stream') throw new Error('stream expected');
    expect(filterChain(s.dict, (v) => doc.resolve(v)).map(cosFilterProperties)).toEqual([
      { internalRepresentation: 'Crypt', decodeParms: 'Identity' },
      { internalRepresentation: 'FlateDecode', decodeParms: null },
    ]);
  });

  it('content-stream tokens: operands, operators, and an inline image as one token', () => {
    const content = Buffer.from('q 1 0 0 1 72.5 -3 cm <48455> Tj BI /W 2 /H 1 /BPC 8 /CS /G /F /AHx ID 00ff> EI Q', 'latin1');
    const tokens = [...contentTokens(content, doc.env)];
    expect(tokens.filter((t) => t.kind === 'operator').map((t) => (t.kind === 'operator' ? t.name : ''))).toEqual(['q', 'cm', 'Tj', 'Q']);
    const image = tokens.find((t) => t.kind === 'inlineImage');
    if (image?.kind !== 'inlineImage') throw new Error('inline image expected');
    expect(image.data.toString('latin1')).toBe('00ff>');
    expect(image.dict.entries.get('F')).toEqual({ kind: 'name', value: 'AHx' });
    const hex = tokens.find((t) => t.kind === 'operand' && t.value.kind === 'string');
    expect(hex?.kind === 'operand' && hex.value.kind === 'string' && hex.value.hexCount).toBe(5);
  });
});
