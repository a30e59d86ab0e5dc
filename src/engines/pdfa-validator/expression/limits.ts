/**
 * Hard limits of the expression language. The sources are trusted (the shipped veraPDF profiles), but
 * the values come from files anyone can send, so every limit that depends on a value is enforced while
 * evaluating. The figures leave a wide margin over what the eight profiles need (measured: longest
 * source 3,345 characters, deepest nesting 9, at most a few hundred steps per evaluation).
 */
export const LIMITS = {
  /** Characters of one expression's source. */
  sourceLength: 16_384,
  /** Nesting of the syntax tree (parentheses, operators, calls); the parser counts it, so no source overflows the stack. */
  depth: 64,
  /** Nodes evaluated per evaluation, including each element a `filter` visits and each element a `split` makes. */
  steps: 100_000,
  /**
   * Characters a regular expression is run on. The profiles' patterns are fixed but some backtrack
   * quadratically on a long input (`/^[-\w+\.]+\/[-\w+\.]+$/` without a slash); the values they test
   * (names, a header line, a language tag) are short in any real file.
   */
  regexInput: 4_096,
  /** Characters of any string a method works on or an operator builds. */
  stringLength: 1_048_576,
} as const;
