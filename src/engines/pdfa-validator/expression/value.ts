/**
 * What an expression computes with: the primitives a model property can hold, the regex literals of
 * the source, and the arrays `split`, `match` and `filter` make. Nothing else ever becomes a value, so the
 * native JavaScript operators (`==`, `<`, `+`) applied to these give exactly JavaScript's semantics
 * without running anything a file controls (no value has its own valueOf or toString).
 */
export type Value = string | number | boolean | null | undefined | RegExp | Value[];

/** The primitives a model object's property may return (`undefined` reads as `null`, as a Java getter's absent value). */
export type PropertyValue = string | number | boolean | null | undefined;

/** A model object as the evaluator sees it: which properties it implements, and their values. */
export interface PropertyScope {
  /** False for a property the model does not implement (the rule reading it is then not-checked). */
  has(name: string): boolean;
  get(name: string): PropertyValue;
}

/** The profile variables (profile/variables.ts); `get` throws an `unknownVariable` ExpressionError for a value that could not be established. */
export interface VariableScope {
  has(name: string): boolean;
  get(name: string): Value;
}

export const NO_PROPERTIES: PropertyScope = { has: () => false, get: () => null };
export const NO_VARIABLES: VariableScope = { has: () => false, get: () => null };

/** The text of a value as JavaScript's String() gives it (and veraPDF prints error arguments). */
export function valueText(value: Value): string {
  return String(value);
}
