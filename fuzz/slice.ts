/**
 * The fixed-seed slice that runs in `./quire.sh test` (test/fuzz/slice.test.ts) and with
 * `npm run fuzz -- --slice`: a deterministic case list over the committed seeds and a few named
 * fixtures, covering every target and, per seed, the mutators round-robin; all invariants checked.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCampaign, type CampaignResult } from './campaign.js';
import { slicePlan } from './cases.js';
import { Corpus, loadSeedDir, loadSeedFiles } from './corpus/corpus.js';
import { DEFAULT_BOUNDS } from './profile.js';
import { ResultsDir } from './results.js';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SEEDS_DIR = path.join(REPO_ROOT, 'test/fixtures/fuzz/seeds');
export const CRASHERS_DIR = path.join(REPO_ROOT, 'test/fixtures/fuzz/crashers');

/** The checkout whose dist/ the tests run: this one, or QUIRE_FUZZ_ROOT (e.g. a clean export of main). */
export const SERVER_ROOT = process.env.QUIRE_FUZZ_ROOT ? path.resolve(process.env.QUIRE_FUZZ_ROOT) : REPO_ROOT;

export const SLICE_SEED = 20_251_125;
export const SLICE_CASES = 200;

/** Fixtures of other suites the slice uses besides its own seeds (named: adding fixtures elsewhere does not change the slice). */
const SLICE_FIXTURES = [
  'test/fixtures/office/sample.docx',
  'test/fixtures/office/sample.xlsx',
  'test/fixtures/office/sample.odt',
  'test/fixtures/mail/sample.msg',
  'test/fixtures/images/bmp/rgb24.bmp',
  'test/fixtures/pdf/cert-encrypted.pdf',
];

/** Shorter limits than the fuzz profile: a hang in the slice must not eat the test's time. */
export const SLICE_PROFILE: Record<string, string> = {
  QUIRE_TOOLBOX__TIMEOUT: '30',
  QUIRE_ENGINES__LIBREOFFICE__TIMEOUT: '30',
  QUIRE_ENGINES__CHROMIUM__TIMEOUT: '30',
  QUIRE_DOCUMENTS__TOOL_TIMEOUT: '15',
  QUIRE_OCR__TIMEOUT: '30',
  QUIRE_BARCODE__TIMEOUT: '30',
  QUIRE_SIGNATURE__TIMEOUT: '30',
  QUIRE_URLCONVERTER__TIMEOUT: '30',
};

export function sliceCorpus(): Corpus {
  return new Corpus([...loadSeedDir(SEEDS_DIR, 'seeds'), ...loadSeedFiles(REPO_ROOT, SLICE_FIXTURES, 'fixtures')]);
}

/** The committed PDFs that carry payload cases (not the encrypted one: payload targets need an open document). */
export function carriersOf(corpus: Corpus) {
  return corpus.of('pdf').filter((s) => s.name.startsWith('seeds/') && !s.name.includes('encrypted'));
}

export function validPdf(): Buffer {
  return readFileSync(path.join(SEEDS_DIR, 'minimal.pdf'));
}

export async function runSlice(options: { root?: string; resultsDir?: string; log?: (line: string) => void } = {}): Promise<CampaignResult & { results: ResultsDir }> {
  const corpus = sliceCorpus();
  const results = new ResultsDir(options.resultsDir ?? path.join(os.tmpdir(), `quire-fuzz-slice-${process.pid}`));
  const log = options.log ?? (() => undefined);
  const result = await runCampaign({
    harness: {
      root: options.root ?? SERVER_ROOT,
      settings: SLICE_PROFILE,
      bounds: DEFAULT_BOUNDS,
      extraMarginMs: 0,
      sentinelPdf: readFileSync(path.join(SEEDS_DIR, 'outline.pdf')),
      validPdf: validPdf(),
    },
    corpus,
    carriers: carriersOf(corpus),
    runSeed: SLICE_SEED,
    cases: SLICE_CASES,
    plan: slicePlan(corpus, SLICE_CASES),
    batchSize: 8,
    concurrency: 2,
    settleMs: 5_000,
    triage: { minimise: false, minimiseCrashes: false, isolate: true },
    results,
    log,
  });
  return { ...result, results };
}
