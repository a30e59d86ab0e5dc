import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { type SchemaNode, withDefaults } from '../core/schema-defaults.js';
import { ConfigSchema } from './schema.js';

/**
 * The configuration with its defaults filled and scalars converted to the schema's types, and what is
 * wrong with it. Checking is Ajv's, which Fastify loads anyway (TypeBox's value module would add ~10 MB to
 * the idle server for this one call at start); defaults follow TypeBox's rules (core/schema-defaults.ts);
 * a string becomes a number or boolean where the schema wants one, as TypeBox's Convert does.
 */

export interface ConfigSchemaError {
  instancePath: string;
  keyword: string;
  message: string;
  params: unknown;
}

const require = createRequire(import.meta.url);
let validator: ValidateFunction | undefined;

/** `raw` completed (a new value; `raw` is not changed), and its errors (none when valid). */
export function checkConfig(raw: unknown): { value: unknown; errors: ConfigSchemaError[] } {
  const value = withDefaults(ConfigSchema, raw, converted);
  validator ??= compile();
  if (validator(value)) return { value, errors: [] };
  const errors = (validator.errors ?? []).map((e) => {
    // Ajv names a forbidden key in its parent's error; the loader reports it at the key's own path.
    const extra = e.keyword === 'additionalProperties' ? (e.params as { additionalProperty?: string }).additionalProperty : undefined;
    const instancePath = extra === undefined ? e.instancePath : `${e.instancePath}/${extra.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    return { instancePath, keyword: e.keyword, message: e.message ?? 'is invalid', params: e.params };
  });
  return { value, errors };
}

function compile(): ValidateFunction {
  const Ajv = require('ajv') as typeof import('ajv').default;
  const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(ConfigSchema);
}

/** A numeric or boolean string where the schema wants a number or a boolean. */
function converted(schema: SchemaNode, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if ((schema.type === 'number' || schema.type === 'integer') && /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/.test(value)) return Number(value);
  if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}
