/**
 * validatePdfa on broken files: seeded byte mutations (the suite's shared mutation loop) of the house
 * seeds and of corpus files. Every mutant gives a well-formed report without throwing, and `compliant`
 * only on a complete read with every rule passed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validatePdfa } from '../../../src/engines/pdfa-validator/validate.js';
import { mutants, seedDocuments } from '../../helpers/pdf-mutations.js';
import { CORPUS, corpusFiles } from './cos/cos-rules.js';

describe('validatePdfa on mutated files', () => {
  it('400 mutants each give a well-formed report, none thrown', async () => {
    const corpus = corpusFiles(`${CORPUS}/PDF_A-2b/6.6 Metadata`).filter((_, i) => i % 40 === 0);
    const seeds = [...(await seedDocuments()), ...corpus.map((f) => readFileSync(f.file))];
    const verdicts = new Map<string, number>();
    for (const m of mutants(seeds, 20_261_126, 400)) {
      try {
        const report = await validatePdfa(m.bytes, '2b');
        expect(report.counts.passed + report.counts.failed + report.counts.notChecked).toBe(report.rules.length);
        // Compliant needs a complete read with every rule passed (today no file gets there: the PD layer is missing).
        if (report.verdict === 'compliant') expect(report.complete && report.counts.notChecked === 0 && report.counts.failed === 0).toBe(true);
        verdicts.set(report.verdict, (verdicts.get(report.verdict) ?? 0) + 1);
      } catch (error) {
        throw new Error(`mutant ${m.index} of seed ${m.seed} (${m.description}): ${(error as Error).stack}`);
      }
    }
    expect([...verdicts.values()].reduce((a, b) => a + b, 0)).toBe(400);
  });
});
