/**
 * The COS facts against the veraPDF corpus: each file's verdict (pass/fail in its name) is the ground
 * truth. A fail file of a raw-syntax clause must fail that clause's Cos rule; no pass file of any folder
 * may fail any Cos rule this layer can decide alone. (Corpus and profiles: veraPDF Consortium, CC BY 4.0.)
 */
import { describe, expect, it } from 'vitest';
import { openCosDocument } from '../../../../src/engines/pdfa-validator/cos/index.js';
import { isValidUtf8 } from '../../../../src/engines/pdfa-validator/cos/text.js';
import { CORPUS, corpusFiles, eachValue, failedCosRules } from './cos-rules.js';

const FOLDERS = [
  ['PDF_A-1a', 1],
  ['PDF_A-1b', 1],
  ['PDF_A-2a', 2],
  ['PDF_A-2b', 2],
  ['PDF_A-2u', 2],
  ['PDF_A-3b', 2],
] as const;

/** The raw-syntax clauses of the corpus and the rule (or rule prefix) a fail file there must break. */
const CLAUSE_RULES: Record<1 | 2, Record<string, string>> = {
  1: { '6-1-2': '6.1.2-', '6-1-3': '6.1.3-', '6-1-4': '6.1.4-', '6-1-6': '6.1.6-', '6-1-8': '6.1.8-1' },
  2: { '6-1-2': '6.1.2-', '6-1-3': '6.1.3-', '6-1-4': '6.1.4-', '6-1-6': '6.1.6-', '6-1-7-1': '6.1.7.1-', '6-1-9': '6.1.9-1' },
};

describe('COS facts on the veraPDF corpus', () => {
  for (const [folder, part] of [
    ['PDF_A-1b', 1],
    ['PDF_A-2b', 2],
  ] as const) {
    const files = corpusFiles(`${CORPUS}/${folder}/6.1 File structure`);

    it(`${folder}: every fail file of a raw-syntax clause breaks that clause's rule`, async () => {
      const checked: string[] = [];
      for (const f of files.filter((x) => !x.pass && CLAUSE_RULES[part][x.clause] !== undefined)) {
        const failed = [...failedCosRules(await openCosDocument(f.file), part)];
        const want = CLAUSE_RULES[part][f.clause] as string;
        expect(
          failed.some((id) => id.startsWith(want)),
          `${f.name}: failed ${failed.join(',') || 'nothing'}, wanted ${want}*`,
        ).toBe(true);
        checked.push(f.name);
      }
      expect(checked.length).toBe(part === 1 ? 15 : 31);
    });

    it(`${folder}: implementation-limit fail files tNN break rule NN where it is a COS limit`, async () => {
      const clause = part === 1 ? '6-1-12' : '6-1-13';
      // Test numbers whose rule is about a COS value (the others: q nesting, DeviceN, CIDs, permissions).
      const cosTests = part === 1 ? ['01', '02', '03', '04', '06'] : ['01', '03', '04'];
      let n = 0;
      for (const f of files.filter((x) => !x.pass && x.clause === clause)) {
        const t = /-t(\d+)-/.exec(f.name)?.[1] as string;
        if (!cosTests.includes(t)) continue;
        const failed = failedCosRules(await openCosDocument(f.file), part);
        expect([...failed], f.name).toContain(`${clause.replaceAll('-', '.')}-${Number(t)}`);
        n++;
      }
      expect(n).toBeGreaterThanOrEqual(part === 1 ? 12 : 6);
    });
  }

  it('PDF_A-2b 6.1.8: the fail files hold a colorant name that is not UTF-8 after #-expansion', async () => {
    const files = corpusFiles(`${CORPUS}/PDF_A-2b/6.1 File structure/6.1.8 Name objects`).filter((f) => !f.pass);
    expect(files.length).toBe(2);
    for (const f of files) {
      const doc = await openCosDocument(f.file);
      let bad = 0;
      for (const o of doc.indirectObjects()) eachValue(o.value, (v) => void (v.kind === 'name' && !isValidUtf8(v.value) && bad++));
      expect(bad, f.name).toBeGreaterThan(0);
    }
  });

  it('all corpus files open, and no pass file fails a COS rule', async () => {
    let opened = 0;
    const wrong: string[] = [];
    for (const [folder, part] of FOLDERS) {
      for (const f of corpusFiles(`${CORPUS}/${folder}`)) {
        const doc = await openCosDocument(f.file);
        opened++;
        expect(doc.limitsHit.size, f.name).toBe(0);
        if (!f.pass) continue;
        const failed = failedCosRules(doc, part);
        if (failed.size > 0) wrong.push(`${folder}/${f.name}: ${[...failed].join(',')}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(opened).toBe(1648);
  });
});
