/**
 * The few XMP properties the metadata needs, read from the packet's text without an XML library:
 * PDF/A identification (pdfaid:part, pdfaid:conformance, ISO 19005) and xmp:CreatorTool. Both the
 * element form (<pdfaid:part>2</pdfaid:part>) and the attribute form (pdfaid:part="2") occur.
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function prefixesFor(xmp: string, namespace: string): string[] {
  const prefixes = new Set<string>();
  const pattern = new RegExp(`xmlns:([A-Za-z_][\\w.-]*)\\s*=\\s*["']${escapeRegExp(namespace)}["']`, 'g');
  for (const match of xmp.matchAll(pattern)) prefixes.add(match[1]!);
  return [...prefixes];
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function property(xmp: string, prefixes: string[], local: string): string {
  for (const prefix of prefixes) {
    const name = `${escapeRegExp(prefix)}:${local}`;
    const element = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(xmp);
    if (element) {
      // The value may be wrapped in rdf:Alt/rdf:li (xmp:CreatorTool is simple, but be lenient).
      const inner = element[1]!.replace(/<[^>]+>/g, '').trim();
      return decodeEntities(inner);
    }
    const attribute = new RegExp(`\\s${name}\\s*=\\s*(["'])([\\s\\S]*?)\\1`).exec(xmp);
    if (attribute) return decodeEntities(attribute[2]!.trim());
  }
  return '';
}

export function readXmp(packet: Buffer): XmpFacts {
  const text = decodePacket(packet);
  const pdfa = prefixesFor(text, PDFA_ID_NS);
  const xmp = prefixesFor(text, XMP_NS);
  return {
    pdfaPart: property(text, pdfa, 'part'),
    pdfaConformance: property(text, pdfa, 'conformance'),
    creatorTool: property(text, xmp, 'CreatorTool'),
  };
}

/** XMP packets are UTF-8 in practice; UTF-16 is allowed and announced by a BOM. */
function decodePacket(packet: Buffer): string {
  const even = (bytes: Buffer): Buffer => Buffer.from(bytes.subarray(0, bytes.length & ~1));
  if (packet[0] === 0xfe && packet[1] === 0xff) return even(packet.subarray(2)).swap16().toString('utf16le');
  if (packet[0] === 0xff && packet[1] === 0xfe) return even(packet.subarray(2)).toString('utf16le');
  return packet.toString('utf8');
}
