import type { Corpus, SeedKind } from '../corpus/corpus.js';
import type { Rng } from '../prng.js';

export interface MutationContext {
  rng: Rng;
  corpus: Corpus;
}

export interface MutationResult {
  bytes: Buffer;
  /** What was done, for the record: "pdf.number /Count 2147483647". */
  note: string;
}

export interface Mutator {
  name: string;
  /** The seed kinds it understands; "any" for blind byte mutations. */
  kinds: readonly SeedKind[] | 'any';
  /** Relative chance of being picked among the applicable mutators. */
  weight: number;
  /** The mutated bytes, or undefined when the input has nothing this mutator can change. */
  apply(input: Buffer, context: MutationContext): MutationResult | undefined;
}

/** Values that break parsers: boundaries of int types, negatives, zero, huge and malformed numbers. */
export const HOSTILE_NUMBERS = [
  '0',
  '-1',
  '-5',
  '1',
  '2',
  '255',
  '256',
  '65535',
  '65536',
  '2147483647',
  '2147483648',
  '-2147483648',
  '4294967295',
  '4294967296',
  '9007199254740993',
  '99999999999999999999',
  '1e308',
  '-0',
  '0.5',
  '3.4e38',
  '.',
  '1.#INF',
  'NaN',
] as const;

/** Large values that a file may declare for a count or dimension. */
export const HUGE_COUNTS = ['65535', '100000', '1000000', '2147483647', '4294967295', '99999999999'] as const;

export function replaceRange(input: Buffer, start: number, end: number, replacement: Buffer | string): Buffer {
  const bytes = typeof replacement === 'string' ? Buffer.from(replacement, 'latin1') : replacement;
  return Buffer.concat([input.subarray(0, start), bytes, input.subarray(end)]);
}
