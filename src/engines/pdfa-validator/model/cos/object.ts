import type { PropertyValue } from '../../expression/value.js';
import type { ModelObject } from '../../profile/model.js';

/**
 * A model object of the validator: its veraPDF types (most specific first), where it is in the file
 * (for reports: `12 0 obj/Resources/Font`, `trailer`, `12 0 obj (content)[3]`) and the properties it
 * implements. A property absent from `props` is not implemented: `has` says false and the rule that
 * reads it is not-checked, never evaluated against a null.
 */
export interface LocatedObject extends ModelObject {
  readonly path: string;
  /** The page (1-based) the object is on or first used on, when the model knows it. */
  readonly page?: number;
}

export function modelObject(types: readonly string[], path: string, props: Readonly<Record<string, PropertyValue>>, page?: number): LocatedObject {
  return {
    types,
    path,
    ...(page === undefined ? {} : { page }),
    has: (name) => Object.hasOwn(props, name),
    get: (name) => (Object.hasOwn(props, name) ? props[name] : null),
  };
}

/** Where a model object is, for the report: its own path when it has one, else its type. */
export function objectPath(object: ModelObject): string {
  const path = (object as Partial<LocatedObject>).path;
  return typeof path === 'string' ? path : (object.types[0] ?? 'object');
}

/** The page (1-based) a model object is on or first used on, when known. */
export function objectPage(object: ModelObject): number | undefined {
  const page = (object as Partial<LocatedObject>).page;
  return typeof page === 'number' ? page : undefined;
}
