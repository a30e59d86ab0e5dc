/**
 * Quire's mutation fuzzer: drives the built server (dist/main.js as a child process, its own data
 * dir, a free port, a generated admin password) over HTTP with mutated documents, and checks after
 * each batch that it is alive and healthy, answered no 5xx and nothing slower than its limit, left
 * its tmp dir empty and no tool process behind, kept the server's and every child's memory within
 * bounds, and left another session's document unchanged. See fuzz/README.md.
 *
 *   npm run fuzz                               10 minutes, random seed (printed)
 *   npm run fuzz -- --duration=30m --seed=42   a long run, reproducible from its seed
 *   npm run fuzz -- --cases=500 --seed=42      a fixed number of cases
 *   npm run fuzz -- --slice                    the fixed-seed slice of the test suite
 *   npm run fuzz -- --save-crashers            … then copy the reproducers to test/fixtures/fuzz/crashers/
 *   npm run fuzz -- --save-crashers=<results dir>   only copy those of an earlier run
 *   npm run fuzz -- --replay=<reproducer.json>      send one saved reproducer to a fresh server, print the outcome
 *
 * Options: --concurrency=2 --batch=16 --settle=10s --margin=0s --root=<checkout whose dist runs>
 *   --stock-config (no fuzz profile) --no-build --no-minimise --minimise-crashes --no-isolate
 *   --corpus=committed|all --max-server-rss=1536MB --max-child-rss=1536MB --kill-child-rss=4GB
 *   --results=<dir> (default fuzz/results/<time>-seed<N>) --keep-data
 *
 * Run it niced on a shared machine: nice -n 10 npm run fuzz.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt } from './build.js';
import { runCampaign, type CampaignResult } from './campaign.js';
import { Corpus, loadSeedDir } from './corpus/corpus.js';
import { ensureGeneratedCorpus } from './corpus/generate.js';
import { DEFAULT_BOUNDS, FUZZ_PROFILE } from './profile.js';
import { renderReport } from './report.js';
import { replayOne } from './replay-cli.js';
import { ResultsDir, saveCrashers } from './results.js';
import { CRASHERS_DIR, REPO_ROOT, SEEDS_DIR, SLICE_PROFILE, SLICE_SEED, carriersOf, runSlice, validPdf } from './slice.js';

const log = (line: string) => process.stderr.write(`[fuzz] ${line}\n`);

function duration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`not a duration: ${text} (e.g. 90s, 30m, 1h)`);
  return Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
}

function size(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB)?$/i.exec(text.trim());
  if (!m) throw new Error(`not a size: ${text} (e.g. 1536MB, 4GB)`);
  return Math.round(Number(m[1]) * { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[(m[2] ?? 'MB').toUpperCase() as 'B']);
}

async function main(): Promise<void> {
  // A bare --save-crashers (copy this run's reproducers) besides --save-crashers=<dir> (copy an earlier run's).
  const argv = process.argv.slice(2);
  const saveFlag = argv.includes('--save-crashers');
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--save-crashers'),
    options: {
      duration: { type: 'string' },
      cases: { type: 'string' },
      seed: { type: 'string' },
      slice: { type: 'boolean', default: false },
      concurrency: { type: 'string', default: '2' },
      batch: { type: 'string', default: '16' },
      settle: { type: 'string', default: '10s' },
      margin: { type: 'string', default: '0s' },
      root: { type: 'string' },
      'stock-config': { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      'no-minimise': { type: 'boolean', default: false },
      'minimise-crashes': { type: 'boolean', default: false },
      'no-isolate': { type: 'boolean', default: false },
      corpus: { type: 'string', default: 'all' },
      'max-server-rss': { type: 'string' },
      'max-child-rss': { type: 'string' },
      'kill-child-rss': { type: 'string' },
      results: { type: 'string' },
      'save-crashers': { type: 'string' },
      'keep-data': { type: 'boolean', default: false },
      replay: { type: 'string' },
    },
  });
  if (values['save-crashers']) {
    const copied = saveCrashers(path.resolve(values['save-crashers']), CRASHERS_DIR);
    log(`copied ${copied.length} reproducers to ${path.relative(REPO_ROOT, CRASHERS_DIR)}: ${copied.join(', ') || '(none new)'}`);
    return;
  }

  const root = path.resolve(values.root ?? REPO_ROOT);
  if (!values['no-build']) ensureBuilt(root, log);
  const bounds = {
    serverBytes: values['max-server-rss'] ? size(values['max-server-rss']) : DEFAULT_BOUNDS.serverBytes,
    childBytes: values['max-child-rss'] ? size(values['max-child-rss']) : DEFAULT_BOUNDS.childBytes,
    // --max-child-rss holds every child to that bound; otherwise each to its engine's configured cap.
    ...(values['max-child-rss'] ? { childBytesByComm: {} } : {}),
    killChildBytes: values['kill-child-rss'] ? size(values['kill-child-rss']) : DEFAULT_BOUNDS.killChildBytes,
  };
  if (values.replay) {
    const fixed = await replayOne({ file: values.replay, root, settings: values['stock-config'] ? {} : FUZZ_PROFILE, bounds, seedsDir: SEEDS_DIR, log });
    log(fixed ? 'no invariant broken' : 'invariants broken');
    process.exitCode = fixed ? 0 : 1;
    return;
  }
  const runSeed = values.slice ? SLICE_SEED : values.seed !== undefined ? Number(values.seed) : Date.now() % 1_000_000_007;
  if (!Number.isSafeInteger(runSeed)) throw new Error(`--seed must be an integer: ${values.seed}`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const results = new ResultsDir(path.resolve(values.results ?? path.join(REPO_ROOT, 'fuzz/results', `${stamp}-seed${runSeed}${values.slice ? '-slice' : ''}`)));
  const profile = values.slice ? SLICE_PROFILE : values['stock-config'] ? {} : FUZZ_PROFILE;
  log(`seed ${runSeed}; results in ${results.dir}`);

  let result: CampaignResult;
  let corpusSummary: string;
  if (values.slice) {
    result = await runSlice({ root, resultsDir: results.dir, log });
    corpusSummary = 'the slice corpus';
  } else {
    const seeds = loadSeedDir(SEEDS_DIR, 'seeds');
    const extra = [];
    if (values.corpus === 'all') {
      extra.push(...loadSeedDir(path.join(REPO_ROOT, 'test/fixtures'), 'fixtures', (full) => full.startsWith(path.join(REPO_ROOT, 'test/fixtures/fuzz'))));
      const generated = await ensureGeneratedCorpus({ cacheDir: path.join(REPO_ROOT, 'fuzz/.cache'), root: REPO_ROOT, seedsDir: SEEDS_DIR, log });
      extra.push(...loadSeedDir(generated, 'gen'));
    }
    const corpus = new Corpus([...seeds, ...extra]);
    corpusSummary = `${corpus.seeds.length} seeds (${corpus.summary()})`;
    log(`corpus: ${corpusSummary}`);
    const durationMs = values.cases ? undefined : duration(values.duration ?? '10m');
    result = await runCampaign({
      harness: {
        root,
        settings: profile,
        bounds,
        extraMarginMs: duration(values.margin),
        sentinelPdf: readFileSync(path.join(SEEDS_DIR, 'outline.pdf')),
        validPdf: validPdf(),
        keepData: values['keep-data'],
      },
      corpus,
      carriers: carriersOf(corpus),
      runSeed,
      ...(values.cases ? { cases: Number(values.cases) } : {}),
      ...(durationMs ? { durationMs } : {}),
      batchSize: Number(values.batch),
      concurrency: Number(values.concurrency),
      settleMs: duration(values.settle),
      triage: { minimise: !values['no-minimise'], minimiseCrashes: values['minimise-crashes'], isolate: !values['no-isolate'] },
      results,
      log,
    });
  }

  const command = `npm run fuzz -- ${process.argv.slice(2).join(' ')}`.trim();
  const markdown = renderReport(result.stats, result.harness, { runSeed, durationMs: result.durationMs, corpus: corpusSummary, profile, command, resultsDir: results.dir, repoRoot: REPO_ROOT });
  const file = results.writeText('summary.md', markdown);
  process.stdout.write(`${markdown}\n`);
  log(`summary written to ${file}`);
  if (saveFlag) {
    const copied = saveCrashers(results.dir, CRASHERS_DIR);
    log(`copied ${copied.length} reproducers to ${path.relative(REPO_ROOT, CRASHERS_DIR)}: ${copied.join(', ') || '(none new)'}`);
  }
  process.exitCode = result.stats.failures.length ? 1 : 0;
}

await main();
