import { createRequire } from 'node:module';
import type { XMLParser } from 'fast-xml-parser';

/**
 * The few XMP properties the metadata needs, read with fast-xml-parser (lenient: a damaged packet
 * still gives what can be read): PDF/A identification (pdfaid:part, pdfaid:conformance, ISO 19005)
 * and xmp:CreatorTool. Both the element form (<pdfaid:part>2</pdfaid:part>) and the attribute form
 * (pdfaid:part="2") occur.
 *
 * The prefix is matched through the namespace URI, so a packet that binds the PDF/A namespace to
 * another prefix is read as well. Entities declared in a DOCTYPE expand to at most
 * MAX_EXPANDED_LENGTH characters in all (external ones never): beyond that the packet counts as
 * unreadable, so a hostile packet cannot grow in memory.
 */

const PDFA_ID_NS = 'http://www.aiim.org/pdfa/ns/id/';
const XMP_NS = 'http://ns.adobe.com/xap/1.0/';

export interface XmpFacts {
  pdfaPart: string;
  pdfaConformance: string;
  creatorTool: string;
}

/** An element in fast-xml-parser's ordered form: `{ name: children, ':@': attributes }`, or `{ '#text': … }`. */
type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

/**
 * Made on first use, from the package's one-file CommonJS build: its ES module build is ~100 small
 * files (190 ms and 10 MB at start-up against 13 ms and 2 MB), and most servers read XMP rarely.
 */
let parser: XMLParser | undefined;

const MAX_EXPANDED_LENGTH = 100_000;

function xmlParser(): XMLParser {
  const { XMLParser: Parser } = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');
  return (parser ??= new Parser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    // Character references (&#x20AC;) are decoded only with htmlEntities.
    htmlEntities: true,
    processEntities: { enabled: true, maxExpandedLength: MAX_EXPANDED_LENGTH },
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
  }));
}

const nameOf = (node: OrderedNode): string | undefined => Object.keys(node).find((key) => key !== ':@' && key !== '#text');

/** Every element, in document order (iteratively: a deep packet cannot overflow the stack). */
function elements(nodes: OrderedNode[]): OrderedNode[] {
  const result: OrderedNode[] = [];
  const stack = [...nodes].reverse();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const name = nameOf(node);
    if (name === undefined) continue;
    result.push(node);
    const children = node[name];
    if (Array.isArray(children)) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as OrderedNode);
  }
  return result;
}

/** The text of an element and its descendants, in document order. */
function textContent(node: OrderedNode): string {
  let text = '';
  const stack: OrderedNode[] = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next['#text'] === 'string') text += next['#text'];
    const children = next[nameOf(next) ?? ''];
    if (Array.isArray(children)) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as OrderedNode);
  }
  return text;
}

function prefixesFor(all: OrderedNode[], namespace: string): string[] {
  const prefixes = new Set<string>();
  for (const element of all) {
    for (const [name, value] of Object.entries(element[':@'] ?? {})) if (name.startsWith('xmlns:') && value === namespace) prefixes.add(name.slice(6));
  }
  return [...prefixes];
}

function property(all: OrderedNode[], prefixes: string[], local: string): string {
  for (const prefix of prefixes) {
    const name = `${prefix}:${local}`;
    // The value may be wrapped in rdf:Alt/rdf:li (xmp:CreatorTool is simple, but be lenient).
    const element = all.find((node) => nameOf(node) === name);
    if (element) return textContent(element).trim();
    const attribute = all.find((node) => node[':@']?.[name] !== undefined)?.[':@']?.[name];
    if (attribute !== undefined) return attribute.trim();
  }
  return '';
}

export function readXmp(packet: Buffer): XmpFacts {
  let all: OrderedNode[];
  try {
    all = elements(xmlParser().parse(decodePacket(packet)) as OrderedNode[]);
  } catch {
    all = [];
  }
  const pdfa = prefixesFor(all, PDFA_ID_NS);
  const xmp = prefixesFor(all, XMP_NS);
  return {
    pdfaPart: property(all, pdfa, 'part'),
    pdfaConformance: property(all, pdfa, 'conformance'),
    creatorTool: property(all, xmp, 'CreatorTool'),
  };
}

/** XMP packets are UTF-8 in practice; UTF-16 is allowed and announced by a BOM. */
function decodePacket(packet: Buffer): string {
  const even = (bytes: Buffer): Buffer => Buffer.from(bytes.subarray(0, bytes.length & ~1));
  if (packet[0] === 0xfe && packet[1] === 0xff) return even(packet.subarray(2)).swap16().toString('utf16le');
  if (packet[0] === 0xff && packet[1] === 0xfe) return even(packet.subarray(2)).toString('utf16le');
  return packet.toString('utf8');
}
