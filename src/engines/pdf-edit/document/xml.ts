/**
 * A small, strict XML reader and writer for XMP packets: elements, attributes, text, CDATA,
 * comments and processing instructions. It checks well-formedness (one root, matching tags, quoted
 * and unique attributes, known entities, bound namespace prefixes) and refuses document type
 * declarations outright, so no entity can expand and nothing external is ever fetched.
 *
 * Text keeps its exact content, so a packet read and written again differs only where it was edited.
 */

export interface XmlAttribute {
  name: string;
  value: string;
}

export interface XmlElement {
  kind: 'element';
  name: string;
  attributes: XmlAttribute[];
  children: XmlNode[];
  parent: XmlElement | undefined;
}

export interface XmlText {
  kind: 'text';
  text: string;
  cdata?: boolean;
}

/** Comments and processing instructions, kept verbatim (`raw` is the whole `<!--…-->` / `<?…?>`). */
export interface XmlMarkup {
  kind: 'comment' | 'pi';
  raw: string;
}

export type XmlNode = XmlElement | XmlText | XmlMarkup;

export interface XmlDocument {
  /** What precedes the root element (XML declaration, xpacket PI, comments, whitespace). */
  prolog: XmlNode[];
  root: XmlElement;
  epilog: XmlNode[];
}

export class XmlSyntaxError extends Error {}

export const XML_NS = 'http://www.w3.org/XML/1998/namespace';
export const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

const NAME_START = '[A-Za-z_:\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD]';
const NAME_CHAR =
  '[-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040A-Za-z_:\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD]';
const NAME = new RegExp(`^${NAME_START}${NAME_CHAR}*$`);
const NCNAME = new RegExp(`^(?!.*:)${NAME_START}${NAME_CHAR}*$`);
/** Characters XML 1.0 does not allow anywhere. */
const ILLEGAL_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

export function isXmlName(name: string): boolean {
  return NAME.test(name);
}

/** A name without a colon: what a namespace prefix or a local name must be. */
export function isNcName(name: string): boolean {
  return NCNAME.test(name);
}

const MAX_DEPTH = 512;

export function parseXml(input: string): XmlDocument {
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const illegal = ILLEGAL_CHAR.exec(text);
  if (illegal) fail(text, illegal.index, `character U+${illegal[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()} is not allowed in XML`);
  const prolog: XmlNode[] = [];
  const epilog: XmlNode[] = [];
  let root: XmlElement | undefined;
  let current: XmlElement | undefined;
  let depth = 0;
  let i = 0;
  const append = (node: XmlNode): void => {
    if (current) current.children.push(node);
    else if (root) epilog.push(node);
    else prolog.push(node);
  };
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt !== i) {
      const end = lt === -1 ? text.length : lt;
      const raw = text.slice(i, end);
      if (!current && raw.trim() !== '') fail(text, i, 'text outside the root element');
      if (raw.includes(']]>')) fail(text, i + raw.indexOf(']]>'), '"]]>" is not allowed in text');
      append({ kind: 'text', text: decodeEntities(raw, text, i) });
      i = end;
      continue;
    }
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end === -1) fail(text, i, 'unterminated comment');
      if (text.slice(i + 4, end).includes('--')) fail(text, i, '"--" is not allowed inside a comment');
      append({ kind: 'comment', raw: text.slice(i, end + 3) });
      i = end + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      if (!current) fail(text, i, 'CDATA outside the root element');
      const end = text.indexOf(']]>', i + 9);
      if (end === -1) fail(text, i, 'unterminated CDATA section');
      append({ kind: 'text', text: text.slice(i + 9, end), cdata: true });
      i = end + 3;
    } else if (text.startsWith('<!', i)) {
      fail(text, i, 'document type declarations are not allowed in XMP');
    } else if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end === -1) fail(text, i, 'unterminated processing instruction');
      const target = /^[^\s?]+/.exec(text.slice(i + 2))?.[0] ?? '';
      if (!isXmlName(target)) fail(text, i, 'processing instruction without a valid target');
      if (target.toLowerCase() === 'xml' && (i !== 0 || target !== 'xml')) fail(text, i, 'the XML declaration must come first');
      append({ kind: 'pi', raw: text.slice(i, end + 2) });
      i = end + 2;
    } else if (text.startsWith('</', i)) {
      const end = text.indexOf('>', i);
      if (end === -1) fail(text, i, 'unterminated end tag');
      const name = text.slice(i + 2, end).trim();
      if (!current) fail(text, i, `end tag </${name}> without a start tag`);
      if (current.name !== name) fail(text, i, `end tag </${name}> does not match <${current.name}>`);
      current = current.parent;
      depth--;
      i = end + 1;
    } else {
      const { element, end, selfClosing } = readStartTag(text, i);
      if (!current && root) fail(text, i, 'a second root element');
      element.parent = current;
      if (current) current.children.push(element);
      else root = element;
      checkNamespaces(element, text, i);
      if (!selfClosing) {
        current = element;
        if (++depth > MAX_DEPTH) fail(text, i, `elements nested deeper than ${MAX_DEPTH}`);
      }
      i = end;
    }
  }
  if (current) fail(text, text.length, `<${current.name}> is not closed`);
  if (!root) fail(text, text.length, 'no root element');
  return { prolog, root, epilog };
}

function readStartTag(text: string, start: number): { element: XmlElement; end: number; selfClosing: boolean } {
  const nameMatch = /^<([^\s/>]+)/.exec(text.slice(start, start + 1100));
  if (!nameMatch || !isXmlName(nameMatch[1]!)) fail(text, start, 'invalid element name');
  const element: XmlElement = { kind: 'element', name: nameMatch[1]!, attributes: [], children: [], parent: undefined };
  let i = start + nameMatch[0].length;
  for (;;) {
    const spaceStart = i;
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) fail(text, start, `unterminated start tag <${element.name}>`);
    if (text[i] === '>') return { element, end: i + 1, selfClosing: false };
    if (text.startsWith('/>', i)) return { element, end: i + 2, selfClosing: true };
    if (i === spaceStart) fail(text, i, 'attributes must be separated by white space');
    const attribute = /^([^\s=/>]+)\s*=\s*(["'])/.exec(text.slice(i, i + 1100));
    if (!attribute || !isXmlName(attribute[1]!)) fail(text, i, `invalid attribute in <${element.name}>`);
    const name = attribute[1]!;
    const quote = attribute[2]!;
    const valueStart = i + attribute[0].length;
    const valueEnd = text.indexOf(quote, valueStart);
    if (valueEnd === -1) fail(text, i, `unterminated value of attribute ${name}`);
    const raw = text.slice(valueStart, valueEnd);
    if (raw.includes('<')) fail(text, valueStart, `"<" in the value of attribute ${name}`);
    if (element.attributes.some((a) => a.name === name)) fail(text, i, `attribute ${name} given twice`);
    // Attribute value normalisation (XML 1.0 §3.3.3): literal white space becomes a space.
    element.attributes.push({ name, value: decodeEntities(raw.replace(/[\t\n\r]/g, ' '), text, valueStart) });
    i = valueEnd + 1;
  }
}

function checkNamespaces(element: XmlElement, text: string, position: number): void {
  for (const attribute of element.attributes) {
    if (attribute.name.startsWith('xmlns:')) {
      const prefix = attribute.name.slice(6);
      if (!isNcName(prefix)) fail(text, position, `invalid namespace prefix "${prefix}"`);
      if (attribute.value === '') fail(text, position, `namespace prefix "${prefix}" bound to an empty URI`);
      if (prefix === 'xmlns' || (prefix === 'xml' && attribute.value !== XML_NS)) fail(text, position, `the prefix "${prefix}" cannot be declared`);
    }
  }
  const prefixOf = (qname: string): string | undefined => (qname.includes(':') ? qname.slice(0, qname.indexOf(':')) : undefined);
  const names = [element.name, ...element.attributes.map((a) => a.name).filter((n) => n !== 'xmlns' && !n.startsWith('xmlns:'))];
  for (const qname of names) {
    const prefix = prefixOf(qname);
    if (prefix === undefined) continue;
    const local = qname.slice(prefix.length + 1);
    if (!isNcName(prefix) || !isNcName(local)) fail(text, position, `invalid qualified name "${qname}"`);
    if (namespaceOf(element, prefix) === undefined) fail(text, position, `namespace prefix "${prefix}" of <${qname}> is not declared`);
  }
  // Two attributes may not expand to the same namespace-qualified name.
  const expanded = new Set<string>();
  for (const attribute of element.attributes) {
    if (attribute.name === 'xmlns' || attribute.name.startsWith('xmlns:')) continue;
    const prefix = prefixOf(attribute.name);
    const key = prefix === undefined ? `|${attribute.name}` : `${namespaceOf(element, prefix)}|${attribute.name.slice(prefix.length + 1)}`;
    if (expanded.has(key)) fail(text, position, `attribute ${attribute.name} given twice`);
    expanded.add(key);
  }
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(raw: string, text: string, offset: number): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&([^;&\s]{0,32});?/g, (match, body: string, index: number) => {
    if (!match.endsWith(';')) fail(text, offset + index, '"&" must start an entity reference such as &amp;');
    if (ENTITIES[body] !== undefined) return ENTITIES[body];
    const numeric = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(body);
    if (numeric) {
      const code = numeric[1] !== undefined ? Number.parseInt(numeric[1], 16) : Number(numeric[2]);
      const ok = code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
      if (!ok) fail(text, offset + index, `character reference ${match} names no XML character`);
      return String.fromCodePoint(code);
    }
    return fail(text, offset + index, `unknown entity ${match}`);
  });
}

function fail(text: string, index: number, message: string): never {
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  const column = index - before.lastIndexOf('\n');
  throw new XmlSyntaxError(`${message} (line ${line}, column ${column})`);
}

/** The namespace URI bound to `prefix` at `element` ('' for no prefix), or undefined. */
export function namespaceOf(element: XmlElement | undefined, prefix: string): string | undefined {
  if (prefix === 'xml') return XML_NS;
  const attributeName = prefix === '' ? 'xmlns' : `xmlns:${prefix}`;
  for (let node = element; node; node = node.parent) {
    const found = node.attributes.find((a) => a.name === attributeName);
    if (found) return found.value;
  }
  return undefined;
}

/** The namespace URI and local part of an element's or attribute's qualified name. */
export function expandedName(element: XmlElement, qname: string, isAttribute = false): { ns: string | undefined; local: string } {
  const colon = qname.indexOf(':');
  if (colon === -1) return { ns: isAttribute ? undefined : namespaceOf(element, ''), local: qname };
  return { ns: namespaceOf(element, qname.slice(0, colon)), local: qname.slice(colon + 1) };
}

export function isElement(node: XmlNode | undefined): node is XmlElement {
  return node?.kind === 'element';
}

export function element(name: string, attributes: Record<string, string> = {}, children: XmlNode[] = []): XmlElement {
  const created: XmlElement = { kind: 'element', name, attributes: Object.entries(attributes).map(([n, value]) => ({ name: n, value })), children: [], parent: undefined };
  for (const child of children) appendChild(created, child);
  return created;
}

export function textNode(value: string): XmlText {
  return { kind: 'text', text: value };
}

export function appendChild(parent: XmlElement, child: XmlNode): void {
  if (child.kind === 'element') child.parent = parent;
  parent.children.push(child);
}

export function removeChild(parent: XmlElement, child: XmlNode): void {
  const index = parent.children.indexOf(child);
  if (index === -1) return;
  // Drop the white space that indented it, so repeated edits do not pile up blank lines.
  const before = parent.children[index - 1];
  const start = before?.kind === 'text' && !before.cdata && before.text.trim() === '' ? index - 1 : index;
  parent.children.splice(start, index - start + 1);
}

export function serializeXml(document: XmlDocument): string {
  return [...document.prolog, document.root, ...document.epilog].map(serializeNode).join('');
}

export function serializeNode(node: XmlNode): string {
  switch (node.kind) {
    case 'text':
      return node.cdata ? `<![CDATA[${node.text}]]>` : escapeText(node.text);
    case 'comment':
    case 'pi':
      return node.raw;
    case 'element': {
      const attributes = node.attributes.map((a) => ` ${a.name}="${escapeAttribute(a.value)}"`).join('');
      if (node.children.length === 0) return `<${node.name}${attributes}/>`;
      return `<${node.name}${attributes}>${node.children.map(serializeNode).join('')}</${node.name}>`;
    }
  }
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}
