import { createRequire } from 'node:module';
import { childElements, type XmlElement, readXml } from '../../../xml/read.js';
import { NS } from './schemas.js';

/**
 * An XMP packet's RDF (XMP Specification Part 1 §7, the RDF/XML subset XMP allows) read into
 * properties: each top-level property of every rdf:Description with its namespace URI, the prefix it
 * was written with and its value (simple, array or structure). What is not valid XMP serialization
 * (not well-formed XML, a DOCTYPE, an undeclared prefix, an array without rdf:li items, text mixed
 * with elements…) makes `serializationValid` false; what can be read is still read.
 */
export type XmpValue =
  | { kind: 'simple'; text: string; lang: string | undefined; qualifiers: XmpProperty[] }
  | { kind: 'array'; arrayType: 'Bag' | 'Seq' | 'Alt'; items: XmpValue[] }
  | { kind: 'struct'; fields: XmpProperty[] };

export interface XmpProperty {
  namespace: string;
  prefix: string;
  name: string;
  value: XmpValue;
}

export interface XmpLimits {
  /** Elements deeper than this are not read and make the serialization invalid. */
  maxDepth: number;
  /** Properties read in all (top-level, fields and items): beyond, the rest is not read. */
  maxNodes: number;
}

export const DEFAULT_XMP_LIMITS: XmpLimits = { maxDepth: 64, maxNodes: 100_000 };

export interface ParsedRdf {
  serializationValid: boolean;
  /** Why not, for the report and tests. */
  problems: string[];
  properties: XmpProperty[];
  limitHit: boolean;
}

type Scope = ReadonlyMap<string, string>;

let validator: ((text: string) => true | object) | undefined;

function wellFormed(text: string): boolean {
  validator ??= (createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser')).XMLValidator.validate as (t: string) => true | object;
  return validator(text) === true;
}

export function parseRdf(text: string, limits: XmpLimits = DEFAULT_XMP_LIMITS): ParsedRdf {
  const out: ParsedRdf = { serializationValid: true, problems: [], properties: [], limitHit: false };
  const invalid = (why: string): void => {
    out.serializationValid = false;
    if (out.problems.length < 20) out.problems.push(why);
  };
  // No DTD in XMP (Part 1 §7.3: the packet is RDF/XML without a DOCTYPE); refusing it also keeps entity expansion away.
  if (/<!DOCTYPE/i.test(text)) {
    invalid('DOCTYPE');
    return out;
  }
  // The element tree costs ~700 bytes an element and fast-xml-parser's attribute objects as much an
  // attribute: count the markup before building it (2 `<` per element, 1 `=` per attribute).
  let markup = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c === 0x3c || c === 0x3d) && ++markup > 2 * limits.maxNodes + 1000) {
      out.limitHit = true;
      invalid('too many elements or attributes');
      return out;
    }
  }
  const isWellFormed = wellFormed(text);
  if (!isWellFormed) invalid('not well-formed XML');
  let roots: XmlElement[];
  try {
    roots = readXml(text);
  } catch {
    // Well-formed but refused by engines/xml: its own bounds (depth > 1024, entity expansion) were reached.
    if (isWellFormed) out.limitHit = true;
    invalid('unreadable XML');
    return out;
  }
  let nodes = 0;
  const reader = {
    scopeOf(el: XmlElement, parent: Scope): Scope {
      const declared = Object.entries(el.attributes).filter(([k]) => k === 'xmlns' || k.startsWith('xmlns:'));
      if (declared.length === 0) return parent;
      const scope = new Map(parent);
      for (const [k, v] of declared) scope.set(k === 'xmlns' ? '' : k.slice(6), v);
      return scope;
    },
    resolve(qname: string, scope: Scope, attribute: boolean): { ns: string; prefix: string; local: string } | undefined {
      const colon = qname.indexOf(':');
      const prefix = colon < 0 ? '' : qname.slice(0, colon);
      const local = colon < 0 ? qname : qname.slice(colon + 1);
      if (prefix === 'xml') return { ns: NS.xml, prefix, local };
      if (prefix === '' && attribute) return { ns: '', prefix, local };
      const ns = scope.get(prefix);
      if (ns === undefined) return undefined;
      return { ns, prefix, local };
    },
  };

  const findRdf = (el: XmlElement, scope: Scope, depth: number): void => {
    if (depth > limits.maxDepth) return;
    const s = reader.scopeOf(el, scope);
    const n = reader.resolve(el.name, s, false);
    if (n?.ns === NS.rdf && n.local === 'RDF') {
      readRdf(el, s);
      return;
    }
    for (const child of childElements(el)) findRdf(child, s, depth + 1);
  };

  const readRdf = (rdf: XmlElement, scope: Scope): void => {
    for (const d of childElements(rdf)) {
      const s = reader.scopeOf(d, scope);
      const n = reader.resolve(d.name, s, false);
      if (n?.ns !== NS.rdf || n.local !== 'Description') {
        invalid(`rdf:RDF child ${d.name}`);
        continue;
      }
      if (hasText(d)) invalid('text in rdf:Description');
      out.properties.push(...readFields(d, s, 2));
    }
  };

  /** The properties of a node element (rdf:Description) or of a parseType="Resource" property element. */
  const readFields = (el: XmlElement, s: Scope, depth: number): XmpProperty[] => {
    const props: XmpProperty[] = [];
    for (const [k, v] of Object.entries(el.attributes)) {
      if (k === 'xmlns' || k.startsWith('xmlns:')) continue;
      const n = reader.resolve(k, s, true);
      if (n === undefined) {
        invalid(`undeclared prefix in ${k}`);
        continue;
      }
      if ((n.ns === NS.rdf && n.local !== 'value') || n.ns === NS.xml || n.ns === '') continue;
      if (++nodes > limits.maxNodes) {
        out.limitHit = true;
        return props;
      }
      props.push({ namespace: n.ns, prefix: n.prefix, name: n.local, value: { kind: 'simple', text: v, lang: undefined, qualifiers: [] } });
    }
    for (const child of childElements(el)) {
      const cs = reader.scopeOf(child, s);
      const n = reader.resolve(child.name, cs, false);
      if (n === undefined) {
        invalid(`undeclared prefix in ${child.name}`);
        continue;
      }
      if (n.ns === NS.rdf && n.local !== 'value') {
        invalid(`rdf:${n.local} as a property`);
        continue;
      }
      if (++nodes > limits.maxNodes) {
        out.limitHit = true;
        return props;
      }
      const value = readValue(child, cs, depth + 1);
      if (value !== undefined) props.push({ namespace: n.ns, prefix: n.prefix, name: n.local, value });
    }
    return props;
  };

  /** The value of a property element (or of an rdf:li). */
  const readValue = (el: XmlElement, s: Scope, depth: number): XmpValue | undefined => {
    if (depth > limits.maxDepth) {
      out.limitHit = true;
      invalid('too deep');
      return undefined;
    }
    const lang = el.attributes['xml:lang'];
    const elements = childElements(el);
    const attrs = Object.entries(el.attributes).filter(([k]) => !(k === 'xmlns' || k.startsWith('xmlns:')));
    const rdfAttr = (local: string): string | undefined => {
      for (const [k, v] of attrs) {
        const n = reader.resolve(k, s, true);
        if (n?.ns === NS.rdf && n.local === local) return v;
      }
      return undefined;
    };
    const resource = rdfAttr('resource');
    if (resource !== undefined) {
      if (elements.length > 0 || hasText(el)) invalid('rdf:resource with content');
      return { kind: 'simple', text: resource, lang, qualifiers: [] };
    }
    const parseType = rdfAttr('parseType');
    if (parseType !== undefined) {
      if (parseType !== 'Resource') {
        invalid(`rdf:parseType="${parseType}"`);
        return undefined;
      }
      if (hasText(el)) invalid('text in a parseType="Resource" element');
      return structOrQualified(readFields(el, s, depth));
    }
    if (elements.length === 0) {
      const fieldAttrs = attrs.filter(([k]) => {
        const n = reader.resolve(k, s, true);
        return n !== undefined && n.ns !== NS.rdf && n.ns !== NS.xml && n.ns !== '';
      });
      // Property attributes on an empty property element: a structure in short form (Part 1 §7.9.2.3).
      if (fieldAttrs.length > 0 && !hasText(el)) return structOrQualified(readFields(el, s, depth));
      return { kind: 'simple', text: textOf(el), lang, qualifiers: [] };
    }
    if (elements.length > 1 || hasText(el)) {
      invalid(`${el.name}: more than one value`);
      return undefined;
    }
    const inner = elements[0] as XmlElement;
    const is = reader.scopeOf(inner, s);
    const n = reader.resolve(inner.name, is, false);
    if (n?.ns !== NS.rdf) {
      invalid(`${el.name}: a value that is not RDF`);
      return undefined;
    }
    if (n.local === 'Description') {
      if (hasText(inner)) invalid('text in rdf:Description');
      return structOrQualified(readFields(inner, is, depth));
    }
    if (n.local === 'Bag' || n.local === 'Seq' || n.local === 'Alt') {
      if (hasText(inner)) invalid(`text in rdf:${n.local}`);
      const items: XmpValue[] = [];
      for (const li of childElements(inner)) {
        const ls = reader.scopeOf(li, is);
        const ln = reader.resolve(li.name, ls, false);
        if (ln?.ns !== NS.rdf || ln.local !== 'li') {
          invalid(`${li.name} in rdf:${n.local}`);
          continue;
        }
        if (++nodes > limits.maxNodes) {
          out.limitHit = true;
          break;
        }
        const item = readValue(li, ls, depth + 1);
        if (item !== undefined) items.push(item);
      }
      return { kind: 'array', arrayType: n.local, items };
    }
    invalid(`rdf:${n.local} as a value`);
    return undefined;
  };

  for (const root of roots) findRdf(root, new Map(), 0);
  return out;
}

/** A structure with an rdf:value field is a qualified simple value (Part 1 §7.8): the value plus its qualifiers. */
function structOrQualified(fields: XmpProperty[]): XmpValue {
  const value = fields.find((f) => f.namespace === NS.rdf && f.name === 'value');
  if (value === undefined) return { kind: 'struct', fields };
  const qualifiers = fields.filter((f) => f !== value);
  return value.value.kind === 'simple' ? { ...value.value, qualifiers } : value.value;
}

function hasText(el: XmlElement): boolean {
  return el.children.some((c) => typeof c === 'string' && c.trim() !== '');
}

function textOf(el: XmlElement): string {
  return el.children.filter((c): c is string => typeof c === 'string').join('');
}
