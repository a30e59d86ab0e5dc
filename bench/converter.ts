/**
 * Converter benchmark: docx → PDF through the whole REST path (upload, convert, download, delete)
 * at concurrency 1, 2, 4 and 8, next to the raw warm LibreOffice pool and to one-shot
 * `soffice --convert-to pdf`, in the same run; then memory over 1,000 conversions.
 *
 *   npm run bench -- --only=converter [--dist] [--docs=200] [--memory-runs=1000]
 *
 * Writes Markdown to stdout and bench/results/converter.md, raw numbers to bench/results/converter.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LibreOfficeEngine, LIBREOFFICE_DEFAULTS } from '../src/engines/libreoffice/libreoffice-engine.js';
import { deleteDocument, loginAnonymous } from './lib/api.js';
import { drive } from './lib/drive.js';
import { memoryOf } from './lib/memory.js';
import { startBenchServer, type BenchServer } from './lib/server.js';
import { formatMemory, formatNumber, median } from './lib/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = path.join(root, 'bench', 'results');
const FIXTURE = path.join(root, 'test/fixtures/office/sample.docx');
const LEVELS = [1, 2, 4, 8];

export interface ConverterBenchOptions {
  dist: boolean;
  docs: number;
  memoryRuns: number;
}

interface LevelResult {
  concurrency: number;
  docs: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function level(concurrency: number, docs: number, run: { seconds: number; latencies: number[] }): LevelResult {
  return {
    concurrency,
    docs,
    seconds: run.seconds,
    perSecond: docs / run.seconds,
    p50Ms: median(run.latencies),
    p95Ms: percentile(run.latencies, 95),
  };
}

/** One document through the REST path: upload, convert, download the PDF, delete. */
export async function restConversion(server: Pick<BenchServer, 'rest'>, token: string, docx: Buffer): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  const form = new FormData();
  form.append('filedata', new Blob([docx]), 'bench.docx');
  const uploaded = await fetch(`${server.rest}/documents`, { method: 'POST', headers: auth, body: form, redirect: 'manual' });
  await uploaded.arrayBuffer();
  const id = /documents\/([0-9a-f]{32})\/info/.exec(uploaded.headers.get('location') ?? '')?.[1];
  if (uploaded.status !== 303 || !id) throw new Error(`upload answered ${uploaded.status}`);
  const converted = await fetch(`${server.rest}/converter/${id}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{"converter":{}}',
    redirect: 'manual',
  });
  const convertedText = await converted.text();
  if (converted.status !== 303) throw new Error(`convert answered ${converted.status}: ${convertedText}`);
  const pdf = await fetch(`${server.rest}/documents/${id}`, { headers: { ...auth, accept: 'application/octet-stream' } });
  const bytes = Buffer.from(await pdf.arrayBuffer());
  if (pdf.status !== 200 || bytes.subarray(0, 5).toString() !== '%PDF-') throw new Error(`download answered ${pdf.status}`);
  await deleteDocument(server.rest, token, id);
}

/** Resident memory of the server and of its LibreOffice processes (found by the data dir in their profile path). */
function memorySnapshot(server: BenchServer): { server: number; office: number } {
  let office = 0;
  const found = spawnSync('pgrep', ['-f', server.dataDir], { encoding: 'utf8' });
  for (const pid of found.stdout.trim().split('\n').filter(Boolean).map(Number)) {
    try {
      office += memoryOf(pid).rss;
    } catch {
      // gone meanwhile (recycled)
    }
  }
  return { server: memoryOf(server.pid).rss, office };
}

function oneShot(tempDir: string, runs: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = path.join(tempDir, `oneshot-${i}`);
    const t = performance.now();
    execFileSync('soffice', ['--headless', `-env:UserInstallation=file://${out}/profile`, '--convert-to', 'pdf', '--outdir', out, FIXTURE], { stdio: 'ignore' });
    times.push(performance.now() - t);
  }
  return times;
}

export async function runConverterBench(options: ConverterBenchOptions): Promise<string> {
  const docx = readFileSync(FIXTURE);
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-converter-'));
  const workers = os.availableParallelism();
  const lines: string[] = [];
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    log('one-shot soffice --convert-to pdf (fresh profile each, 5 runs)…');
    const oneShotMs = oneShot(tempDir, 5);

    log(`raw warm pool (${workers} workers)…`);
    const engine = new LibreOfficeEngine({
      ...LIBREOFFICE_DEFAULTS,
      workDir: path.join(tempDir, 'raw'),
      size: workers,
      queueLimit: 1000,
      jobTimeoutMs: 60_000,
      queueTimeoutMs: 60_000,
      maxJobsPerWorker: 0,
      maxMemoryBytes: 0,
      healthIntervalMs: 0,
      env: process.env,
    });
    await engine.start();
    const raw: LevelResult[] = [];
    try {
      await drive(20, workers, (i) => engine.convert({ input: FIXTURE, output: path.join(tempDir, `warm-${i}.pdf`), filterData: {} }).then(() => undefined));
      for (const c of LEVELS) {
        const run = await drive(options.docs, c, (i) => engine.convert({ input: FIXTURE, output: path.join(tempDir, `raw-${i % 16}-${c}.pdf`), filterData: {} }).then(() => undefined));
        raw.push(level(c, options.docs, run));
      }
    } finally {
      await engine.close();
    }

    log('REST path (upload, convert, download, delete)…');
    const server = await startBenchServer({ root, tempDir, dist: options.dist, nodeFlags: [], env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false' } });
    const rest: LevelResult[] = [];
    let memory: { series: (ReturnType<typeof memorySnapshot> & { conversions: number })[]; runs: number; seconds: number };
    try {
      const token = await loginAnonymous(server.rest);
      await drive(20, workers, () => restConversion(server, token, docx));
      for (const c of LEVELS) rest.push(level(c, options.docs, await drive(options.docs, c, () => restConversion(server, token, docx))));
      log(`memory over ${options.memoryRuns} conversions…`);
      // A snapshot every tenth of the run shows whether memory settles or keeps growing.
      const series = [{ conversions: 0, ...memorySnapshot(server) }];
      const step = Math.max(1, Math.round(options.memoryRuns / 10));
      let seconds = 0;
      for (let done = 0; done < options.memoryRuns; done += step) {
        const count = Math.min(step, options.memoryRuns - done);
        seconds += (await drive(count, 4, () => restConversion(server, token, docx))).seconds;
        series.push({ conversions: done + count, ...memorySnapshot(server) });
      }
      memory = { series, runs: options.memoryRuns, seconds };
    } finally {
      await server.stop();
    }

    const oneShotMedian = median(oneShotMs);
    lines.push(
      `### Converter: docx (2 pages) → PDF`,
      '',
      `Fixture \`test/fixtures/office/sample.docx\`; ${options.docs} documents per level; server ${options.dist ? 'dist (npm start flags)' : 'src through tsx'}; LibreOffice pool of ${workers} warm workers.`,
      '',
      '| Concurrency | REST docs/s | REST p50 | REST p95 | raw pool docs/s | raw pool p50 | REST / raw |',
      '|---:|---:|---:|---:|---:|---:|---:|',
      ...rest.map((r, i) => {
        const w = raw[i]!;
        return `| ${r.concurrency} | ${formatNumber(r.perSecond, 1)} | ${formatNumber(r.p50Ms, 0)} ms | ${formatNumber(r.p95Ms, 0)} ms | ${formatNumber(w.perSecond, 1)} | ${formatNumber(w.p50Ms, 0)} ms | ${formatNumber(r.perSecond / w.perSecond, 2)} |`;
      }),
      '',
      `One-shot \`soffice --convert-to pdf\` (fresh profile): median ${formatNumber(oneShotMedian, 0)} ms = ${formatNumber(1000 / oneShotMedian, 2)} docs/s sequentially. ` +
        `Best REST throughput is ${formatNumber(Math.max(...rest.map((r) => r.perSecond)) / (1000 / oneShotMedian), 1)}× that.`,
      '',
      `Memory over ${memory.runs} REST conversions (concurrency 4, ${formatNumber(memory.runs / memory.seconds, 1)} docs/s; LibreOffice workers are recycled after the configured number of jobs):`,
      '',
      '| Conversions | Server RSS | LibreOffice processes RSS |',
      '|---:|---:|---:|',
      ...memory.series.map((m) => `| ${m.conversions} | ${formatMemory(m.server)} | ${formatMemory(m.office)} |`),
      '',
    );
    const markdown = lines.join('\n');
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, 'converter.md'), markdown);
    await writeFile(path.join(resultsDir, 'converter.json'), JSON.stringify({ oneShotMs, raw, rest, memory }, null, 2));
    return markdown;
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}
