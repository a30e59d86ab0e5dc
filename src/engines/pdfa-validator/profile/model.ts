import type { CompiledExpression } from '../expression/evaluate.js';
import type { PropertyScope } from '../expression/value.js';

/** The eight PDF/A levels with a veraPDF profile, as the web service names them. */
export const PDFA_LEVELS = ['1a', '1b', '2a', '2b', '2u', '3a', '3b', '3u'] as const;
export type PdfaLevel = (typeof PDFA_LEVELS)[number];

/** Must accompany every rule id or text shown to anyone (the profiles' licence, CC BY 4.0). */
export const PROFILE_ATTRIBUTION = 'veraPDF validation profiles, © veraPDF Consortium, CC BY 4.0';

export interface Profile {
  level: PdfaLevel;
  /** veraPDF's flavour, e.g. `PDFA_2_B`. */
  flavour: string;
  name: string;
  description: string;
  rules: readonly Rule[];
  variables: readonly Variable[];
  /** The rules per model type (`object`), in profile order. */
  rulesByObject: ReadonlyMap<string, readonly Rule[]>;
}

export interface RuleId {
  /** `ISO_19005_1` | `ISO_19005_2` | `ISO_19005_3`… */
  specification: string;
  clause: string;
  testNumber: number;
}

export interface Rule {
  /** veraPDF's id: `<clause>-<testNumber>`, e.g. `6.2.11.4.1-1` (unique within a profile). */
  id: string;
  ruleId: RuleId;
  /** The model type the rule applies to (`CosDocument`, `PDFont`, `Glyph`, `XMPProperty`…). */
  object: string;
  /** Checked once every object was visited: the rule needs facts about the whole document. */
  deferred: boolean;
  tags: readonly string[];
  description: string;
  test: CompiledExpression;
  error: { message: string; arguments: readonly CompiledExpression[] };
  references: readonly { specification: string; clause: string }[];
  /** Properties of the object the test reads: all must be implemented, or the rule is not-checked. */
  properties: readonly string[];
  /** Profile variables the test reads. */
  variables: readonly string[];
}

/**
 * A profile variable (veraPDF's `<variables>`): a document-wide value. It starts as `defaultValue`
 * (evaluated without an object); for every object of type `object`, `value` is evaluated with that
 * object's properties and the variables' current values, and becomes the new value: the last object
 * visited wins, and `value` can keep the old value by naming the variable itself
 * (`S == "GTS_PDFA1" ? colorSpace : gOutputCS`). Rules read the final value (variables.ts).
 */
export interface Variable {
  name: string;
  object: string;
  defaultValue: CompiledExpression;
  value: CompiledExpression;
  /** Properties of `object` that `value` reads. */
  properties: readonly string[];
}

/**
 * A node of the document model as rules see it. `types` lists every veraPDF type the object is
 * (most specific first, e.g. `PDType1Font`, `PDSimpleFont`, `PDFont`); `has` says which properties it
 * implements. A property it does not implement is never read as null: the rule is not-checked.
 */
export interface ModelObject extends PropertyScope {
  readonly types: readonly string[];
}
