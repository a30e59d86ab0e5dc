/**
 * The fixed-seed fuzz slice (fuzz/slice.ts): a deterministic list of mutated documents against every
 * target of the built server, with every invariant of the long run checked after each batch — the
 * server stays up and healthy, no 5xx, no answer slower than its configured limit plus the margin,
 * tmp empty, no tool process left, memory of the server and of every child within bounds, another
 * session's document unchanged. A failure lists the cases; their reproducers are in the results dir.
 */
import { describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../fuzz/build.js';
import { renderReport } from '../../fuzz/report.js';
import { REPO_ROOT, SERVER_ROOT, SLICE_CASES, SLICE_PROFILE, SLICE_SEED, runSlice } from '../../fuzz/slice.js';

describe('fuzz slice', () => {
  it('keeps every invariant over the fixed-seed case list', async () => {
    ensureBuilt(SERVER_ROOT, (line) => process.stderr.write(`[fuzz slice] ${line}\n`));
    const { stats, results, harness, durationMs } = await runSlice();
    results.writeText(
      'summary.md',
      renderReport(stats, harness, {
        runSeed: SLICE_SEED,
        durationMs,
        corpus: 'the slice corpus',
        profile: SLICE_PROFILE,
        command: 'vitest run test/fuzz/slice.test.ts',
        resultsDir: results.dir,
        repoRoot: REPO_ROOT,
      }),
    );
    const failures = stats.failures.map((f) => {
      const v = f.violation;
      const what = (v.cause ?? v.message ?? v.detail).split('\n')[0]!.slice(0, 240);
      return `case ${f.caseIndex} ${f.target}: ${v.kind}${v.status ? ` ${v.status}` : ''}${v.errorCode !== undefined ? ` (${v.errorCode})` : ''} — ${what} [${f.seed}: ${f.mutations.join('; ').slice(0, 160)}]${f.reproducer ? ` → ${f.reproducer}` : ''}`;
    });
    expect(stats.cases).toBeGreaterThanOrEqual(SLICE_CASES);
    expect(failures, `failing cases (reproducers and summary in ${results.dir})`).toEqual([]);
  }, 300_000);
});
