/**
 * Toolbox benchmark: structure operations through the whole REST path next to the raw qpdf command
 * doing the same work, in the same run:
 *
 *   (a) merge: 100 PDFs of 10 pages are uploaded, then ONE toolbox call on the first merges the other
 *       99 by id (`data.format: "id"`) and the result is downloaded; raw: `qpdf first --pages . 2 … 100 --`.
 *   (b) split: a 1,000-page PDF is uploaded, then one toolbox call bursts it into single pages (a ZIP
 *       of 1,000 PDFs) and the ZIP is downloaded; raw: `qpdf in --split-pages out-%d.pdf`.
 *
 * Only the toolbox call and the download are timed; uploads happen before. The server's peak RSS is
 * VmHWM, reset right before the call. Inputs are generated at bench time (pdf-lib, qpdf) in a temp dir.
 *
 * Target: REST within 1.3× of raw qpdf. Writes bench/results/toolbox.md and toolbox.json as well.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { listEntries } from '../src/engines/archive/index.js';
import { deleteDocument, loginAnonymous } from './lib/api.js';
import { memoryOf, resetPeak } from './lib/memory.js';
import { startBenchServer, type BenchServer } from './lib/server.js';
import { formatMemory, formatNumber, median } from './lib/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = path.join(root, 'bench', 'results');
const DOCUMENTS = 100;
const PAGES_PER_DOCUMENT = 10;
const RUNS = 5;
const TARGET_RATIO = 1.3;

export interface ToolboxBenchOptions {
  dist: boolean;
}

interface Timed {
  ms: number;
  /** CPU seconds used: the qpdf process (raw), or the server with the tool processes it waited for (REST). */
  cpu: number;
  /** Server VmHWM after the call, bytes (peak since the reset before it). */
  peakRss?: number;
  /** Server VmRSS right before the call. */
  rssBefore?: number;
  bytes?: number;
}

interface CaseResult {
  name: string;
  raw: Timed[];
  rest: Timed[];
  resultBytes: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** A PDF of `pages` A4 pages whose page n says "<label> PAGE-n" (pdf-lib: object streams, as most current PDFs). */
async function labelledPdf(label: string, pages: number): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    const page = document.addPage([595, 842]);
    page.drawText(`${label} PAGE-${n}`, { x: 50, y: 780, size: 24, font });
    page.drawText('The quick brown fox jumps over the lazy dog. '.repeat(2), { x: 50, y: 740, size: 10, font });
  }
  return Buffer.from(await document.save());
}

function qpdf(args: string[]): void {
  const result = spawnSync('qpdf', args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0 && result.status !== 3) throw new Error(`qpdf ${args.slice(0, 3).join(' ')} … failed (${result.status}): ${result.stderr}`);
}

let clockTicks: number | undefined;

/**
 * CPU seconds of a process including the children it has waited for (utime + stime + cutime +
 * cstime of /proc/<pid>/stat): the server's own work plus its qpdf runs. Robust where wall time is
 * not, on a machine that runs other things at the same time.
 */
function cpuWithChildren(pid: number | 'self'): number {
  clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return (fields[11]! + fields[12]! + fields[13]! + fields[14]!) / clockTicks;
}

function timedQpdf(args: string[]): Timed {
  const cpu = cpuWithChildren('self');
  const started = performance.now();
  qpdf(args);
  const ms = performance.now() - started;
  // spawnSync has waited for qpdf: its CPU is in this process's cutime/cstime now (and nothing else ran meanwhile).
  return { ms, cpu: cpuWithChildren('self') - cpu };
}

function pageCount(file: string): number {
  return Number(spawnSync('qpdf', ['--show-npages', file], { encoding: 'utf8' }).stdout.trim());
}

async function upload(server: BenchServer, token: string, content: Buffer, name: string): Promise<string> {
  const form = new FormData();
  form.append('filedata', new Blob([content]), name);
  const response = await fetch(`${server.rest}/documents`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form, redirect: 'manual' });
  await response.arrayBuffer();
  const id = /documents\/([0-9a-f]{32})\/info/.exec(response.headers.get('location') ?? '')?.[1];
  if (response.status !== 303 || !id) throw new Error(`upload answered ${response.status}`);
  return id;
}

/** The timed part: one toolbox call and the download of its result; the server's peak RSS during it. */
async function toolboxAndDownload(server: BenchServer, token: string, documentId: string, toolbox: unknown[], file: string): Promise<Timed> {
  const canReset = resetPeak(server.pid);
  const rssBefore = memoryOf(server.pid).rss;
  const cpu = cpuWithChildren(server.pid);
  const started = performance.now();
  const call = await fetch(`${server.rest}/toolbox/${documentId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ toolbox }),
    redirect: 'manual',
  });
  const answer = await call.text();
  if (call.status !== 303) throw new Error(`toolbox answered ${call.status}: ${answer}`);
  const download = await fetch(`${server.rest}/documents/${documentId}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/octet-stream' } });
  const bytes = Buffer.from(await download.arrayBuffer());
  const ms = performance.now() - started;
  if (download.status !== 200) throw new Error(`download answered ${download.status}`);
  const peak = memoryOf(server.pid).hwm;
  const used = cpuWithChildren(server.pid) - cpu;
  await writeFile(file, bytes);
  return { ms, cpu: used, bytes: bytes.length, rssBefore, ...(canReset ? { peakRss: peak } : {}) };
}

export async function runToolboxBench(options: ToolboxBenchOptions): Promise<string> {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-toolbox-'));
  let shm: string | undefined;
  try {
    log(`generating ${DOCUMENTS} PDFs of ${PAGES_PER_DOCUMENT} pages and one of ${DOCUMENTS * PAGES_PER_DOCUMENT} pages…`);
    const inputs = path.join(tempDir, 'inputs');
    await mkdir(inputs);
    const documents: string[] = [];
    for (let i = 1; i <= DOCUMENTS; i++) {
      const file = path.join(inputs, `doc-${String(i).padStart(3, '0')}.pdf`);
      await writeFile(file, await labelledPdf(`DOC-${i}`, PAGES_PER_DOCUMENT));
      documents.push(file);
    }
    const big = path.join(inputs, 'thousand.pdf');
    qpdf(['--empty', '--pages', ...documents, '--', big]);
    const documentBytes = (await stat(documents[0]!)).size;
    const bigBytes = (await stat(big)).size;
    const bigPages = pageCount(big);
    if (bigPages !== DOCUMENTS * PAGES_PER_DOCUMENT) throw new Error(`the large input has ${bigPages} pages`);

    log('raw qpdf: merge and split…');
    const rawMerge: Timed[] = [];
    const rawSplit: Timed[] = [];
    const rawSplitMemory: Timed[] = [];
    shm = existsSync('/dev/shm') ? await mkdtemp('/dev/shm/quire-bench-') : undefined;
    const [first, ...others] = documents;
    for (let run = 0; run <= RUNS; run++) {
      const merged = path.join(tempDir, `raw-merged-${run}.pdf`);
      const mergeTime = timedQpdf([first!, '--pages', '.', ...others, '--', merged]);
      const splitDir = path.join(tempDir, `raw-split-${run}`);
      await mkdir(splitDir);
      const splitTime = timedQpdf([big, '--split-pages', path.join(splitDir, 'page-%d.pdf')]);
      // The same split writing its parts to tmpfs, as the server does when they are small.
      const memoryDir = shm ? path.join(shm, `run-${run}`) : undefined;
      if (memoryDir) await mkdir(memoryDir);
      const memoryTime = memoryDir ? timedQpdf([big, '--split-pages', path.join(memoryDir, 'page-%d.pdf')]) : undefined;
      if (memoryDir) await rm(memoryDir, { recursive: true, force: true });
      if (run > 0) {
        // Run 0 warms the page cache.
        rawMerge.push(mergeTime);
        rawSplit.push(splitTime);
        if (memoryTime) rawSplitMemory.push(memoryTime);
      }
      if (run === 1 && pageCount(merged) !== DOCUMENTS * PAGES_PER_DOCUMENT) throw new Error('raw merge lost pages');
      await rm(splitDir, { recursive: true, force: true });
      await rm(merged, { force: true });
    }

    log('REST path (toolbox call + download)…');
    const server = await startBenchServer({ root, tempDir, dist: options.dist, nodeFlags: [], env: { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false', QUIRE_ENGINES__CHROMIUM__ENABLED: 'false' } });
    const restMerge: Timed[] = [];
    const restSplit: Timed[] = [];
    let mergedBytes = 0;
    let zipBytes = 0;
    try {
      const token = await loginAnonymous(server.rest);
      const contents = await Promise.all(documents.map((file) => readFile(file)));
      const bigContent = await readFile(big);
      for (let run = 0; run <= RUNS; run++) {
        // (a) merge: upload the 100 documents, then one call on the first with the other 99 by id.
        const ids: string[] = [];
        for (const [i, content] of contents.entries()) ids.push(await upload(server, token, content, `doc-${i + 1}.pdf`));
        const [baseId, ...rest] = ids;
        const value = Buffer.from(rest.join(';')).toString('base64');
        const mergedFile = path.join(tempDir, `rest-merged-${run}.pdf`);
        const merge = await toolboxAndDownload(server, token, baseId!, [{ merge: { data: { format: 'id', value }, mode: 'atTheEnd' } }], mergedFile);
        if (pageCount(mergedFile) !== DOCUMENTS * PAGES_PER_DOCUMENT) throw new Error(`REST merge gave ${pageCount(mergedFile)} pages`);
        mergedBytes = merge.bytes ?? 0;
        for (const id of ids) await deleteDocument(server.rest, token, id);

        // (b) split: upload the 1,000-page PDF, then one call that bursts it into a ZIP of single pages.
        const splitId = await upload(server, token, bigContent, 'thousand.pdf');
        const zipFile = path.join(tempDir, `rest-split-${run}.zip`);
        const split = await toolboxAndDownload(server, token, splitId, [{ split: { mode: 'burst', fileNameTemplate: 'page[%d]', singleFileAsZip: true } }], zipFile);
        const listing = await listEntries(zipFile, { maxEntries: 10_000 });
        if (listing.totalEntries !== DOCUMENTS * PAGES_PER_DOCUMENT) throw new Error(`REST split gave ${listing.totalEntries} parts`);
        zipBytes = split.bytes ?? 0;
        await deleteDocument(server.rest, token, splitId);
        await rm(mergedFile, { force: true });
        await rm(zipFile, { force: true });
        if (run > 0) {
          // Run 0 warms the server (JIT, file cache).
          restMerge.push(merge);
          restSplit.push(split);
        }
        log(`  run ${run}${run === 0 ? ' (warm-up)' : ''}: merge ${formatNumber(merge.ms, 0)} ms, split ${formatNumber(split.ms, 0)} ms`);
      }
    } finally {
      await server.stop();
    }

    const cases: CaseResult[] = [
      { name: `merge ${DOCUMENTS} × ${PAGES_PER_DOCUMENT} pages (by id)`, raw: rawMerge, rest: restMerge, resultBytes: mergedBytes },
      { name: `split ${DOCUMENTS * PAGES_PER_DOCUMENT} pages → ${DOCUMENTS * PAGES_PER_DOCUMENT} PDFs (ZIP)`, raw: rawSplit, rest: restSplit, resultBytes: zipBytes },
      ...(rawSplitMemory.length > 0 ? [{ name: `split, raw qpdf writing its parts to tmpfs too`, raw: rawSplitMemory, rest: restSplit, resultBytes: zipBytes }] : []),
    ];
    const peaks = (timed: Timed[]) => timed.map((t) => t.peakRss).filter((v): v is number => v !== undefined);
    const lines = [
      '### Toolbox: merge and split through REST vs raw qpdf',
      '',
      `Inputs generated at bench time: ${DOCUMENTS} PDFs of ${PAGES_PER_DOCUMENT} A4 pages (pdf-lib, ${formatNumber(documentBytes / 1024, 1)} KiB each), ` +
        `one of ${DOCUMENTS * PAGES_PER_DOCUMENT} pages (qpdf, ${formatNumber(bigBytes / 1e6, 1)} MB). Server ${options.dist ? 'dist (npm start flags)' : 'src through tsx'}; ` +
        `${os.availableParallelism()} CPUs, load average ${os.loadavg()[0]!.toFixed(1)} at the end; median of ${RUNS} runs after one warm-up. ` +
        'REST = the toolbox call + the download of its result (uploads before, untimed); raw = the qpdf command alone (no HTTP, no ZIP), ' +
        'writing into a directory on the same disk as the data dir; the server writes split parts to its memory scratch (tmpfs, `toolbox.memoryScratchDir`), ' +
        "so the last row also gives raw qpdf writing to tmpfs: that ratio is the server's own overhead (HTTP, ZIP, storage). " +
        'CPU = CPU time of the qpdf process (raw), of the server and the tool processes it ran (REST): comparable even when other work shares the machine.',
      '',
      `| Operation | raw qpdf | REST | REST / raw | ≤ ${TARGET_RATIO}× | CPU raw | CPU REST | CPU REST / raw | result | server peak RSS during the call (before it) |`,
      '|---|---:|---:|---:|:-:|---:|---:|---:|---:|---:|',
      ...cases.map((c) => {
        const raw = median(c.raw.map((t) => t.ms));
        const rest = median(c.rest.map((t) => t.ms));
        const ratio = rest / raw;
        const rawCpu = median(c.raw.map((t) => t.cpu));
        const restCpu = median(c.rest.map((t) => t.cpu));
        const peak = peaks(c.rest);
        return (
          `| ${c.name} | ${formatNumber(raw, 0)} ms | ${formatNumber(rest, 0)} ms | ${formatNumber(ratio, 2)} | ${ratio <= TARGET_RATIO ? 'yes' : 'no'} | ` +
          `${formatNumber(rawCpu * 1000, 0)} ms | ${formatNumber(restCpu * 1000, 0)} ms | ${formatNumber(restCpu / rawCpu, 2)} | ` +
          `${formatNumber(c.resultBytes / 1e6, 2)} MB | ${peak.length > 0 ? formatMemory(Math.max(...peak)) : 'n/a (VmHWM not resettable)'} (${formatMemory(median(c.rest.map((t) => t.rssBefore ?? Number.NaN)))}) |`
        );
      }),
      '',
      `All runs (ms): ${cases.map((c) => `${c.name}: raw ${c.raw.map((t) => formatNumber(t.ms, 0)).join(', ')}; REST ${c.rest.map((t) => formatNumber(t.ms, 0)).join(', ')}`).join('. ')}.`,
      '',
    ];
    const markdown = lines.join('\n');
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, 'toolbox.md'), markdown);
    await writeFile(path.join(resultsDir, 'toolbox.json'), JSON.stringify({ documentBytes, bigBytes, cases }, null, 2));
    return markdown;
  } finally {
    await rm(tempDir, { recursive: true, force: true });
    if (shm) await rm(shm, { recursive: true, force: true });
  }
}
