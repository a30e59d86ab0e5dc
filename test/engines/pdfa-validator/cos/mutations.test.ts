/**
 * Seeded byte mutations (the suite's shared mutation loop, test/helpers/pdf-mutations.ts) of the house
 * seed documents and of corpus files: the COS layer opens every mutant, reads every object, decodes
 * every stream and tokenises the decoded data without throwing, and the facts stay well-typed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentTokens, cosDocumentProperties, openCosBytes } from '../../../../src/engines/pdfa-validator/cos/index.js';
import { mutants, seedDocuments } from '../../../helpers/pdf-mutations.js';
import { CORPUS, corpusFiles } from './cos-rules.js';

describe('COS layer on mutated files', () => {
  it('1,000 mutants open and read completely without throwing', async () => {
    const corpus = corpusFiles(`${CORPUS}/PDF_A-2b/6.1 File structure`).filter((_, i) => i % 6 === 0);
    const seeds = [...(await seedDocuments()), ...corpus.map((f) => readFileSync(f.file))];
    let objects = 0;
    for (const m of mutants(seeds, 20_261_125, 1000)) {
      try {
        const doc = openCosBytes(m.bytes);
        const props = cosDocumentProperties(doc);
        expect(typeof props.nrIndirects).toBe('number');
        for (const o of doc.indirectObjects()) {
          objects++;
          if (o.value.kind !== 'stream') continue;
          const r = doc.decodeStream(o.value);
          if (r.ok && r.data.length < 1_000_000) for (const t of contentTokens(r.data, doc.env)) expect(t.kind).toBeDefined();
        }
      } catch (error) {
        throw new Error(`mutant ${m.index} of seed ${m.seed} (${m.description}): ${(error as Error).stack}`);
      }
    }
    expect(objects).toBeGreaterThan(10_000);
  });
});
