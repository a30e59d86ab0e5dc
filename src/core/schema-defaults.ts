/**
 * A value with its JSON schema's defaults filled in, as TypeBox's `Value.Default` fills them, for the
 * shapes Quire's schemas use: objects (a missing member gets its default; members present are filled
 * in turn), arrays (each item) and unions whose variants differ by JSON type (the variant of the
 * value's type fills). TypeBox's value module would cost the idle server ~10 MB for this alone. The
 * value passed in is not changed; defaults are copied.
 */

/** The members of a JSON schema node that Quire's own schema walkers read. */
export interface SchemaNode {
  type?: string;
  description?: string;
  default?: unknown;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
}

/** `convert` may turn a scalar into the schema's type first (the configuration's strings from YAML). */
export function withDefaults(schema: object, value: unknown, convert: (schema: SchemaNode, value: unknown) => unknown = (_, v) => v): unknown {
  return filled(schema as SchemaNode, value, convert);
}

function filled(schema: SchemaNode, value: unknown, convert: (schema: SchemaNode, value: unknown) => unknown): unknown {
  if (value === undefined && schema.default !== undefined) value = structuredClone(schema.default);
  if (schema.anyOf) {
    const variant = schema.anyOf.find((s) => hasTypeOf(s, value)) ?? schema.anyOf.find((s) => convert(s, value) !== value);
    return variant ? filled(variant, value, convert) : value;
  }
  value = convert(schema, value);
  if (schema.properties && isPlainObject(value)) {
    const result: Record<string, unknown> = { ...value };
    for (const [key, property] of Object.entries(schema.properties)) {
      const member = filled(property, result[key], convert);
      if (member !== undefined) result[key] = member;
    }
    return result;
  }
  if (schema.items && Array.isArray(value)) return value.map((item) => filled(schema.items!, item, convert));
  return value;
}

/** Whether the value has the schema's JSON type. */
function hasTypeOf(schema: SchemaNode, value: unknown): boolean {
  switch (schema.type) {
    case 'object':
      return isPlainObject(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'null':
      return value === null;
    case undefined:
      return schema.anyOf ? schema.anyOf.some((s) => hasTypeOf(s, value)) : 'const' in schema ? (schema as { const: unknown }).const === value : false;
    default:
      return typeof value === schema.type;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
