/**
 * The XMP edition follows the level being validated, not the part the file claims: a file that says
 * pdfaid:part="2" is still judged by XMP 2004 when it is validated as PDF/A-1b.
 */
import { describe, expect, it } from 'vitest';
import { validatePdfa } from '../../../src/engines/pdfa-validator/validate.js';
import { buildPdf, streamBody } from './cos/build-pdf.js';

// photoshop:SupplementalCategories is Text in XMP 2004 and a Bag of Text from 2005 on.
const XMP =
  '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" pdfaid:part="2" pdfaid:conformance="B"/>' +
  '<rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"><photoshop:SupplementalCategories><rdf:Bag><rdf:li>a</rdf:li></rdf:Bag></photoshop:SupplementalCategories></rdf:Description>' +
  '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>';

function pdf(): Buffer {
  const metadata = streamBody('/Type /Metadata /Subtype /XML', Buffer.from(XMP, 'utf8'));
  return buildPdf(['<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>', metadata]).bytes;
}

const valueTypeFailures = (report: Awaited<ReturnType<typeof validatePdfa>>) =>
  report.rules.filter((rule) => rule.status === 'failed' && rule.failures.some((failure) => failure.object.includes('photoshop:SupplementalCategories'))).map((rule) => rule.id);

describe('validatePdfa and the XMP edition', () => {
  it('judges a Bag of SupplementalCategories wrong for PDF/A-1 (XMP 2004) and right for PDF/A-2 (XMP 2005), whatever part the file claims', async () => {
    expect(valueTypeFailures(await validatePdfa(pdf(), '1b'))).not.toEqual([]);
    expect(valueTypeFailures(await validatePdfa(pdf(), '2b'))).toEqual([]);
  });
});
