import { createRequire } from 'node:module';
import type { XMLParser } from 'fast-xml-parser';

/**
 * XML in, read by fast-xml-parser (lenient, like a browser: a damaged document gives what can be
 * read), as a small element tree, at most MAX_DEPTH elements deep. Entities declared in a DOCTYPE expand to at most
 * MAX_EXPANDED_LENGTH characters in all and external ones never, so no document can grow in
 * memory or reach outside; beyond the limit, reading fails.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** Child elements and text, in document order. */
  children: (XmlElement | string)[];
  parent: XmlElement | undefined;
}

const MAX_EXPANDED_LENGTH = 100_000;

/** Deeper documents fail to read; callers with a tighter bound of their own (form data: 256) check it on the tree. */
const MAX_DEPTH = 1024;

/** fast-xml-parser's ordered form: `{ name: children, ':@': attributes }` or `{ '#text': value }`. */
type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

let parser: XMLParser | undefined;

/** The top-level elements (ordinarily one root); throws when the parser gives up. */
export function readXml(text: string): XmlElement[] {
  // The package's one-file CommonJS build, on first use: its ES build is ~100 small files (190 ms and 10 MB at start-up, against 13 ms and 2 MB).
  const { XMLParser: Parser } = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');
  parser ??= new Parser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    // Character references (&#x20AC;) are decoded only with htmlEntities (which also knows &nbsp; and
    // other HTML names, undefined in XML: a document using them is not XML, and reads as HTML would).
    htmlEntities: true,
    processEntities: { enabled: true, maxExpandedLength: MAX_EXPANDED_LENGTH },
    maxNestedTags: MAX_DEPTH,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
  });
  const top: XmlElement = { name: '', attributes: {}, children: [], parent: undefined };
  // Iteratively: a deeply nested document cannot overflow the stack.
  const pending: { nodes: OrderedNode[]; into: XmlElement }[] = [{ nodes: parser.parse(text) as OrderedNode[], into: top }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const node of next.nodes) {
      if (typeof node['#text'] === 'string') {
        next.into.children.push(node['#text']);
        continue;
      }
      const name = Object.keys(node).find((key) => key !== ':@');
      if (name === undefined) continue;
      const element: XmlElement = { name, attributes: { ...node[':@'] }, children: [], parent: next.into === top ? undefined : next.into };
      next.into.children.push(element);
      const children = node[name];
      if (Array.isArray(children)) pending.push({ nodes: children as OrderedNode[], into: element });
    }
  }
  return top.children.filter(isXmlElement);
}

export function isXmlElement(node: XmlElement | string | undefined): node is XmlElement {
  return typeof node === 'object';
}

export function childElements(element: XmlElement): XmlElement[] {
  return element.children.filter(isXmlElement);
}

/** The text of an element and its descendants, in document order. */
export function textContent(element: XmlElement): string {
  let text = '';
  const stack: (XmlElement | string)[] = [element];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node === 'string') text += node;
    else for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return text;
}

/** The first element at or below `root` (document order) that passes `test`. */
export function findElement(root: XmlElement, test: (element: XmlElement) => boolean): XmlElement | undefined {
  const stack = [root];
  for (let element = stack.pop(); element !== undefined; element = stack.pop()) {
    if (test(element)) return element;
    const children = childElements(element);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return undefined;
}
