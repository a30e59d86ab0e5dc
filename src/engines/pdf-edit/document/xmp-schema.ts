import { DocumentEditError } from './errors.js';
import { parseDate, xmpDate } from './pdf-values.js';
import { isElement, isNcName, type XmlElement } from './xml.js';
import { NS, textContent, XmpPacket, type XmpField, type XmpValue } from './xmp-packet.js';

/**
 * Custom XMP properties as webPDF's `xmp` operation describes them: a JSON array of
 * `{propertyName, propertyType, propertyCategory, propertyDescription, propertyValue}`, types Text,
 * Integer, Real, Boolean, Date and Schema (a structure whose `propertyValue` is
 * `{typePrefix, typeURI, typeDescription, fields: [...]}` with fields of the same form). They become
 * properties of one namespace plus the PDF/A extension schema that describes them (ISO 19005-1
 * §6.7.8), so a PDF/A document stays valid.
 */

export type XmpPropertyType = 'Text' | 'Integer' | 'Real' | 'Boolean' | 'Date' | 'Schema';

export interface XmpPropertyDefinition {
  name: string;
  type: XmpPropertyType;
  category: 'internal' | 'external';
  description: string;
  /** The value as XMP text, for every type but Schema. */
  text?: string;
  /** For type Schema: the structure's own namespace and fields. */
  struct?: XmpStructDefinition;
}

export interface XmpStructDefinition {
  prefix: string;
  uri: string;
  description: string;
  fields: XmpPropertyDefinition[];
}

export interface XmpNamespaceDefinition {
  uri: string;
  prefix: string;
  /** The schema's human-readable name (pdfaSchema:schema). */
  name: string;
}

const TYPES: readonly XmpPropertyType[] = ['Text', 'Integer', 'Real', 'Boolean', 'Date', 'Schema'];
const MAX_PROPERTIES = 10_000;
const MAX_NESTING = 8;
const RESERVED_PREFIXES = new Set(['x', 'rdf', 'xml', 'xmlns', 'pdfaExtension', 'pdfaSchema', 'pdfaProperty', 'pdfaType', 'pdfaField']);

/** Namespaces PDF/A already knows (XMP 2004 predefined schemas); they need no extension schema. */
const PREDEFINED = new Set<string>([
  NS.dc,
  NS.xmp,
  NS.pdf,
  'http://ns.adobe.com/xap/1.0/mm/',
  'http://ns.adobe.com/xap/1.0/rights/',
  'http://ns.adobe.com/xap/1.0/t/pg/',
  'http://ns.adobe.com/xap/1.0/bj/',
  'http://ns.adobe.com/xmp/Identifier/qual/1.0/',
  'http://ns.adobe.com/photoshop/1.0/',
  'http://ns.adobe.com/tiff/1.0/',
  'http://ns.adobe.com/exif/1.0/',
  'http://ns.adobe.com/exif/1.0/aux/',
  'http://ns.adobe.com/camera-raw-settings/1.0/',
  'http://www.aiim.org/pdfa/ns/id/',
]);

const fail = (message: string): never => {
  throw new DocumentEditError('invalidOption', message);
};

/** Checks the namespace of custom properties; messages name the member. */
export function checkNamespace(namespace: XmpNamespaceDefinition): void {
  if (namespace.uri.trim() === '') fail('namespaceURI: required');
  if (/[\s<>"{}|\\^`]/.test(namespace.uri)) fail(`namespaceURI: "${namespace.uri}" is not a URI`);
  if (!isNcName(namespace.prefix)) fail(`namespacePrefix: "${namespace.prefix}" is not an XML name without a colon`);
  if (RESERVED_PREFIXES.has(namespace.prefix)) fail(`namespacePrefix: "${namespace.prefix}" is reserved for XMP itself`);
}

/** Reads the JSON property array; messages name the offending entry as `[i].member`. */
export function parseXmpJson(json: string): XmpPropertyDefinition[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    return fail(`not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) fail('the JSON must be an array of properties ({propertyName, propertyType, propertyCategory, propertyDescription, propertyValue})');
  const list = parsed as unknown[];
  if (list.length === 0) fail('the array has no properties');
  if (list.length > MAX_PROPERTIES) fail(`more than ${MAX_PROPERTIES} properties`);
  return definitions(list, '', 0, true);
}

function definitions(list: unknown[], path: string, depth: number, topLevel: boolean): XmpPropertyDefinition[] {
  const names = new Set<string>();
  return list.map((item, index) => {
    const at = `${path}[${index}]`;
    const definition = property(item, at, depth, topLevel);
    if (names.has(definition.name)) fail(`${at}.propertyName: "${definition.name}" is given twice`);
    names.add(definition.name);
    return definition;
  });
}

function property(item: unknown, at: string, depth: number, topLevel: boolean): XmpPropertyDefinition {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return fail(`${at}: must be an object`);
  const entry = item as Record<string, unknown>;
  const name = entry.propertyName;
  if (typeof name !== 'string' || !isNcName(name)) return fail(`${at}.propertyName: must be an XML name without a colon (letters, digits, "_", "-", "."), got ${JSON.stringify(name)}`);
  const typeText = entry.propertyType;
  const type = TYPES.find((t) => typeof typeText === 'string' && t.toLowerCase() === typeText.toLowerCase());
  if (!type) return fail(`${at}.propertyType: must be one of ${TYPES.join(', ')}, got ${JSON.stringify(typeText)}`);
  const categoryText = entry.propertyCategory ?? 'external';
  if (typeof categoryText !== 'string' || !['internal', 'external'].includes(categoryText.toLowerCase())) {
    return fail(`${at}.propertyCategory: must be "internal" or "external", got ${JSON.stringify(categoryText)}`);
  }
  const description = entry.propertyDescription ?? '';
  if (typeof description !== 'string') return fail(`${at}.propertyDescription: must be a string`);
  const definition: XmpPropertyDefinition = { name, type, category: categoryText.toLowerCase() as 'internal' | 'external', description };
  if (!topLevel && entry.propertyCategory === undefined) definition.category = 'external';
  const value = entry.propertyValue;
  if (type === 'Schema') {
    if (depth >= MAX_NESTING) fail(`${at}: structures nested deeper than ${MAX_NESTING}`);
    definition.struct = struct(value, `${at}.propertyValue`, depth);
  } else {
    definition.text = scalar(type, value, `${at}.propertyValue`);
  }
  return definition;
}

function struct(value: unknown, at: string, depth: number): XmpStructDefinition {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(`${at}: a Schema property needs {typePrefix, typeURI, typeDescription, fields}`);
  const v = value as Record<string, unknown>;
  const prefix = v.typePrefix;
  const uri = v.typeURI;
  if (typeof prefix !== 'string' || !isNcName(prefix) || RESERVED_PREFIXES.has(prefix)) return fail(`${at}.typePrefix: must be an XML name without a colon, got ${JSON.stringify(prefix)}`);
  if (typeof uri !== 'string' || uri.trim() === '' || /[\s<>"{}|\\^`]/.test(uri)) return fail(`${at}.typeURI: must be a URI, got ${JSON.stringify(uri)}`);
  const description = typeof v.typeDescription === 'string' ? v.typeDescription : '';
  if (!Array.isArray(v.fields) || v.fields.length === 0) return fail(`${at}.fields: must be a non-empty array of fields`);
  return { prefix, uri, description, fields: definitions(v.fields, `${at}.fields`, depth + 1, false) };
}

function scalar(type: Exclude<XmpPropertyType, 'Schema'>, value: unknown, at: string): string {
  switch (type) {
    case 'Text':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return fail(`${at}: a Text value must be a string`);
    case 'Integer': {
      const n = typeof value === 'string' && /^[+-]?\d+$/.test(value.trim()) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isSafeInteger(n)) return fail(`${at}: an Integer value must be a whole number, got ${JSON.stringify(value)}`);
      return String(n);
    }
    case 'Real': {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return fail(`${at}: a Real value must be a number, got ${JSON.stringify(value)}`);
      return String(n);
    }
    case 'Boolean': {
      if (value === true || (typeof value === 'string' && value.toLowerCase() === 'true')) return 'True';
      if (value === false || (typeof value === 'string' && value.toLowerCase() === 'false')) return 'False';
      return fail(`${at}: a Boolean value must be true or false, got ${JSON.stringify(value)}`);
    }
    case 'Date': {
      const date = typeof value === 'string' ? parseDate(value) : undefined;
      if (!date) return fail(`${at}: a Date value must be an ISO 8601 date such as "2024-05-01T10:00:00Z", got ${JSON.stringify(value)}`);
      return xmpDate(date);
    }
  }
}

function toValue(definition: XmpPropertyDefinition): XmpValue {
  if (definition.struct) {
    const s = definition.struct;
    const fields: XmpField[] = s.fields.map((field) => ({ ns: s.uri, prefix: s.prefix, name: field.name, value: toValue(field) }));
    return { kind: 'struct', fields };
  }
  return { kind: 'simple', text: definition.text ?? '' };
}

/** The value type name of a property for the extension schema: a structure is named after its property. */
function valueType(definition: XmpPropertyDefinition): string {
  return definition.struct ? typeName(definition) : definition.type;
}

function typeName(definition: XmpPropertyDefinition): string {
  return definition.name.charAt(0).toUpperCase() + definition.name.slice(1);
}

/**
 * Adds the properties under `namespace` to the packet (replacing properties of the same names) and
 * describes them in the packet's PDF/A extension schemas. Throws invalidOption when the packet binds
 * the prefix to another namespace.
 */
export function addCustomProperties(packet: XmpPacket, namespace: XmpNamespaceDefinition, properties: XmpPropertyDefinition[]): void {
  const bound = packet.namespaceForPrefix(namespace.prefix);
  if (bound !== undefined && bound !== namespace.uri) {
    fail(`namespacePrefix: the document's XMP already uses "${namespace.prefix}" for ${bound}; choose another prefix`);
  }
  // XMP treats prefixes as hints: where the packet already has one for this namespace, it is kept.
  const prefix = packet.prefixFor(namespace.uri) ?? namespace.prefix;
  for (const definition of properties) packet.setProperty(namespace.uri, prefix, definition.name, toValue(definition));
  if (!PREDEFINED.has(namespace.uri)) describeSchema(packet, { ...namespace, prefix }, properties);
}

const schemaField = (name: string, value: XmpValue): XmpField => ({ ns: NS.pdfaSchema, prefix: 'pdfaSchema', name, value });
const simple = (text: string): XmpValue => ({ kind: 'simple', text });

function describeSchema(packet: XmpPacket, namespace: XmpNamespaceDefinition, properties: XmpPropertyDefinition[]): void {
  const existing = packet.propertyElements(NS.pdfaExtension, 'schemas')[0];
  const bag = existing?.children.filter(isElement).find((child) => /:Bag$/.test(child.name));
  const items = bag?.children.filter(isElement) ?? [];
  const previous = items.find((li) => childText(li, 'namespaceURI') === namespace.uri);
  const redefined = new Set(properties.map((p) => p.name));
  const structs = collectStructs(properties);
  const redefinedTypes = new Set(structs.map((s) => typeName(s)));

  const propertyItems: XmpValue[] = [
    ...seqItems(previous, 'property')
      .filter((li) => !redefined.has(childText(li, 'name') ?? ''))
      .map((element) => ({ kind: 'xml' as const, element })),
    ...properties.map(
      (p): XmpValue => ({
        kind: 'struct',
        fields: [
          { ns: NS.pdfaProperty, prefix: 'pdfaProperty', name: 'name', value: simple(p.name) },
          { ns: NS.pdfaProperty, prefix: 'pdfaProperty', name: 'valueType', value: simple(valueType(p)) },
          { ns: NS.pdfaProperty, prefix: 'pdfaProperty', name: 'category', value: simple(p.category) },
          { ns: NS.pdfaProperty, prefix: 'pdfaProperty', name: 'description', value: simple(p.description) },
        ],
      }),
    ),
  ];
  const typeItems: XmpValue[] = [
    ...seqItems(previous, 'valueType')
      .filter((li) => !redefinedTypes.has(childText(li, 'type') ?? ''))
      .map((element) => ({ kind: 'xml' as const, element })),
    ...structs.map(
      (s): XmpValue => ({
        kind: 'struct',
        fields: [
          { ns: NS.pdfaType, prefix: 'pdfaType', name: 'type', value: simple(typeName(s)) },
          { ns: NS.pdfaType, prefix: 'pdfaType', name: 'namespaceURI', value: simple(s.struct!.uri) },
          { ns: NS.pdfaType, prefix: 'pdfaType', name: 'prefix', value: simple(s.struct!.prefix) },
          { ns: NS.pdfaType, prefix: 'pdfaType', name: 'description', value: simple(s.struct!.description) },
          {
            ns: NS.pdfaType,
            prefix: 'pdfaType',
            name: 'field',
            value: {
              kind: 'array',
              container: 'Seq',
              items: s.struct!.fields.map(
                (f): XmpValue => ({
                  kind: 'struct',
                  fields: [
                    { ns: NS.pdfaField, prefix: 'pdfaField', name: 'name', value: simple(f.name) },
                    { ns: NS.pdfaField, prefix: 'pdfaField', name: 'valueType', value: simple(valueType(f)) },
                    { ns: NS.pdfaField, prefix: 'pdfaField', name: 'description', value: simple(f.description) },
                  ],
                }),
              ),
            },
          },
        ],
      }),
    ),
  ];
  const schemaFields: XmpField[] = [
    schemaField('schema', simple(namespace.name || namespace.prefix)),
    schemaField('namespaceURI', simple(namespace.uri)),
    schemaField('prefix', simple(namespace.prefix)),
    schemaField('property', { kind: 'array', container: 'Seq', items: propertyItems }),
  ];
  if (typeItems.length > 0) schemaFields.push(schemaField('valueType', { kind: 'array', container: 'Seq', items: typeItems }));
  const schema: XmpValue = { kind: 'struct', fields: schemaFields };
  const others: XmpValue[] = items.filter((li) => li !== previous).map((element) => ({ kind: 'xml', element }));
  packet.setProperty(NS.pdfaExtension, 'pdfaExtension', 'schemas', { kind: 'array', container: 'Bag', items: [...others, schema] });
}

/** Every Schema-typed definition, nested ones included (each needs a pdfaType entry). */
function collectStructs(properties: XmpPropertyDefinition[]): XmpPropertyDefinition[] {
  return properties.flatMap((p) => (p.struct ? [p, ...collectStructs(p.struct.fields)] : []));
}

/** The text of a direct child with the given local name (fields of a parseType="Resource" item). */
function childText(item: XmlElement, local: string): string | undefined {
  const found = item.children.filter(isElement).find((child) => child.name.split(':').pop() === local);
  return found ? textContent(found).trim() : undefined;
}

/** The rdf:li items of a Seq under the direct child `local` of a schema item. */
function seqItems(item: XmlElement | undefined, local: string): XmlElement[] {
  if (!item) return [];
  const holder = item.children.filter(isElement).find((child) => child.name.split(':').pop() === local);
  const seq = holder?.children.filter(isElement).find((child) => /:Seq$/.test(child.name));
  return seq?.children.filter(isElement) ?? [];
}
