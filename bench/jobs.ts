/**
 * Queue benchmark: 1,000 small web-service calls (toolbox rotate of a one-page PDF, each on its own
 * document) done synchronously by a client running as many calls at once as the server has job
 * workers — each call followed by the GET of its DocumentFile, as the official clients follow the 303 — against the same 1,000 calls submitted asynchronously (`Prefer: respond-async`: 202 and a
 * durable queue entry each) and drained by the server's job workers. Both rates are documents per
 * second from the first call to the last result; the target is async within 10 % of sync.
 *
 * Uploads happen before and are not timed. Writes bench/results/jobs.md and jobs.json as well.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument } from '@cantoo/pdf-lib';
import { loginAnonymous } from './lib/api.js';
import { startBenchServer, type BenchServer } from './lib/server.js';
import { formatNumber, median } from './lib/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = path.join(root, 'bench', 'results');
const TARGET = 0.9;

export interface JobsBenchOptions {
  dist: boolean;
  /** Calls per mode and round (default 1000). */
  jobs: number;
  rounds: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function onePagePdf(): Promise<Buffer> {
  const document = await PDFDocument.create();
  document.addPage([595, 842]);
  return Buffer.from(await document.save());
}

async function upload(server: BenchServer, token: string, content: Buffer): Promise<string> {
  const form = new FormData();
  form.append('filedata', new Blob([content]), 'page.pdf');
  const response = await fetch(`${server.rest}/documents`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form, redirect: 'manual' });
  await response.arrayBuffer();
  const id = /documents\/([0-9a-f]{32})\/info/.exec(response.headers.get('location') ?? '')?.[1];
  if (response.status !== 303 || !id) throw new Error(`upload answered ${response.status}`);
  return id;
}

const ROTATE = JSON.stringify({ toolbox: [{ rotate: { pages: '*', degrees: 90 } }] });

/** One rotate; async answers 202 and the job URL. */
async function rotate(server: BenchServer, token: string, id: string, async: boolean): Promise<string | undefined> {
  const response = await fetch(`${server.rest}/toolbox/${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(async ? { prefer: 'respond-async' } : {}) },
    body: ROTATE,
    // The synchronous client does what the official clients do: follow the 303 to the DocumentFile
    // (GET info), the same result an asynchronous job carries.
    redirect: async ? 'manual' : 'follow',
  });
  await response.arrayBuffer();
  const expected = async ? 202 : 200;
  if (response.status !== expected) throw new Error(`toolbox answered ${response.status} where ${expected} was expected`);
  return async ? new URL(response.headers.get('location')!, server.origin).toString() : undefined;
}

async function jobState(token: string, url: string): Promise<string> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { state?: string };
  if (response.status !== 200) throw new Error(`job answered ${response.status}: ${JSON.stringify(body)}`);
  return body.state ?? 'unknown';
}

/** Runs `work` over `items` with `concurrency` at once. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function syncRound(server: BenchServer, token: string, ids: string[], concurrency: number): Promise<number> {
  const started = performance.now();
  await pool(ids, concurrency, async (id) => {
    await rotate(server, token, id, false);
  });
  return (performance.now() - started) / 1000;
}

async function asyncRound(server: BenchServer, token: string, ids: string[]): Promise<number> {
  const started = performance.now();
  const jobs: string[] = [];
  for (const id of ids) jobs.push((await rotate(server, token, id, true))!);
  // FIFO with a few workers: once the last job is done the others are, give or take the ones still
  // running; then every job is checked once.
  for (const job of [jobs.at(-1)!, ...jobs]) {
    for (;;) {
      const state = await jobState(token, job);
      if (state === 'succeeded') break;
      if (state === 'failed') throw new Error(`job ${job} failed`);
      // A client polling every 50 ms (polling faster only takes CPU from the jobs it waits for).
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return (performance.now() - started) / 1000;
}

export async function runJobsBench(options: JobsBenchOptions): Promise<string> {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-jobs-'));
  const workers = Math.max(1, os.availableParallelism());
  const server = await startBenchServer({
    root,
    tempDir,
    dist: options.dist,
    nodeFlags: [],
    env: {
      QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false',
      QUIRE_ENGINES__CHROMIUM__ENABLED: 'false',
      QUIRE_QUEUE__JOB_WORKERS: String(workers),
    },
  });
  const syncSeconds: number[] = [];
  const asyncSeconds: number[] = [];
  try {
    const token = await loginAnonymous(server.rest);
    const pdf = await onePagePdf();
    log(`uploading ${options.jobs} one-page PDFs…`);
    const ids: string[] = [];
    for (let i = 0; i < options.jobs; i++) ids.push(await upload(server, token, pdf));
    // Warm-up: a few of each kind.
    await syncRound(server, token, ids.slice(0, 20), workers);
    await asyncRound(server, token, ids.slice(0, 20));
    for (let round = 1; round <= options.rounds; round++) {
      // Alternate the order so that neither mode always runs on a warmer server.
      const order = round % 2 === 1 ? (['sync', 'async'] as const) : (['async', 'sync'] as const);
      for (const mode of order) {
        const seconds = mode === 'sync' ? await syncRound(server, token, ids, workers) : await asyncRound(server, token, ids);
        (mode === 'sync' ? syncSeconds : asyncSeconds).push(seconds);
        log(`  round ${round} ${mode}: ${formatNumber(options.jobs / seconds, 1)} calls/s`);
      }
    }
  } finally {
    await server.stop();
    await rm(tempDir, { recursive: true, force: true });
  }
  const syncRate = options.jobs / median(syncSeconds);
  const asyncRate = options.jobs / median(asyncSeconds);
  const ratio = asyncRate / syncRate;
  const markdown = [
    '### Queue: 1,000 small calls, asynchronous through the durable queue vs synchronous',
    '',
    `${options.jobs} toolbox rotate calls, each on its own one-page PDF; server ${options.dist ? 'dist (npm start flags)' : 'src through tsx'}; ` +
      `${workers} job workers (\`queue.jobWorkers\`) and a synchronous client running ${workers} calls at once; median of ${options.rounds} rounds after a warm-up; ` +
      `${os.availableParallelism()} CPUs, load average ${os.loadavg()[0]!.toFixed(1)} at the end. Async = from the first 202 to the last job seen succeeded (the last job polled every 50 ms, then every job checked once); ` +
      'each async call is fsynced into the queue journal before its 202.',
    '',
    `| Mode | calls/s (median) | all rounds (s) |`,
    '|---|---:|---|',
    `| synchronous (303, then GET info) | ${formatNumber(syncRate, 1)} | ${syncSeconds.map((s) => formatNumber(s, 2)).join(', ')} |`,
    `| asynchronous (202 + queue) | ${formatNumber(asyncRate, 1)} | ${asyncSeconds.map((s) => formatNumber(s, 2)).join(', ')} |`,
    '',
    `Async / sync rate: ${formatNumber(ratio, 2)} (target ≥ ${TARGET}: ${ratio >= TARGET ? 'met' : 'not met'}).`,
    '',
  ].join('\n');
  await mkdir(resultsDir, { recursive: true });
  await writeFile(path.join(resultsDir, 'jobs.md'), markdown);
  await writeFile(path.join(resultsDir, 'jobs.json'), JSON.stringify({ jobs: options.jobs, workers, syncSeconds, asyncSeconds, ratio }, null, 2));
  return markdown;
}
