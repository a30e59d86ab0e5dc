/**
 * A validation profile as data: what profile-xml.ts reads from a veraPDF profile (XML) and what the
 * checked-in JSON holds (resources/pdfa/profiles/PDFA-*.json), before any expression is compiled.
 */
export interface ProfileSource {
  /** veraPDF's flavour, e.g. `PDFA_2_B`. */
  flavour: string;
  name: string;
  description: string;
  rules: RuleSource[];
  variables: VariableSource[];
}

export interface RuleSource {
  /** The model type the rule applies to, e.g. `CosDocument`, `PDFont`, `XMPProperty`. */
  object: string;
  /** Evaluated after every object of the document was visited (rules that need document-wide facts). */
  deferred: boolean;
  tags: string[];
  /** `ISO_19005_2`… */
  specification: string;
  clause: string;
  testNumber: number;
  description: string;
  test: string;
  /** With %1, %2… standing for the values of `arguments`. */
  message: string;
  arguments: string[];
  references: ReferenceSource[];
}

export interface ReferenceSource {
  specification: string;
  clause: string;
}

export interface VariableSource {
  name: string;
  /** The model type over whose objects `value` is evaluated. */
  object: string;
  defaultValue: string;
  value: string;
}
