import { withDefaults } from '../../core/schema-defaults.js';
import { SIGNATURE_COMPONENTS, Signature, type SignatureOptions } from './signature.schema.js';

/**
 * The `Operation_Signature` member with its defaults filled, for the nested step (`converter.signature`):
 * the converter's schema takes the member as it comes, so ajv fills nothing in it. The component
 * references of the signature schemas are inlined first (the defaults walker does not follow `$ref`).
 */
const byId = new Map<string, object>(SIGNATURE_COMPONENTS.map((schema) => [(schema as unknown as { $id: string }).$id, schema]));

function inline(node: unknown, depth = 0): unknown {
  if (depth > 16 || node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((item) => inline(item, depth + 1));
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && byId.has(ref.replace(/#$/, ''))) return inline(byId.get(ref.replace(/#$/, '')), depth + 1);
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value, depth + 1)]));
}

const resolved = inline(Signature) as object;

export function signatureWithDefaults(options: unknown): SignatureOptions {
  return withDefaults(resolved, options ?? {}) as SignatureOptions;
}
