/**
 * The PDF/A validator over a list of corpus files (paths on stdin, one per line): each file validated
 * against its folder's level (PDF_A-2b → 2b) and compared with the pass/fail in its name (veraPDF
 * corpus, © veraPDF Consortium, CC BY 4.0). Prints the total time, p50/p99 per file, peak RSS and the
 * agreement table per level. Not a timed test: a measurement to report.
 *
 *   find /work/shared/pdfa/corpus -name '*.pdf' | node --import tsx bench/pdfa-validate.ts
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { PdfaLevel } from '../src/engines/pdfa-validator/profile/model.js';
import { validatePdfa } from '../src/engines/pdfa-validator/validate.js';
import { formatTimes } from './lib/stats.js';

const files = readFileSync(0, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .sort();
interface Row {
  files: number;
  truePass: number;
  trueFail: number;
  falsePass: number;
  falseFail: number;
  inconclusive: number;
}
const table = new Map<string, Row>();
const times: number[] = [];
const thrown: string[] = [];
let peakRss = 0;
const started = performance.now();
for (const file of files) {
  const level = /PDF_A-(\d[abu])/.exec(file)?.[1] as PdfaLevel | undefined;
  const expected = /-(pass|fail)-/.exec(file)?.[1];
  if (level === undefined || expected === undefined) continue;
  let row = table.get(level);
  if (row === undefined) {
    row = { files: 0, truePass: 0, trueFail: 0, falsePass: 0, falseFail: 0, inconclusive: 0 };
    table.set(level, row);
  }
  row.files++;
  const t0 = performance.now();
  try {
    const report = await validatePdfa(file, level);
    if (report.verdict === 'inconclusive') row.inconclusive++;
    else if (report.verdict === 'compliant') row[expected === 'pass' ? 'truePass' : 'falsePass']++;
    else row[expected === 'fail' ? 'trueFail' : 'falseFail']++;
  } catch (error) {
    thrown.push(`${file}: ${(error as Error).message}`);
  }
  times.push(performance.now() - t0);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}
const total = performance.now() - started;
const pct = (a: number, b: number): string => `${b === 0 ? '-' : ((100 * a) / b).toFixed(1)} %`;
console.log(`files: ${times.length}, total ${(total / 1000).toFixed(1)} s`);
console.log(`per file: ${formatTimes(times, 1)}`);
console.log(`peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MiB, thrown: ${thrown.length}`);
for (const t of thrown.slice(0, 20)) console.log(`  ${t}`);
console.log('| level | files | true pass | true fail | false pass | false fail | inconclusive | agreement |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const [level, r] of [...table].sort()) {
  console.log(`| ${level} | ${r.files} | ${r.truePass} | ${r.trueFail} | ${r.falsePass} | ${r.falseFail} | ${r.inconclusive} | ${pct(r.truePass + r.trueFail, r.files)} |`);
}
