import { findElement, readXml, textContent, type XmlElement } from '../xml/read.js';

/**
 * The few XMP properties the metadata needs: PDF/A identification (pdfaid:part, pdfaid:conformance,
 * ISO 19005) and xmp:CreatorTool, read leniently (a damaged packet still gives what can be read).
 * Both the element form (<pdfaid:part>2</pdfaid:part>) and the attribute form (pdfaid:part="2") occur.
 *
 * The prefix is matched through the namespace URI, so a packet that binds the PDF/A namespace to
 * another prefix is read as well.
 */

const PDFA_ID_NS = 'http://www.aiim.org/pdfa/ns/id/';
const XMP_NS = 'http://ns.adobe.com/xap/1.0/';

export interface XmpFacts {
  pdfaPart: string;
  pdfaConformance: string;
  creatorTool: string;
}

function prefixesFor(roots: XmlElement[], namespace: string): string[] {
  const prefixes = new Set<string>();
  for (const root of roots) {
    findElement(root, (element) => {
      for (const [name, value] of Object.entries(element.attributes)) if (name.startsWith('xmlns:') && value === namespace) prefixes.add(name.slice(6));
      return false;
    });
  }
  return [...prefixes];
}

function property(roots: XmlElement[], prefixes: string[], local: string): string {
  const first = (test: (element: XmlElement) => boolean) => roots.map((root) => findElement(root, test)).find((found) => found !== undefined);
  for (const prefix of prefixes) {
    const name = `${prefix}:${local}`;
    // The value may be wrapped in rdf:Alt/rdf:li (xmp:CreatorTool is simple, but be lenient).
    const element = first((candidate) => candidate.name === name);
    if (element) return textContent(element).trim();
    const attribute = first((candidate) => candidate.attributes[name] !== undefined)?.attributes[name];
    if (attribute !== undefined) return attribute.trim();
  }
  return '';
}

export function readXmp(packet: Buffer): XmpFacts {
  let roots: XmlElement[];
  try {
    roots = readXml(decodePacket(packet));
  } catch {
    roots = [];
  }
  const pdfa = prefixesFor(roots, PDFA_ID_NS);
  const xmp = prefixesFor(roots, XMP_NS);
  return {
    pdfaPart: property(roots, pdfa, 'part'),
    pdfaConformance: property(roots, pdfa, 'conformance'),
    creatorTool: property(roots, xmp, 'CreatorTool'),
  };
}

/** XMP packets are UTF-8 in practice; UTF-16 is allowed and announced by a BOM. */
function decodePacket(packet: Buffer): string {
  const even = (bytes: Buffer): Buffer => Buffer.from(bytes.subarray(0, bytes.length & ~1));
  if (packet[0] === 0xfe && packet[1] === 0xff) return even(packet.subarray(2)).swap16().toString('utf16le');
  if (packet[0] === 0xff && packet[1] === 0xfe) return even(packet.subarray(2)).toString('utf16le');
  return packet.toString('utf8');
}
