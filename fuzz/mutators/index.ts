/** The mutator registry: picks 1–3 mutations that understand the seed and applies them in turn. */
import type { Corpus, Seed } from '../corpus/corpus.js';
import type { Rng } from '../prng.js';
import { blindMutators } from './blind.js';
import { imageMutators } from './images.js';
import { pdfMutators } from './pdf.js';
import { textMutators } from './text.js';
import type { Mutator } from './types.js';
import { zipMutators } from './zip.js';

export const ALL_MUTATORS: Mutator[] = [...blindMutators, ...pdfMutators, ...imageMutators, ...zipMutators, ...textMutators];

/** Inputs past this size are not mutated further (a chain of amplifying mutations stays bounded). */
const MAX_MUTATED_BYTES = 32 * 1024 * 1024;

export interface Mutated {
  bytes: Buffer;
  /** "pdf.number: /Count → 2147483647", in order. */
  steps: string[];
}

function applicable(seed: Seed): Mutator[] {
  return ALL_MUTATORS.filter((m) => m.kinds === 'any' || m.kinds.includes(seed.kind));
}

/**
 * Mutates a seed. Structure-aware mutators are favoured for the kinds that have them (a blind flip
 * in a PDF mostly exercises the repair path). `only` restricts the first step to one mutator (the
 * slice uses it to cover every mutator).
 */
export function mutate(seed: Seed, rng: Rng, corpus: Corpus, only?: string): Mutated {
  const candidates = applicable(seed);
  const aware = candidates.filter((m) => m.kinds !== 'any');
  const weightOf = (m: Mutator) => (m.kinds === 'any' && aware.length ? m.weight * 0.5 : m.weight);
  const steps: string[] = [];
  let bytes = seed.bytes;
  const rounds = rng.weighted([
    [1, 5],
    [2, 3],
    [3, 1],
  ] as const);
  for (let round = 0; round < rounds; round++) {
    const pool = round === 0 && only ? candidates.filter((m) => m.name === only) : candidates;
    if (!pool.length) break;
    // A few attempts: a mutator may find nothing to change in this input.
    for (let attempt = 0; attempt < 6; attempt++) {
      const mutator = rng.weighted(pool.map((m) => [m, weightOf(m)] as const));
      const result = mutator.apply(bytes, { rng: rng.fork(mutator.name), corpus });
      if (!result) continue;
      bytes = result.bytes;
      steps.push(`${mutator.name}: ${result.note}`);
      break;
    }
    if (bytes.length > MAX_MUTATED_BYTES) break;
  }
  if (steps.length === 0) {
    const result = blindMutators[0]!.apply(bytes, { rng, corpus });
    if (result) {
      bytes = result.bytes;
      steps.push(`blind.flip: ${result.note}`);
    }
  }
  return { bytes, steps };
}

/** The mutators that apply to a kind (for the slice's coverage of every mutator). */
export function mutatorsFor(seed: Seed): string[] {
  return applicable(seed).map((m) => m.name);
}
