import type { XmpProperty, XmpValue } from './rdf.js';
import { NS, STRUCTS, type StructDef } from './schemas.js';
import { isKnownType } from './value-types.js';

/**
 * The extension schemas a packet declares (ISO 19005-1 6.7.8, -2 6.6.2.3.2/3): the `pdfaExtension:schemas`
 * bag of schema descriptions. They make custom properties defined (with their value types) and are
 * themselves checked: every field of the pdfaSchema/pdfaProperty/pdfaType/pdfaField structures with
 * its required type and prefix.
 */
export interface ExtensionSchemas {
  /** Namespace URI → property name → declared value type. */
  properties: Map<string, Map<string, string>>;
  /** Value types declared (pdfaType:type → its fields), usable by properties of any extension schema of the package. */
  structs: Map<string, StructDef>;
  /** Property values for the ExtensionSchema* model objects. */
  objects: { types: string[]; values: Record<string, string | number | boolean | null> }[];
}

const OBJECT_LIMIT = 10_000;

/** `inherited`: the value types of the main packet, which the document's other packets may use (as the corpus' 2b 6-6-2-3-2-t01-pass-d does). */
export function readExtensionSchemas(props: readonly XmpProperty[], inherited: ReadonlyMap<string, StructDef> = new Map()): ExtensionSchemas {
  const out: ExtensionSchemas = { properties: new Map(), structs: new Map(inherited), objects: [] };
  const containers = props.filter((p) => p.namespace === NS.pdfaExtension && p.name === 'schemas');
  const schemas: XmpValue[] = [];
  for (const c of containers) {
    const isValidBag = c.value.kind === 'array' && c.value.arrayType === 'Bag';
    out.objects.push({ types: ['ExtensionSchemasContainer'], values: { isValidBag, prefix: c.prefix } });
    if (c.value.kind === 'array') schemas.push(...c.value.items);
  }
  // Value types first: a property may use a type its schema declares after it, or another schema declares.
  const valueTypes: XmpValue[] = [];
  for (const s of schemas) {
    const vt = field(s, NS.pdfaSchema, 'valueType');
    if (vt?.value.kind === 'array') valueTypes.push(...vt.value.items);
  }
  for (const t of valueTypes) {
    const type = textField(t, NS.pdfaType, 'type');
    const namespace = textField(t, NS.pdfaType, 'namespaceURI');
    if (type === null || namespace === null) continue;
    const fields: Record<string, string> = {};
    const f = field(t, NS.pdfaType, 'field');
    if (f?.value.kind === 'array') {
      for (const item of f.value.items) {
        const name = textField(item, NS.pdfaField, 'name');
        const valueType = textField(item, NS.pdfaField, 'valueType');
        if (name !== null) fields[name] = valueType ?? 'Text';
      }
    }
    out.structs.set(type, { namespace, fields });
  }
  const defined = (type: string | null): boolean => type !== null && isKnownType(type, out.structs);
  const push = (types: string[], values: Record<string, string | number | boolean | null>): void => {
    if (out.objects.length < OBJECT_LIMIT) out.objects.push({ types: [...types, 'ExtensionSchemaObject'], values });
  };

  for (const s of schemas) {
    const namespace = textField(s, NS.pdfaSchema, 'namespaceURI');
    const property = field(s, NS.pdfaSchema, 'property');
    const valueType = field(s, NS.pdfaSchema, 'valueType');
    push(['ExtensionSchemaDefinition'], {
      ...textFacts(s, NS.pdfaSchema, 'schema'),
      ...textFacts(s, NS.pdfaSchema, 'prefix'),
      isNamespaceURIValidURI: namespace !== null,
      namespaceURIPrefix: field(s, NS.pdfaSchema, 'namespaceURI')?.prefix ?? null,
      isPropertyValidSeq: property === undefined || (property.value.kind === 'array' && property.value.arrayType === 'Seq'),
      propertyPrefix: property?.prefix ?? null,
      isValueTypeValidSeq: valueType === undefined || (valueType.value.kind === 'array' && valueType.value.arrayType === 'Seq'),
      valueTypePrefix: valueType?.prefix ?? null,
      containsUndefinedFields: undefinedFields(s, 'Schema'),
    });
    if (property?.value.kind === 'array') {
      for (const p of property.value.items) {
        const name = textField(p, NS.pdfaProperty, 'name');
        const type = textField(p, NS.pdfaProperty, 'valueType');
        if (namespace !== null && name !== null) {
          let names = out.properties.get(namespace);
          if (names === undefined) out.properties.set(namespace, (names = new Map()));
          names.set(name, type ?? 'Text');
        }
        push(['ExtensionSchemaProperty'], {
          ...textFacts(p, NS.pdfaProperty, 'name'),
          ...textFacts(p, NS.pdfaProperty, 'valueType'),
          isValueTypeDefined: defined(type),
          ...textFacts(p, NS.pdfaProperty, 'category'),
          category: textField(p, NS.pdfaProperty, 'category'),
          ...textFacts(p, NS.pdfaProperty, 'description'),
          containsUndefinedFields: undefinedFields(p, 'Property'),
        });
      }
    }
  }
  for (const t of valueTypes) {
    const f = field(t, NS.pdfaType, 'field');
    push(['ExtensionSchemaValueType'], {
      ...textFacts(t, NS.pdfaType, 'type'),
      isNamespaceURIValidURI: textField(t, NS.pdfaType, 'namespaceURI') !== null,
      namespaceURIPrefix: field(t, NS.pdfaType, 'namespaceURI')?.prefix ?? null,
      ...textFacts(t, NS.pdfaType, 'prefix'),
      ...textFacts(t, NS.pdfaType, 'description'),
      isFieldValidSeq: f === undefined || (f.value.kind === 'array' && f.value.arrayType === 'Seq'),
      fieldPrefix: f?.prefix ?? null,
      containsUndefinedFields: undefinedFields(t, 'ValueType'),
    });
    if (f?.value.kind === 'array') {
      for (const item of f.value.items) {
        push(['ExtensionSchemaField'], {
          ...textFacts(item, NS.pdfaField, 'name'),
          ...textFacts(item, NS.pdfaField, 'valueType'),
          isValueTypeDefined: defined(textField(item, NS.pdfaField, 'valueType')),
          ...textFacts(item, NS.pdfaField, 'description'),
          containsUndefinedFields: undefinedFields(item, 'Field'),
        });
      }
    }
  }
  return out;
}

function field(v: XmpValue, namespace: string, name: string): XmpProperty | undefined {
  if (v.kind !== 'struct') return undefined;
  return v.fields.find((f) => f.namespace === namespace && f.name === name);
}

function textField(v: XmpValue, namespace: string, name: string): string | null {
  const f = field(v, namespace, name);
  return f?.value.kind === 'simple' ? f.value.text : null;
}

/** `is<Name>ValidText` (present and a simple text value) and `<name>Prefix` (the prefix it was written with). */
function textFacts(v: XmpValue, namespace: string, name: string): Record<string, boolean | string | null> {
  const f = field(v, namespace, name);
  const cap = name.charAt(0).toUpperCase() + name.slice(1);
  return { [`is${cap}ValidText`]: f?.value.kind === 'simple', [`${name}Prefix`]: f?.prefix ?? null };
}

/** A field outside the structure's definition (ISO 19005-2 6.6.2.3.2: only the fields of Tables 2–5). */
function undefinedFields(v: XmpValue, struct: string): boolean {
  const def = STRUCTS.get(struct) as StructDef;
  if (v.kind !== 'struct') return false;
  return v.fields.some((f) => f.namespace !== def.namespace || !Object.hasOwn(def.fields, f.name));
}
