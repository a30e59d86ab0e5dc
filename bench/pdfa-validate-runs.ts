/**
 * The PDF/A validator on one file, again and again in one process: wall and Node CPU per run, so the cost of
 * the first validations of a process (V8 still compiling) shows next to the warm ones. With `--against=<tree>`
 * another checkout's validator (`<tree>/src/engines/pdfa-validator/validate.ts`, e.g. a `git archive` of an
 * older commit with node_modules linked) runs alternately in the same process: both are cold at the same time
 * and see the same load, which on a shared machine is the only fair before/after.
 *
 *   node --import tsx bench/pdfa-validate-runs.ts <file.pdf> [--level=3b] [--runs=15] [--against=/tmp/quire-before]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PdfaLevel } from '../src/engines/pdfa-validator/profile/model.js';
import { validatePdfa } from '../src/engines/pdfa-validator/validate.js';
import { median } from './lib/stats.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { level: { type: 'string', default: '3b' }, runs: { type: 'string', default: '15' }, against: { type: 'string' } },
});
const file = positionals[0];
if (file === undefined) throw new Error('usage: bench/pdfa-validate-runs.ts <file.pdf> [--level=3b] [--runs=15] [--against=<tree>]');
const level = values.level as PdfaLevel;
const runs = Number(values.runs);

type Validate = typeof validatePdfa;
const validators: Array<[string, Validate]> = [['this tree', validatePdfa]];
if (values.against !== undefined) {
  const other = (await import(path.resolve(values.against, 'src/engines/pdfa-validator/validate.ts'))) as { validatePdfa: Validate };
  validators.push([values.against, other.validatePdfa]);
}

const results = new Map(validators.map(([name]) => [name, { wall: [] as number[], cpu: [] as number[], verdict: '' }]));
for (let run = 0; run < runs; run++) {
  // Alternate which one goes first, so neither always runs right after the other's garbage.
  const order = run % 2 === 0 ? validators : [...validators].reverse();
  for (const [name, validate] of order) {
    const result = results.get(name)!;
    const started = performance.now();
    const cpu = process.cpuUsage();
    const report = await validate(file, level);
    const used = process.cpuUsage(cpu);
    result.wall.push(performance.now() - started);
    result.cpu.push((used.user + used.system) / 1000);
    result.verdict = `${report.verdict} (${report.counts.passed} passed, ${report.counts.failed} failed, ${report.counts.notChecked} not checked)`;
  }
}
const list = (xs: number[]): string => xs.map((x) => x.toFixed(0)).join(' ');
console.log(`PDF/A-${level} validation of ${path.basename(file)}, ${runs} runs in one process (ms):`);
for (const [name, r] of results) {
  console.log(`  ${name}: ${r.verdict}`);
  console.log(`    CPU  ${list(r.cpu)}  | runs 2–5 ${list(r.cpu.slice(1, 5))}, median of the last ten ${median(r.cpu.slice(-10)).toFixed(0)}`);
  console.log(`    wall ${list(r.wall)}  | median of the last ten ${median(r.wall.slice(-10)).toFixed(0)}`);
}
