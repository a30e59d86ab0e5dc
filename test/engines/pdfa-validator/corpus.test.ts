/**
 * The whole validator against the veraPDF corpus (© veraPDF Consortium, CC BY 4.0): every file of
 * /work/shared/pdfa/corpus validated against its folder's level (PDF_A-2b → 2b) and compared with the
 * pass/fail in its name, as veraPDF's own integration tests do. Prints a confusion table per clause folder.
 *
 * - HARD RULE: no fail file is ever called compliant.
 * - Ratchet (corpus-ratchet.json): the files whose verdict disagrees with their name, with our verdict
 *   (`inconclusive` counts: it is not the corpus' answer). A disagreement not in the list, or with another
 *   verdict, fails; a listed file that now agrees fails too, until it leaves the list. After a change
 *   that moves verdicts, review the diff of:  PDFA_RATCHET_UPDATE=1 npx vitest run test/engines/pdfa-validator/corpus.test.ts
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PdfaLevel } from '../../../src/engines/pdfa-validator/profile/model.js';
import type { Verdict } from '../../../src/engines/pdfa-validator/profile/verdict.js';
import { validatePdfa } from '../../../src/engines/pdfa-validator/validate.js';

const CORPUS = '/work/shared/pdfa/corpus';
const RATCHET = new URL('./corpus-ratchet.json', import.meta.url);
const LEVELS: Record<string, PdfaLevel> = { 'PDF_A-1a': '1a', 'PDF_A-1b': '1b', 'PDF_A-2a': '2a', 'PDF_A-2b': '2b', 'PDF_A-2u': '2u', 'PDF_A-3b': '3b' };

interface CorpusCase {
  /** Relative to the corpus, e.g. `PDF_A-1b/6.1 File structure/6.1.2 File header/veraPDF test suite 6-1-2-t01-fail-a.pdf`. */
  readonly file: string;
  readonly level: PdfaLevel;
  readonly pass: boolean;
}

function corpusCases(): CorpusCase[] {
  const out: CorpusCase[] = [];
  const walk = (dir: string, level: PdfaLevel): void => {
    for (const entry of readdirSync(dir).sort()) {
      const p = path.join(dir, entry);
      if (statSync(p).isDirectory()) walk(p, level);
      else if (entry.endsWith('.pdf')) {
        const verdict = /-(pass|fail)-/.exec(entry)?.[1];
        if (verdict !== undefined) out.push({ file: path.relative(CORPUS, p), level, pass: verdict === 'pass' });
      }
    }
  };
  for (const [folder, level] of Object.entries(LEVELS)) walk(path.join(CORPUS, folder), level);
  return out;
}

interface Row {
  truePass: number;
  trueFail: number;
  falsePass: number;
  falseFail: number;
  inconclusive: number;
}

function printTable(rows: Map<string, Row>): void {
  const lines = ['clause folder | true pass | true fail | false pass | false fail | inconclusive'];
  for (const [folder, r] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`${folder} | ${r.truePass} | ${r.trueFail} | ${r.falsePass} | ${r.falseFail} | ${r.inconclusive}`);
  }
  console.log(lines.join('\n'));
}

describe.runIf(existsSync(CORPUS))('the PDF/A validator on the veraPDF corpus', () => {
  it('calls no fail file compliant, and its disagreements with the corpus are exactly the ratchet list', async () => {
    const cases = corpusCases();
    expect(cases.length).toBe(1648);
    const rows = new Map<string, Row>();
    const disagreements: Record<string, Verdict> = {};
    const wronglyCompliant: string[] = [];
    for (const c of cases) {
      const report = await validatePdfa(path.join(CORPUS, c.file), c.level);
      const folder = path.dirname(c.file);
      let row = rows.get(folder);
      if (row === undefined) {
        row = { truePass: 0, trueFail: 0, falsePass: 0, falseFail: 0, inconclusive: 0 };
        rows.set(folder, row);
      }
      if (report.verdict === 'inconclusive') row.inconclusive++;
      else if (report.verdict === 'compliant') row[c.pass ? 'truePass' : 'falsePass']++;
      else row[c.pass ? 'falseFail' : 'trueFail']++;
      if (report.verdict === 'compliant' && !c.pass) wronglyCompliant.push(c.file);
      if (report.verdict !== (c.pass ? 'compliant' : 'non-compliant')) disagreements[c.file] = report.verdict;
    }
    printTable(rows);

    expect(wronglyCompliant, 'fail files called compliant').toEqual([]);

    if (process.env.PDFA_RATCHET_UPDATE === '1') writeFileSync(RATCHET, `${JSON.stringify(disagreements, null, 1)}\n`);
    const known = JSON.parse(readFileSync(RATCHET, 'utf8')) as Record<string, Verdict>;
    const added = Object.keys(disagreements).filter((f) => known[f] !== disagreements[f]);
    const fixed = Object.keys(known).filter((f) => disagreements[f] === undefined);
    expect(
      added.map((f) => `${f}: ${known[f] ?? 'agreed'} → ${disagreements[f]}`),
      'new or changed disagreements (fix them, or, when the change is right, update the list: PDFA_RATCHET_UPDATE=1)',
    ).toEqual([]);
    expect(fixed, 'these files agree with the corpus now: remove them from corpus-ratchet.json').toEqual([]);
  });
});
