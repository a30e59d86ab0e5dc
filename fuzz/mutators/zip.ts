/**
 * ZIP mutations (archives and the Office formats built on ZIP): directory counts, sizes and offsets
 * that lie, hostile member names, unknown methods and flags, and members rewritten by another mutator
 * (an Office document whose XML is nested 100,000 deep, an archive whose PDF lies about its /Count).
 */
import { readZipEntries, writeZip, zipRecords } from '../zip-format.js';
import type { Mutator, MutationContext } from './types.js';
import { textMutators } from './text.js';
import { pdfMutators } from './pdf.js';

const HOSTILE_NAMES = ['../../etc/evil.txt', '/abs/path.pdf', 'a/../../b.pdf', 'C:\\win\\x.pdf', 'x'.repeat(4096) + '.pdf', 'nul\u0000byte.pdf', 'dir/', '.', 'CON.pdf', 'ü\u202eexe.pdf'];

export const zipMutators: Mutator[] = [
  {
    name: 'zip.directory',
    kinds: ['zip', 'office'],
    weight: 4,
    apply(input, { rng }) {
      const records = zipRecords(input);
      if (!records) return undefined;
      const out = Buffer.from(input);
      const choice = rng.int(0, 4);
      if (choice === 0) {
        const value = rng.pick([0, 1, 0xffff]);
        out.writeUInt16LE(value, records.eocd + 8);
        out.writeUInt16LE(value, records.eocd + 10);
        return { bytes: out, note: `EOCD entry count → ${value}` };
      }
      if (choice === 1) {
        const value = rng.pick([0, 0xffffffff, input.length, records.eocd]);
        out.writeUInt32LE(value >>> 0, records.eocd + rng.pick([12, 16]));
        return { bytes: out, note: `EOCD directory size/offset → ${value}` };
      }
      if (!records.centrals.length) return undefined;
      const central = rng.pick(records.centrals);
      if (choice === 2) {
        const value = rng.pick([0, 1, 0x7fffffff, 0xffffffff, 1_000_000_000]);
        const field = rng.pick([20, 24]);
        out.writeUInt32LE(value >>> 0, central + field);
        // The local header says the same most of the time, so that both agree on the lie.
        const local = out.readUInt32LE(central + 42);
        if (rng.chance(0.7) && local + 30 <= out.length) out.writeUInt32LE(value >>> 0, local + (field === 20 ? 18 : 22));
        return { bytes: out, note: `member ${field === 20 ? 'compressed' : 'uncompressed'} size → ${value}` };
      }
      if (choice === 3) {
        const value = rng.pick([0, 0xffffffff, central, input.length - 1]);
        out.writeUInt32LE(value >>> 0, central + 42);
        return { bytes: out, note: `member local header offset → ${value}` };
      }
      const method = rng.pick([1, 6, 12, 14, 99, 0xffff]);
      out.writeUInt16LE(method, central + 10);
      if (rng.chance(0.5)) out.writeUInt16LE(out.readUInt16LE(central + 8) | 0x0001, central + 8); // "encrypted"
      return { bytes: out, note: `member method → ${method}` };
    },
  },
  {
    name: 'zip.rebuild',
    kinds: ['zip', 'office'],
    weight: 4,
    apply(input, context: MutationContext) {
      const { rng } = context;
      const entries = readZipEntries(input);
      if (!entries?.length) return undefined;
      const choice = rng.int(0, 3);
      if (choice === 0) {
        const k = rng.below(entries.length);
        const name = rng.pick(HOSTILE_NAMES);
        entries[k] = { ...entries[k]!, name };
        return { bytes: writeZip(entries), note: `member ${k} renamed to ${JSON.stringify(name.slice(0, 40))}` };
      }
      if (choice === 1) {
        const times = rng.pick([100, 1000, 12_000]);
        const k = rng.below(entries.length);
        const copies = Array.from({ length: times }, (_, i) => ({ ...entries[k]!, name: `${i}/${entries[k]!.name}` }));
        return { bytes: writeZip([...entries, ...copies]), note: `member ${k} copied ${times} times` };
      }
      // Rewrite one member with a format mutator (PDF members with PDF mutators, XML and text with text ones).
      const k = rng.below(entries.length);
      const entry = entries[k]!;
      const pool = /\.pdf$/i.test(entry.name) ? pdfMutators : textMutators;
      const mutator = rng.pick(pool);
      const result = mutator.apply(entry.data, context);
      if (!result) return undefined;
      entries[k] = { ...entry, data: result.bytes };
      return { bytes: writeZip(entries), note: `member ${entry.name}: ${mutator.name} ${result.note}` };
    },
  },
];
