import type { PropertyScope, PropertyValue } from '../../../../src/engines/pdfa-validator/expression/value.js';

/** A model object made of exactly these own properties (has() is own-only, as the model's must be). */
export function scopeOf(properties: Record<string, PropertyValue>): PropertyScope {
  return {
    has: (name) => Object.hasOwn(properties, name),
    get: (name) => properties[name],
  };
}
