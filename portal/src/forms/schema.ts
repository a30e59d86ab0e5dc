/**
 * The JSON schemas of the served OpenAPI document (the TypeBox schemas the server validates with) as
 * the form renderer reads them, and the server's validation messages mapped back to fields.
 */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  description?: string;
  additionalProperties?: boolean | Schema;
}

export type Components = Record<string, Schema>;

export function resolve(schema: Schema | undefined, components: Components): Schema {
  let current = schema ?? {};
  // A chain of references ends within a few steps; the bound only guards against a cycle.
  for (let depth = 0; current.$ref && depth < 16; depth++) {
    const name = current.$ref.replace('#/components/schemas/', '');
    current = { ...components[name], ...(current.description ? { description: current.description } : {}) };
  }
  return current;
}

export type Kind = 'object' | 'array' | 'enum' | 'boolean' | 'integer' | 'number' | 'string' | 'choice' | 'unknown';

export function kindOf(schema: Schema): Kind {
  if (schema.enum) return 'enum';
  if (schema.anyOf || schema.oneOf) return 'choice';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || (!type && schema.properties)) return 'object';
  if (type === 'array') return 'array';
  if (type === 'boolean' || type === 'integer' || type === 'number' || type === 'string') return type;
  return 'unknown';
}

/** The enum values a choice offers (anyOf [enum, free string]): shown as suggestions of a text input. */
export function suggestionsOf(schema: Schema, components: Components): string[] {
  const variants = (schema.anyOf ?? schema.oneOf ?? []).map((variant) => resolve(variant, components));
  return variants.flatMap((variant) => (variant.enum ?? []).map(String));
}

/** A value where the form starts from: the default when the schema has one. */
export function initialOf(schema: Schema): unknown {
  if (schema.default !== undefined) return structuredClone(schema.default);
  const kind = kindOf(schema);
  if (kind === 'object') return {};
  if (kind === 'array') return [];
  return undefined;
}

/** A copy of `value` with `next` at `key` (undefined removes the key; arrays keep their length). */
export function withMember(value: unknown, key: string | number, next: unknown): unknown {
  if (typeof key === 'number') {
    const array = Array.isArray(value) ? [...(value as unknown[])] : [];
    array[key] = next;
    return array;
  }
  const object = { ...(value && typeof value === 'object' ? (value as Record<string, unknown>) : {}) };
  if (next === undefined) delete object[key];
  else object[key] = next;
  return object;
}

/** "toolbox[0].rotate.degrees", "body.toolbox.0.rotate.degrees" → "toolbox.0.rotate.degrees". */
export function normalizeField(field: string): string {
  return field
    .trim()
    .replace(/^(body|querystring)\./, '')
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/^\./, '');
}

/**
 * The fields an error message names: the server writes `Invalid parameter <field>: <reason>` (several
 * joined by "; " for a schema violation), so each named field gets its reason.
 */
export function fieldErrors(message: string): Map<string, string> {
  const errors = new Map<string, string>();
  const match = /^Invalid parameters? (.*)$/s.exec(message);
  if (!match) return errors;
  for (const part of match[1]!.split(/;\s+/)) {
    const colon = part.indexOf(': ');
    if (colon <= 0) continue;
    const field = normalizeField(part.slice(0, colon));
    if (/^[\w.]+$/.test(field)) errors.set(field, part.slice(colon + 2));
  }
  return errors;
}

export function fieldId(path: Array<string | number>): string {
  return `f-${path.join('-')}`;
}
