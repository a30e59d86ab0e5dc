/**
 * URL converter benchmark: a local 5-page site → PDF through the whole REST path (POST urlconverter,
 * download the PDF, delete it) next to raw warm puppeteer-core (`page.goto` + `page.pdf()` in a fresh
 * incognito context per page, as the server does) on the same pages, at the same concurrency, in the
 * same run; the REST/raw throughput ratio per level and the p50 at concurrency 1. Optionally the
 * browsers' memory over many conversions (`--memory-runs`).
 *
 *   node --import tsx bench/urlconverter.ts [--dist] [--pages=40] [--memory-runs=0]
 *
 * Writes Markdown to stdout and bench/results/urlconverter.md, raw numbers to bench/results/urlconverter.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { deleteDocument, loginAnonymous } from './lib/api.js';
import { drive } from './lib/drive.js';
import { memoryOf } from './lib/memory.js';
import { startBenchServer, type BenchServer } from './lib/server.js';
import { formatMemory, formatNumber, median } from './lib/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = path.join(root, 'bench', 'results');
const SITE_PAGES = 5;

interface Options {
  dist: boolean;
  pages: number;
  memoryRuns: number;
}

interface LevelResult {
  concurrency: number;
  pages: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
}

function parseArgs(argv: string[]): Options {
  const value = (name: string, fallback: number) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  return { dist: argv.includes('--dist'), pages: value('pages', 40), memoryRuns: value('memory-runs', 0) };
}

/** The local site: five pages of text, a stylesheet and an image each, a CSS page break in the middle. */
async function startSite(): Promise<{ origin: string; server: Server }> {
  const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .png()
    .toBuffer();
  const css = 'body{font:15px/1.5 sans-serif;margin:0} h1{color:#234} .break{break-before:page}';
  const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(6);
  const html = (n: number) =>
    `<!doctype html><html><head><meta charset="utf-8"><title>Bench page ${n}</title><link rel="stylesheet" href="/site.css"></head><body>` +
    `<h1>Page ${n}</h1>${`<p>${paragraph}</p>`.repeat(6)}<img src="/image-${n}.png" width="400" height="300">` +
    `<div class="break"><h1>Page ${n}, part 2</h1>${`<p>${paragraph}</p>`.repeat(6)}</div></body></html>`;
  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    const page = /^\/page-(\d)\.html$/.exec(url);
    if (page) response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(Number(page[1])));
    else if (url === '/site.css') response.writeHead(200, { 'content-type': 'text/css' }).end(css);
    else if (/^\/image-\d\.png$/.test(url)) response.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function level(concurrency: number, pages: number, run: { seconds: number; latencies: number[] }): LevelResult {
  return { concurrency, pages, seconds: run.seconds, perSecond: pages / run.seconds, p50Ms: median(run.latencies) };
}

/** One page through the REST path: POST urlconverter, download the PDF, delete the document. */
async function restConversion(server: BenchServer, token: string, url: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  const converted = await fetch(`${server.rest}/urlconverter`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ urlconverter: { url } }),
    redirect: 'manual',
  });
  const text = await converted.text();
  const id = /documents\/([0-9a-f]{32})\/info/.exec(converted.headers.get('location') ?? '')?.[1];
  if (converted.status !== 303 || !id) throw new Error(`urlconverter answered ${converted.status}: ${text}`);
  const pdf = await fetch(`${server.rest}/documents/${id}`, { headers: { ...auth, accept: 'application/octet-stream' } });
  const bytes = Buffer.from(await pdf.arrayBuffer());
  if (pdf.status !== 200 || bytes.subarray(0, 5).toString() !== '%PDF-') throw new Error(`download answered ${pdf.status}`);
  await deleteDocument(server.rest, token, id);
}

/** Resident memory of the processes whose command line names the server's data dir (its browsers). */
function browserMemory(server: BenchServer): number {
  let total = 0;
  const found = spawnSync('pgrep', ['-f', server.dataDir], { encoding: 'utf8' });
  for (const pid of found.stdout.trim().split('\n').filter(Boolean).map(Number)) {
    if (pid === server.pid) continue;
    try {
      total += memoryOf(pid).rss;
    } catch {
      // gone meanwhile (recycled)
    }
  }
  return total;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const workers = os.availableParallelism();
  const levels = [...new Set([1, workers])];
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-urlconverter-'));
  const site = await startSite();
  const urls = Array.from({ length: SITE_PAGES }, (_, i) => `${site.origin}/page-${i + 1}.html`);
  const lines: string[] = [];
  const { default: puppeteer } = await import('puppeteer-core');
  try {
    // Raw: as many warm browsers as the server's pool has, a fresh incognito context per page.
    log(`raw warm puppeteer-core (${workers} browsers)…`);
    const browsers = await Promise.all(
      Array.from({ length: workers }, (_, i) =>
        puppeteer.launch({
          executablePath: '/usr/bin/chromium',
          headless: true,
          pipe: true,
          userDataDir: path.join(tempDir, `raw-${i}`),
          args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--font-render-hinting=none'],
        }),
      ),
    );
    const free = [...browsers];
    const rawOnce = async (url: string) => {
      const browser = free.pop()!;
      try {
        const context = await browser.createBrowserContext();
        try {
          const page = await context.newPage();
          await page.goto(url, { waitUntil: 'load' });
          await page.waitForNetworkIdle({ idleTime: 500, concurrency: 0, timeout: 10_000 }).catch(() => undefined);
          const pdf = await page.pdf({ format: 'A4', margin: { top: '20mm', right: '20mm', bottom: '20mm', left: '20mm' }, printBackground: true });
          if (Buffer.from(pdf).subarray(0, 5).toString() !== '%PDF-') throw new Error('raw page.pdf() gave no PDF');
        } finally {
          await context.close();
        }
      } finally {
        free.push(browser);
      }
    };
    const raw: LevelResult[] = [];
    try {
      await drive(urls.length * 2, workers, (i) => rawOnce(urls[i % urls.length]!));
      for (const concurrency of levels) {
        const run = await drive(options.pages, concurrency, (i) => rawOnce(urls[i % urls.length]!));
        raw.push(level(concurrency, options.pages, run));
        log(`  raw c=${concurrency}: ${formatNumber(raw.at(-1)!.perSecond)} pages/s`);
      }
    } finally {
      await Promise.all(browsers.map((b) => b.close()));
    }

    log('REST server…');
    const server = await startBenchServer({
      root,
      tempDir,
      dist: options.dist,
      nodeFlags: [],
      env: { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false', QUIRE_NETWORK__ALLOW_HOSTS: '[127.0.0.1]' },
    });
    const rest: LevelResult[] = [];
    const memory: { after: number; bytes: number }[] = [];
    try {
      const token = await loginAnonymous(server.rest);
      // Warm-up, which also waits for the browsers started in the background.
      for (let attempt = 0; ; attempt++) {
        try {
          await restConversion(server, token, urls[0]!);
          break;
        } catch (error) {
          if (attempt > 100) throw error;
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
      }
      await drive(urls.length * 2, workers, (i) => restConversion(server, token, urls[i % urls.length]!));
      for (const concurrency of levels) {
        const run = await drive(options.pages, concurrency, (i) => restConversion(server, token, urls[i % urls.length]!));
        rest.push(level(concurrency, options.pages, run));
        log(`  REST c=${concurrency}: ${formatNumber(rest.at(-1)!.perSecond)} pages/s`);
      }
      if (options.memoryRuns > 0) {
        log(`memory over ${options.memoryRuns} conversions…`);
        const step = Math.max(1, Math.floor(options.memoryRuns / 10));
        for (let done = 0; done < options.memoryRuns; done += step) {
          await drive(step, workers, (i) => restConversion(server, token, urls[i % urls.length]!));
          memory.push({ after: done + step, bytes: browserMemory(server) });
        }
      }
    } finally {
      await server.stop();
    }

    lines.push('# URL converter benchmark', '');
    lines.push(
      `${options.pages} pages per level from a local ${SITE_PAGES}-page site (text, a stylesheet, a 400×300 PNG and a CSS page break each → 2 PDF pages), ${workers} warm browsers on both sides.`,
    );
    lines.push(
      `REST: POST urlconverter, download, delete (${options.dist ? 'dist' : 'tsx'}). Raw: puppeteer-core goto + network idle + page.pdf() in a fresh incognito context per page, no request guard or proxy.`,
      '',
    );
    lines.push('| concurrency | REST pages/s | raw pages/s | REST/raw | REST p50 | raw p50 |', '|---|---|---|---|---|---|');
    for (const r of rest) {
      const w = raw.find((x) => x.concurrency === r.concurrency)!;
      lines.push(
        `| ${r.concurrency} | ${formatNumber(r.perSecond)} | ${formatNumber(w.perSecond)} | ${formatNumber(r.perSecond / w.perSecond)} | ${formatNumber(r.p50Ms, 0)} ms | ${formatNumber(w.p50Ms, 0)} ms |`,
      );
    }
    if (memory.length > 0) {
      lines.push('', '| conversions | browsers RSS |', '|---|---|');
      for (const m of memory) lines.push(`| ${m.after} | ${formatMemory(m.bytes)} |`);
    }
    const markdown = `${lines.join('\n')}\n`;
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, 'urlconverter.md'), markdown);
    await writeFile(path.join(resultsDir, 'urlconverter.json'), `${JSON.stringify({ workers, rest, raw, memory }, null, 2)}\n`);
    process.stdout.write(markdown);
  } finally {
    site.server.close();
    await rm(tempDir, { recursive: true, force: true });
  }
}

await main();
