/** Blind byte mutations: they know nothing about the format and work on anything. */
import { replaceRange, type Mutator } from './types.js';

const INTERESTING_BYTES = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x20, 0x0a, 0x0d, 0x25, 0x28, 0x3c, 0x5b];

function chunk(length: number, rng: { int(a: number, b: number): number }): { start: number; end: number } {
  const size = Math.max(1, Math.min(length, rng.int(1, Math.max(1, Math.floor(length / rng.int(2, 16))))));
  const start = rng.int(0, Math.max(0, length - size));
  return { start, end: start + size };
}

export const blindMutators: Mutator[] = [
  {
    name: 'blind.flip',
    kinds: 'any',
    weight: 3,
    apply(input, { rng }) {
      if (input.length === 0) return undefined;
      const out = Buffer.from(input);
      const flips = rng.pick([1, 1, 2, 4, 8, 32]);
      for (let i = 0; i < flips; i++) {
        const at = rng.below(out.length);
        out[at] = out[at]! ^ (1 << rng.below(8));
      }
      return { bytes: out, note: `${flips} bit flips` };
    },
  },
  {
    name: 'blind.bytes',
    kinds: 'any',
    weight: 2,
    apply(input, { rng }) {
      if (input.length === 0) return undefined;
      const out = Buffer.from(input);
      const count = rng.int(1, 8);
      for (let i = 0; i < count; i++) out[rng.below(out.length)] = rng.pick(INTERESTING_BYTES);
      return { bytes: out, note: `${count} bytes set to boundary values` };
    },
  },
  {
    name: 'blind.truncate',
    kinds: 'any',
    weight: 2,
    apply(input, { rng }) {
      if (input.length < 2) return undefined;
      const at = rng.chance(0.3) ? input.length - rng.int(1, Math.min(64, input.length - 1)) : rng.int(1, input.length - 1);
      return { bytes: Buffer.from(input.subarray(0, at)), note: `truncated to ${at} of ${input.length}` };
    },
  },
  {
    name: 'blind.delete',
    kinds: 'any',
    weight: 2,
    apply(input, { rng }) {
      if (input.length < 4) return undefined;
      const { start, end } = chunk(input.length, rng);
      return { bytes: replaceRange(input, start, end, ''), note: `deleted ${start}..${end}` };
    },
  },
  {
    name: 'blind.insert',
    kinds: 'any',
    weight: 2,
    apply(input, { rng }) {
      const at = rng.int(0, input.length);
      const size = rng.pick([1, 4, 16, 256, 4096]);
      const filler = rng.chance(0.5) ? rng.bytes(size) : Buffer.alloc(size, rng.pick(INTERESTING_BYTES));
      return { bytes: replaceRange(input, at, at, filler), note: `inserted ${size} bytes at ${at}` };
    },
  },
  {
    name: 'blind.duplicate',
    kinds: 'any',
    weight: 2,
    apply(input, { rng }) {
      if (input.length < 2) return undefined;
      const { start, end } = chunk(input.length, rng);
      const times = rng.pick([1, 2, 16, 256]);
      const copies = Buffer.concat(Array.from({ length: times }, () => input.subarray(start, end)));
      if (copies.length > 4 * 1024 * 1024) return undefined;
      const at = rng.int(0, input.length);
      return { bytes: replaceRange(input, at, at, copies), note: `copied ${start}..${end} ×${times} to ${at}` };
    },
  },
  {
    name: 'blind.splice',
    kinds: 'any',
    weight: 1,
    apply(input, { rng, corpus }) {
      const other = rng.pick(corpus.seeds);
      if (input.length < 2 || other.bytes.length < 2) return undefined;
      const cut = rng.int(1, input.length - 1);
      const from = rng.int(0, other.bytes.length - 1);
      return { bytes: Buffer.concat([input.subarray(0, cut), other.bytes.subarray(from)]), note: `spliced at ${cut} with ${other.name}@${from}` };
    },
  },
];
