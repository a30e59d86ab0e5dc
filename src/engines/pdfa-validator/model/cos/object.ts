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

/** The properties of a model object: any object whose own keys hold property values (a getter is read when asked). */
export type ModelProps<P> = { readonly [K in keyof P]: PropertyValue };

/**
 * One class for every model object: a 100-page document makes ~10,000 of them (each number and string of the
 * content streams), so they share `has` and `get` on the prototype instead of two closures each, and keep the
 * properties object they are given (no copy).
 */
class Located implements LocatedObject {
  constructor(
    readonly types: readonly string[],
    readonly path: string,
    private readonly props: Readonly<Record<string, PropertyValue>>,
    readonly page: number | undefined,
  ) {}

  has(name: string): boolean {
    return Object.hasOwn(this.props, name);
  }

  get(name: string): PropertyValue {
    return Object.hasOwn(this.props, name) ? this.props[name] : null;
  }
}

/**
 * A model object with one property (a number of a content stream, a dictionary key's name, a `q`): the most
 * frequent kind, so it keeps its value itself instead of in a properties object of its own.
 */
class LocatedValue implements LocatedObject {
  constructor(
    readonly types: readonly string[],
    readonly path: string,
    private readonly name: string,
    private readonly value: PropertyValue,
    readonly page: number | undefined,
  ) {}

  has(name: string): boolean {
    return name === this.name;
  }

  get(name: string): PropertyValue {
    return name === this.name ? this.value : null;
  }
}

/** A model object whose one property is `name` (see LocatedValue). */
export function valueObject(types: readonly string[], path: string, name: string, value: PropertyValue, page?: number): LocatedObject {
  return new LocatedValue(types, path, name, value, page);
}

/** `props` is kept as it is (not copied): give each object its own. */
export function modelObject<P extends ModelProps<P>>(types: readonly string[], path: string, props: P, page?: number): LocatedObject {
  return new Located(types, path, props as Readonly<Record<string, PropertyValue>>, page);
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
