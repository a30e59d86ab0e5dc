import { XMP_NAMESPACES } from '../../xml/xmp-namespaces.js';
import { DocumentEditError } from './errors.js';
import { appendChild, element, expandedName, isElement, namespaceOf, parseXml, removeChild, serializeXml, textNode, XmlSyntaxError, type XmlDocument, type XmlElement, type XmlNode } from './xml.js';

/** Namespaces by their usual prefix (XMP specification parts 1 and 2, ISO 19005 for pdfa*). */
export const NS = XMP_NAMESPACES;

/** A property value in the XMP data model: simple, language alternative, array, or structure. */
export type XmpValue =
  | { kind: 'simple'; text: string }
  | { kind: 'langAlt'; text: string }
  | { kind: 'array'; container: 'Seq' | 'Bag' | 'Alt'; items: XmpValue[] }
  | { kind: 'struct'; fields: XmpField[] }
  /** An element of this packet moved as it is (it must stay within the scope of its namespace declarations). */
  | { kind: 'xml'; element: XmlElement };

export interface XmpField {
  ns: string;
  prefix: string;
  name: string;
  value: XmpValue;
}

const PADDING = `\n${`${' '.repeat(99)}\n`.repeat(20)}`;

/**
 * An XMP packet as an XML tree with the operations the editors need: set and remove top-level
 * properties by namespace URI and name, whatever prefix or form (element or attribute) the packet
 * uses. Everything else in the packet is kept as it was.
 */
export class XmpPacket {
  private constructor(
    private readonly document: XmlDocument,
    readonly rdf: XmlElement,
  ) {}

  /** A packet with no properties. */
  static create(): XmpPacket {
    const rdf = element('rdf:RDF', { 'xmlns:rdf': NS.rdf });
    const meta = element('x:xmpmeta', { 'xmlns:x': NS.x }, [textNode('\n  '), rdf, textNode('\n')]);
    rdf.children.push(textNode('\n  '));
    const document: XmlDocument = {
      prolog: [{ kind: 'pi', raw: '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>' }, textNode('\n')],
      root: meta,
      epilog: [{ kind: 'pi', raw: '<?xpacket end="w"?>' }],
    };
    return new XmpPacket(document, rdf);
  }

  /**
   * Reads a packet (UTF-8, or UTF-16 with a byte order mark). Throws `XmlSyntaxError` for XML that
   * is not well-formed, DocumentEditError('invalidOption') for XML that is not XMP.
   */
  static parse(bytes: Buffer): XmpPacket {
    const document = parseXml(decode(bytes));
    const root = document.root;
    const rootName = expandedName(root, root.name);
    let rdf: XmlElement | undefined;
    if (rootName.ns === NS.rdf && rootName.local === 'RDF') rdf = root;
    else if (rootName.ns === NS.x && (rootName.local === 'xmpmeta' || rootName.local === 'xapmeta')) {
      rdf = root.children.filter(isElement).find((child) => {
        const n = expandedName(child, child.name);
        return n.ns === NS.rdf && n.local === 'RDF';
      });
    }
    if (!rdf) throw new DocumentEditError('invalidOption', 'the XML is not XMP: its root must be x:xmpmeta (namespace adobe:ns:meta/) with an rdf:RDF inside, or rdf:RDF itself');
    return new XmpPacket(document, rdf);
  }

  /** `parse`, or undefined when the bytes are not a readable packet (a damaged packet cannot be kept in step). */
  static tryParse(bytes: Buffer): XmpPacket | undefined {
    try {
      return XmpPacket.parse(bytes);
    } catch (error) {
      if (error instanceof XmlSyntaxError || error instanceof DocumentEditError) return undefined;
      throw error;
    }
  }

  /** The rdf:Description elements (one per namespace group in most packets). */
  descriptions(): XmlElement[] {
    return this.rdf.children.filter(isElement).filter((child) => {
      const n = expandedName(child, child.name);
      return n.ns === NS.rdf && n.local === 'Description';
    });
  }

  /** Whether the packet binds `uri` to some prefix anywhere (used to check an xml packet names its namespace). */
  declaresNamespace(uri: string): boolean {
    const visit = (node: XmlElement): boolean => node.attributes.some((a) => (a.name === 'xmlns' || a.name.startsWith('xmlns:')) && a.value === uri) || node.children.filter(isElement).some(visit);
    return visit(this.document.root);
  }

  /** The prefix the packet binds to `uri`, if any. */
  prefixFor(uri: string): string | undefined {
    for (const [prefix, bound] of this.prefixesInUse()) if (bound === uri) return prefix;
    return undefined;
  }

  /** The namespace the packet binds `prefix` to, if any. */
  namespaceForPrefix(prefix: string): string | undefined {
    return this.prefixesInUse().get(prefix);
  }

  /**
   * Adds the xpacket wrapper (XMP part 1 §7.3) when the XML came without one; an XML declaration is
   * dropped, the packet being written as UTF-8 anyway.
   */
  ensureWrapper(): void {
    const prolog = this.document.prolog.filter((node) => !(node.kind === 'pi' && /^<\?xml[\s?]/.test(node.raw)));
    while (prolog[0]?.kind === 'text' && prolog[0].text.trim() === '') prolog.shift();
    if (!prolog.some((node) => node.kind === 'pi' && node.raw.startsWith('<?xpacket begin'))) {
      prolog.unshift({ kind: 'pi', raw: '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>' }, textNode('\n'));
    }
    this.document.prolog.splice(0, this.document.prolog.length, ...prolog);
    if (!this.document.epilog.some((node) => node.kind === 'pi' && node.raw.startsWith('<?xpacket end'))) {
      this.document.epilog.push(textNode('\n'), { kind: 'pi', raw: '<?xpacket end="w"?>' });
    }
  }

  /** Every prefix the packet declares, with the namespace it is first bound to. */
  private prefixesInUse(): Map<string, string> {
    const prefixes = new Map<string, string>();
    const visit = (node: XmlElement): void => {
      for (const a of node.attributes) if (a.name.startsWith('xmlns:') && !prefixes.has(a.name.slice(6))) prefixes.set(a.name.slice(6), a.value);
      node.children.filter(isElement).forEach(visit);
    };
    visit(this.document.root);
    return prefixes;
  }

  /** The top-level property elements named (ns, name), in document order. */
  propertyElements(ns: string, name: string): XmlElement[] {
    return this.descriptions().flatMap((description) =>
      description.children.filter(isElement).filter((child) => {
        const n = expandedName(child, child.name);
        return n.ns === ns && n.local === name;
      }),
    );
  }

  removeProperty(ns: string, name: string): void {
    for (const description of this.descriptions()) {
      description.attributes = description.attributes.filter((attribute) => {
        if (!attribute.name.includes(':') || attribute.name.startsWith('xmlns:')) return true;
        const n = expandedName(description, attribute.name, true);
        return !(n.ns === ns && n.local === name);
      });
      for (const child of description.children.filter(isElement)) {
        const n = expandedName(child, child.name);
        if (n.ns === ns && n.local === name) removeChild(description, child);
      }
    }
  }

  /**
   * Sets a top-level property, replacing any earlier value. It goes into a Description that already
   * declares its namespace, else into a new Description; `preferredPrefix` is used unless the packet
   * binds the namespace to another prefix already (or the prefix means something else there).
   */
  setProperty(ns: string, preferredPrefix: string, name: string, value: XmpValue): void {
    this.removeProperty(ns, name);
    const description = this.descriptionFor(ns, preferredPrefix);
    const prefix = this.declare(description, ns, preferredPrefix);
    appendIndented(description, this.build(description, `${prefix}:${name}`, value));
  }

  /** The Description that declares `ns` itself, or a new one (appended to rdf:RDF). */
  private descriptionFor(ns: string, preferredPrefix: string): XmlElement {
    const existing = this.descriptions().find((d) => d.attributes.some((a) => a.name.startsWith('xmlns:') && a.value === ns));
    if (existing) return existing;
    const rdfPrefix = this.rdfPrefix();
    // Every Description of a packet describes the same resource: reuse the first one's rdf:about.
    const first = this.descriptions()[0];
    const about =
      first?.attributes.find((a) => {
        const n = expandedName(first, a.name, true);
        return n.ns === NS.rdf && n.local === 'about';
      })?.value ?? '';
    const created = element(`${rdfPrefix}:Description`, { [`${rdfPrefix}:about`]: about });
    appendIndented(this.rdf, created);
    this.declare(created, ns, preferredPrefix);
    return created;
  }

  private rdfPrefix(): string {
    const colon = this.rdf.name.indexOf(':');
    return colon === -1 ? this.declare(this.rdf, NS.rdf, 'rdf') : this.rdf.name.slice(0, colon);
  }

  /** A prefix for `ns` in scope at `at`, declaring it there when needed; never shadows another binding. */
  private declare(at: XmlElement, ns: string, preferred: string): string {
    const inUse = this.prefixesInUse();
    for (const [prefix, uri] of inUse) if (uri === ns && namespaceOf(at, prefix) === ns) return prefix;
    let candidate = preferred;
    for (let n = 2; (inUse.has(candidate) && inUse.get(candidate) !== ns) || (namespaceOf(at, candidate) !== undefined && namespaceOf(at, candidate) !== ns); n++) {
      candidate = `${preferred}${n}`;
    }
    at.attributes.push({ name: `xmlns:${candidate}`, value: ns });
    return candidate;
  }

  private build(scope: XmlElement, qname: string, value: XmpValue): XmlElement {
    const rdf = this.rdfPrefix();
    switch (value.kind) {
      case 'xml':
        pinNamespaces(value.element);
        return value.element;
      case 'simple':
        return element(qname, {}, [textNode(value.text)]);
      case 'langAlt': {
        const item = element(`${rdf}:li`, { 'xml:lang': 'x-default' }, [textNode(value.text)]);
        const alt = element(`${rdf}:Alt`);
        appendChild(alt, item);
        return element(qname, {}, [alt]);
      }
      case 'array': {
        const container = element(`${rdf}:${value.container}`);
        const property = element(qname);
        appendChild(property, container);
        for (const item of value.items) appendChild(container, this.build(scope, `${rdf}:li`, item));
        return property;
      }
      case 'struct': {
        const property = element(qname, { [`${rdf}:parseType`]: 'Resource' });
        for (const field of value.fields) {
          // Field namespaces are declared on the Description, so the property stays compact.
          const prefix = this.declare(scope, field.ns, field.prefix);
          appendChild(property, this.build(scope, `${prefix}:${field.name}`, field.value));
        }
        return property;
      }
    }
  }

  /** The packet as UTF-8, with the customary padding before the closing xpacket instruction. */
  toBuffer(): Buffer {
    dropRedundantDeclarations(this.document.root);
    const epilog = this.document.epilog.filter((node) => !(node.kind === 'text' && node.text.trim() === ''));
    const end = epilog.findIndex((node) => node.kind === 'pi' && node.raw.startsWith('<?xpacket end'));
    if (end !== -1) epilog.splice(end, 0, textNode(PADDING));
    return Buffer.from(serializeXml({ ...this.document, epilog }), 'utf8');
  }
}

/** The concatenated text inside an element (for simple values and the first array item). */
export function textContent(node: XmlNode): string {
  if (node.kind === 'text') return node.text;
  if (node.kind === 'element') {
    const elements = node.children.filter(isElement);
    // An array: the first item stands for the value.
    const container = elements.length === 1 && /:(Seq|Bag|Alt)$/.test(elements[0]!.name) ? elements[0]! : undefined;
    if (container) {
      const first = container.children.find(isElement);
      return first ? textContent(first) : '';
    }
    return node.children.map(textContent).join('');
  }
  return '';
}

/**
 * Declares on `element` itself every prefix its subtree uses, resolved where it stands now, so that
 * it keeps its meaning when moved under another parent.
 */
function pinNamespaces(element: XmlElement): void {
  const used = new Set<string>();
  const visit = (node: XmlElement): void => {
    for (const qname of [node.name, ...node.attributes.map((a) => a.name)]) {
      const colon = qname.indexOf(':');
      if (colon > 0 && !qname.startsWith('xmlns')) used.add(qname.slice(0, colon));
    }
    node.children.filter(isElement).forEach(visit);
  };
  visit(element);
  for (const prefix of used) {
    if (prefix === 'xml' || element.attributes.some((a) => a.name === `xmlns:${prefix}`)) continue;
    const uri = namespaceOf(element, prefix);
    if (uri !== undefined) element.attributes.push({ name: `xmlns:${prefix}`, value: uri });
  }
}

/** Removes namespace declarations that repeat what the parent already binds (left by moved elements). */
function dropRedundantDeclarations(node: XmlElement): void {
  if (node.parent) {
    node.attributes = node.attributes.filter((a) => !(a.name.startsWith('xmlns:') && namespaceOf(node.parent, a.name.slice(6)) === a.value));
  }
  node.children.filter(isElement).forEach(dropRedundantDeclarations);
}

/** Appends `child` on its own line, indented one step deeper than `parent`. */
function appendIndented(parent: XmlElement, child: XmlElement): void {
  let depth = 0;
  for (let node = parent.parent; node; node = node.parent) depth++;
  const indent = `\n${'  '.repeat(depth + 1)}`;
  const closing = `\n${'  '.repeat(depth)}`;
  const last = parent.children[parent.children.length - 1];
  if (last?.kind === 'text' && !last.cdata && last.text.trim() === '') {
    parent.children.splice(parent.children.length - 1, 0, textNode(indent), child);
    child.parent = parent;
    last.text = closing;
  } else if (parent.children.some((c) => c.kind === 'text' && c.text.trim() !== '')) {
    appendChild(parent, child);
  } else {
    parent.children.push(textNode(indent));
    appendChild(parent, child);
    parent.children.push(textNode(closing));
  }
}

/** XMP packets are UTF-8 in practice; UTF-16 is allowed and announced by a byte order mark. */
function decode(bytes: Buffer): string {
  const even = (b: Buffer): Buffer => Buffer.from(b.subarray(0, b.length & ~1));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return even(bytes.subarray(2)).swap16().toString('utf16le');
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return even(bytes.subarray(2)).toString('utf16le');
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

export { XmlSyntaxError };
