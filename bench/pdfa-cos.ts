/**
 * Speed of the PDF/A validator's COS layer over a list of files (paths on stdin, one per line):
 * read + open (header, EOF, xref chain) + every in-use object parsed + every stream decoded.
 * Not a timed test: a measurement to report. Errors thrown are counted (there should be none).
 *
 *   find /work/shared/pdfa/corpus -name '*.pdf' | node --import tsx bench/pdfa-cos.ts
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { openCosDocument } from '../src/engines/pdfa-validator/cos/index.js';
import { formatTimes } from './lib/stats.js';

const files = readFileSync(0, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');
const times: number[] = [];
let objects = 0;
let streams = 0;
let decodeFailures = 0;
let reconstructed = 0;
let withLimits = 0;
const thrown: string[] = [];
let peakRss = 0;
const started = performance.now();
for (const file of files) {
  const t0 = performance.now();
  try {
    const doc = await openCosDocument(file);
    for (const o of doc.indirectObjects()) {
      objects++;
      if (o.value.kind === 'stream') {
        streams++;
        if (!doc.decodeStream(o.value).ok) decodeFailures++;
      }
    }
    if (doc.reconstructed) reconstructed++;
    if (doc.limitsHit.size > 0) withLimits++;
  } catch (error) {
    thrown.push(`${file}: ${(error as Error).message}`);
  }
  times.push(performance.now() - t0);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}
const total = performance.now() - started;
console.log(`files: ${files.length}, total ${(total / 1000).toFixed(2)} s`);
console.log(`per file: ${formatTimes(times, 2)}`);
console.log(`objects ${objects}, streams ${streams} (not decoded: ${decodeFailures}, mostly image codecs), xref rebuilt by scanning: ${reconstructed}, limits hit: ${withLimits}`);
console.log(`peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MiB, thrown: ${thrown.length}`);
for (const t of thrown.slice(0, 20)) console.log(`  ${t}`);
