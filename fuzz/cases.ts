/**
 * A fuzz case: a seed, the mutations applied to it, and the call made with the result. Case n of a
 * run is built from its own generator (run seed, n), so the same seed and corpus give the same case
 * list, and one case can be rebuilt alone.
 */
import type { Corpus, Seed, SeedKind } from './corpus/corpus.js';
import { mutate, mutatorsFor } from './mutators/index.js';
import { Rng } from './prng.js';
import { CHAIN_TARGET, CHAINABLE, TARGETS, callFor, type HttpCall, type Target, type TargetGroup } from './targets.js';

export interface FuzzCase {
  index: number;
  target: string;
  group: TargetGroup;
  /** The call with markers (@@DOCID@@ for the uploaded document's id). */
  call: HttpCall;
  seed: string;
  mutations: string[];
  /** The mutated bytes: the uploaded document, or the payload inside the call. */
  input: Buffer;
  kind: SeedKind;
  ext: string;
  /** When the input is a payload: the carrier document (a committed seed PDF). */
  carrier?: Seed;
}

/** Targets that can be drawn with this corpus. */
function available(corpus: Corpus): Target[] {
  const has = (kinds: readonly SeedKind[]) => kinds.some((k) => corpus.of(k).length > 0);
  return [...TARGETS, CHAIN_TARGET].filter((t) => has(t.payloadKinds ?? t.documentKinds) && (!t.payloadKinds || corpus.of('pdf').length > 0));
}

function chainOptions(rng: Rng): unknown[] {
  const length = rng.int(2, 3);
  return Array.from({ length }, () => rng.pick(rng.pick(CHAINABLE))).flat();
}

export interface CaseChoice {
  /** Force the target (the slice covers every target). */
  target?: Target;
  /** Force the first mutation (the slice covers every mutator). */
  mutator?: (seed: Seed) => string | undefined;
}

export function buildCase(runSeed: number, index: number, corpus: Corpus, carriers: Seed[], choice: CaseChoice = {}): FuzzCase {
  const rng = new Rng(runSeed, index);
  const targets = available(corpus);
  const target = choice.target ?? rng.weighted(targets.map((t) => [t, t.weight] as const));
  // Now and then a document of another kind than the target expects (a toolbox call on a PNG).
  const kinds = target.payloadKinds ?? (rng.chance(0.05) ? corpus.kinds() : target.documentKinds);
  const seeds = kinds.flatMap((k) => corpus.of(k));
  const seed = rng.pick(seeds);
  const unmutated = !choice.mutator && rng.chance(0.03);
  const mutated = unmutated ? { bytes: seed.bytes, steps: ['none'] } : mutate(seed, rng.fork('mutate'), corpus, choice.mutator?.(seed));
  const options = target === CHAIN_TARGET ? chainOptions(rng.fork('chain')) : rng.pick(target.variants);
  const carrier = target.payloadKinds ? rng.pick(carriers) : undefined;
  return {
    index,
    target: target.name,
    group: target.group,
    call: callFor(target, options, '@@DOCID@@'),
    seed: seed.name,
    mutations: mutated.steps,
    input: mutated.bytes,
    kind: seed.kind,
    ext: seed.ext,
    ...(carrier ? { carrier } : {}),
  };
}

/** Every target, including the chain. */
export function allTargets(corpus: Corpus): Target[] {
  return available(corpus);
}

/**
 * The slice's plan: case i covers target i mod (number of targets) and, for its seed, the mutator
 * (i div number of targets) mod (its mutators), so a few rounds cover every target with many mutators.
 */
export function slicePlan(corpus: Corpus, count: number): CaseChoice[] {
  const targets = allTargets(corpus);
  return Array.from({ length: count }, (_, i) => ({
    target: targets[i % targets.length]!,
    mutator: (seed: Seed) => {
      const names = mutatorsFor(seed);
      return names[(Math.floor(i / targets.length) + i) % names.length];
    },
  }));
}
