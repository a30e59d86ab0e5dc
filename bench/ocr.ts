/**
 * OCR benchmark (issue 16): a scanned PDF (known text, pdftoppm at 300 dpi, grey, one image per page)
 * through the whole REST path (upload, POST ocr, download) next to, in the same run:
 *   - raw `tesseract` on the same page images, 2 single-threaded processes in parallel
 *     (OMP_THREAD_LIMIT=1, the same outputs: text-only PDF and text);
 *   - `ocrmypdf -j 2 --output-type pdf` on the same file, when installed.
 * Throughput ratios (pages per second), and word accuracy of the REST result against the known text
 * (eng on the big document, deu on a smaller one with umlauts and ß).
 * Then the memory phase: `--rss-calls` calls (default 25) of the same document back to back (25 × 20
 * = 500 pages), the server's VmRSS (/proc/<pid>/status) sampled every second and after each call:
 * first, peak and last, so a leak per page shows as a rising series.
 *
 * `--skew`: the deskew phase: one A4 page of the known text turned 3°, 5° and −4° (sharp, cropped back
 * to A4), each read (outputFormat text) by Tesseract alone, with the optimization filters and
 * deskew off, and with deskew on; word accuracy of each.
 *
 *   node --import tsx bench/ocr.ts [--pages=20] [--runs=2] [--rss-calls=25] [--skew] [--dist]
 *   (--runs=0 skips the throughput phase, --rss-calls=0 the memory phase)
 *
 * The machine this runs on is shared: REST and raw alternate (raw first in odd runs, REST first in
 * even ones) and the medians are compared; ocrmypdf runs once.
 *
 * Writes Markdown to stdout and bench/results/ocr.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { wordAccuracy } from '../test/operations/ocr/scans.js';
import { deleteDocument, loginAnonymous } from './lib/api.js';
import { memoryOf } from './lib/memory.js';
import { startBenchServer } from './lib/server.js';
import { formatMemory, formatNumber, median } from './lib/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const value = (name: string, fallback: number) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const PAGES = value('pages', 20);
const RUNS = value('runs', 2);
const RSS_CALLS = value('rss-calls', 25);
const SKEW = argv.includes('--skew');
const SKEW_ANGLES = [3, 5, -4];
const DIST = argv.includes('--dist');
const DPI = 300;

const ENGLISH = [
  'The committee approved the annual budget after a long debate about maintenance costs.',
  'Invoices received before the fifteenth of each month are paid within thirty days.',
  'Please return the signed contract together with a copy of your identity card.',
  'Our office will be closed on public holidays and during the last week of December.',
  'The delivery contained twelve boxes of paper, four printers and two scanners.',
  'Questions about this letter can be sent to the address printed at the top.',
];
const GERMAN = [
  'Sehr geehrte Damen und Herren, vielen Dank für Ihre Anfrage vom Montag.',
  'Die Größe der Lieferung überschreitet leider die zulässige Höchstmenge.',
  'Bitte schließen Sie die Tür, wenn Sie das Büro als Letzter verlassen.',
  'Mit freundlichen Grüßen aus der Hauptstraße in München.',
];

/** `count` A4 pages of `lines` in 11-pt Helvetica, drawn by pdf-lib; the known text per page. */
async function textPdf(file: string, count: number, lines: readonly string[]): Promise<string[]> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const texts: string[] = [];
  for (let n = 0; n < count; n++) {
    const page = document.addPage([595, 842]);
    const text: string[] = [];
    for (let line = 0; line < 36; line++) {
      const sentence = lines[(line + n) % lines.length]!;
      page.drawText(sentence, { x: 50, y: 780 - line * 20, size: 11, font });
      text.push(sentence);
    }
    texts.push(text.join(' '));
  }
  await writeFile(file, await document.save());
  return texts;
}

/** The "scan": every page rendered grey at 300 dpi and put back as an image-only page. */
async function scan(source: string, dir: string, count: number): Promise<{ pdf: string; images: string[] }> {
  execFileSync('pdftoppm', ['-q', '-gray', '-png', '-r', String(DPI), source, path.join(dir, 'page')]);
  const document = await PDFDocument.create();
  const images: string[] = [];
  const width = String(count).length;
  for (let n = 1; n <= count; n++) {
    const png = path.join(dir, `page-${String(n).padStart(width, '0')}.png`);
    images.push(png);
    const page = document.addPage([595, 842]);
    page.drawImage(await document.embedPng(await readFile(png)), { x: 0, y: 0, width: 595, height: 842 });
  }
  const pdf = path.join(dir, 'scan.pdf');
  await writeFile(pdf, await document.save());
  return { pdf, images };
}

function runProcess(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${err}`))));
  });
}

/** Raw Tesseract: the page images through 2 single-threaded processes, the same outputs as the server's. */
async function rawTesseract(images: readonly string[], dir: string): Promise<number> {
  const started = performance.now();
  let next = 0;
  const env = { ...process.env, OMP_THREAD_LIMIT: '1' };
  const lane = async () => {
    while (next < images.length) {
      const image = images[next++]!;
      await runProcess('tesseract', [image, path.join(dir, path.basename(image, '.png')), '-l', 'eng', '--psm', '3', '--dpi', String(DPI), '-c', 'textonly_pdf=1', 'pdf', 'txt'], env);
    }
  };
  await Promise.all([lane(), lane()]);
  return (performance.now() - started) / 1000;
}

async function upload(rest: string, token: string, file: string, name: string): Promise<string> {
  const form = new FormData();
  form.append('filedata', new Blob([await readFile(file)], { type: 'application/pdf' }), name);
  const response = await fetch(`${rest}/documents`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form, redirect: 'manual' });
  const text = await response.text();
  if (response.status !== 303 && response.status !== 200) throw new Error(`upload answered ${response.status}: ${text}`);
  const location = response.headers.get('location') ?? '';
  const id = /documents\/([0-9a-f]{32})/.exec(location)?.[1] ?? (JSON.parse(text) as { documentId: string }).documentId;
  return id;
}

/** Upload, OCR, download: the REST path the client sees. Returns seconds of the whole path and the result file. */
async function viaRest(rest: string, token: string, file: string, language: string, out: string, ocr: Record<string, unknown> = {}): Promise<number> {
  const started = performance.now();
  const id = await upload(rest, token, file, 'scan.pdf');
  const response = await fetch(`${rest}/ocr/${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ocr: { language, ...ocr } }),
    redirect: 'manual',
  });
  const text = await response.text();
  if (response.status !== 303) throw new Error(`ocr answered ${response.status}: ${text}`);
  const download = await fetch(`${rest}/documents/${id}`, { headers: { authorization: `Bearer ${token}` } });
  await writeFile(out, Buffer.from(await download.arrayBuffer()));
  const seconds = (performance.now() - started) / 1000;
  await deleteDocument(rest, token, id);
  return seconds;
}

/** Word accuracy of the PDF's text (pdftotext) against the known text, every page together. */
function accuracy(expected: readonly string[], pdf: string): number {
  const pages = execFileSync('pdftotext', ['-enc', 'UTF-8', pdf, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\f');
  let hits = 0;
  let total = 0;
  for (const [i, text] of expected.entries()) {
    const words = text.split(/\s+/).filter(Boolean).length;
    hits += wordAccuracy(text, pages[i] ?? '') * words;
    total += words;
  }
  return hits / total;
}

function installed(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The memory phase: `calls` OCR calls of `pdf` one after the other (upload, POST ocr, download,
 * delete), the server's VmRSS sampled every second and after each call.
 */
async function rssPhase(rest: string, token: string, pdf: string, pages: number, calls: number, out: string, pid: number): Promise<string[]> {
  const samples: number[] = [];
  const afterCall: number[] = [];
  const timer = setInterval(() => samples.push(memoryOf(pid).rss), 1000);
  const started = performance.now();
  try {
    for (let call = 0; call < calls; call++) {
      await viaRest(rest, token, pdf, 'eng', out);
      afterCall.push(memoryOf(pid).rss);
      console.error(`rss phase: call ${call + 1}/${calls}, ${formatMemory(afterCall.at(-1)!)}`);
    }
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - started) / 1000;
  const peak = Math.max(...samples, ...afterCall);
  const mb = (bytes: number) => formatNumber(bytes / 1024 / 1024, 0);
  return [
    `Server RSS over ${calls * pages} pages (${calls} calls × ${pages} pages, one after the other, ${formatNumber(seconds, 0)} s, ${formatNumber((calls * pages) / seconds, 2)} pages/s): first call ${formatMemory(afterCall[0]!)}, peak ${formatMemory(peak)} (of ${samples.length} samples, 1 s apart), last call ${formatMemory(afterCall.at(-1)!)}.`,
    '',
    `After each call (MiB): ${afterCall.map(mb).join(', ')}.`,
  ];
}

/** The deskew phase: page 1 of the scan turned by each angle, read three ways (see the header). */
async function skewPhase(rest: string, token: string, image: string, expected: string, work: string): Promise<string[]> {
  const modes: [string, Record<string, unknown>][] = [
    ['Tesseract alone (no optimization)', {}],
    ['optimization, deskew false', { optimization: { deskew: false } }],
    ['optimization, deskew true', { optimization: { deskew: true } }],
  ];
  const rows: string[] = [];
  for (const angle of SKEW_ANGLES) {
    const { width, height } = await sharp(image).metadata();
    const turned = await sharp(image).rotate(angle, { background: '#ffffff' }).greyscale().png().toBuffer({ resolveWithObject: true });
    const png = path.join(work, `skew${angle}.png`);
    await sharp(turned.data)
      .extract({ left: Math.round((turned.info.width - width!) / 2), top: Math.round((turned.info.height - height!) / 2), width: width!, height: height! })
      .png()
      .toFile(png);
    const document = await PDFDocument.create();
    document.addPage([595, 842]).drawImage(await document.embedPng(await readFile(png)), { x: 0, y: 0, width: 595, height: 842 });
    const pdf = path.join(work, `skew${angle}.pdf`);
    await writeFile(pdf, await document.save());
    const cells: string[] = [];
    for (const [, ocr] of modes) {
      const out = path.join(work, `skew${angle}.txt`);
      await viaRest(rest, token, pdf, 'eng', out, { outputFormat: 'text', ...ocr });
      cells.push(`${formatNumber(wordAccuracy(expected, await readFile(out, 'utf8')) * 100, 1)} %`);
    }
    rows.push(`| ${angle}° | ${cells.join(' | ')} |`);
  }
  return [
    'Deskew: word accuracy (outputFormat text) of one A4 page of the known text (36 lines, 11 pt) scanned at 300 dpi and turned clockwise by the angle (sharp, cropped back to A4):',
    '',
    `| Angle | ${modes.map(([name]) => name).join(' | ')} |`,
    `|---|${modes.map(() => '---').join('|')}|`,
    ...rows,
  ];
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-ocr-bench-'));
const server = await startBenchServer({ root, tempDir: dir, dist: DIST, nodeFlags: [], env: { QUIRE_ENGINES__TESSERACT__WORKERS: '2' } });
try {
  const eng = path.join(dir, 'eng');
  const deu = path.join(dir, 'deu');
  await mkdir(eng);
  await mkdir(deu);
  const engTexts = await textPdf(path.join(eng, 'source.pdf'), PAGES, ENGLISH);
  const engScan = await scan(path.join(eng, 'source.pdf'), eng, PAGES);
  const deuTexts = await textPdf(path.join(deu, 'source.pdf'), 3, GERMAN);
  const deuScan = await scan(path.join(deu, 'source.pdf'), deu, 3);
  const token = await loginAnonymous(server.rest);
  const rssBefore = memoryOf(server.pid).rss;

  // Warm-up: one small call through every step, not timed.
  await viaRest(server.rest, token, deuScan.pdf, 'deu', path.join(deu, 'warm.pdf'));
  const lines = [`# OCR benchmark (${new Date().toISOString()})`, ''];
  if (RUNS > 0) lines.push(...(await throughput(token, engTexts, engScan, deuTexts, deuScan, eng, deu)), '');
  lines.push(`Server RSS: ${formatMemory(rssBefore)} before, ${formatMemory(memoryOf(server.pid).rss)} after the throughput phase.`);
  if (SKEW) {
    const work = path.join(dir, 'skew');
    await mkdir(work);
    lines.push('', ...(await skewPhase(server.rest, token, engScan.images[0]!, engTexts[0]!, work)));
  }
  if (RSS_CALLS > 0) lines.push('', ...(await rssPhase(server.rest, token, engScan.pdf, PAGES, RSS_CALLS, path.join(eng, 'rss.pdf'), server.pid)));
  lines.push(
    '',
    `Load average at the end: ${os
      .loadavg()
      .map((l) => formatNumber(l, 1))
      .join(', ')}.`,
  );
  const report = lines.join('\n');
  console.log(report);
  await mkdir(path.join(root, 'bench', 'results'), { recursive: true });
  await writeFile(path.join(root, 'bench', 'results', 'ocr.md'), `${report}\n`);
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}

/** REST against raw tesseract (alternating runs) and ocrmypdf, and the word accuracy of the REST results. */
async function throughput(
  token: string,
  engTexts: readonly string[],
  engScan: { pdf: string; images: string[] },
  deuTexts: readonly string[],
  deuScan: { pdf: string },
  eng: string,
  deu: string,
): Promise<string[]> {
  const rawRuns: number[] = [];
  const restRuns: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const rawDir = path.join(dir, `raw-${run}`);
    await mkdir(rawDir);
    if (run % 2 === 0) rawRuns.push(await rawTesseract(engScan.images, rawDir));
    restRuns.push(await viaRest(server.rest, token, engScan.pdf, 'eng', path.join(eng, 'rest.pdf')));
    if (run % 2 === 1) rawRuns.push(await rawTesseract(engScan.images, rawDir));
  }
  const rawSeconds = median(rawRuns);
  const restSeconds = median(restRuns);
  const engAccuracy = accuracy(engTexts, path.join(eng, 'rest.pdf'));
  await viaRest(server.rest, token, deuScan.pdf, 'deu', path.join(deu, 'rest.pdf'));
  const deuAccuracy = accuracy(deuTexts, path.join(deu, 'rest.pdf'));
  let ocrmypdfSeconds: number | undefined;
  if (installed('ocrmypdf')) {
    const started = performance.now();
    await runProcess('ocrmypdf', ['-q', '-j', '2', '--output-type', 'pdf', '-l', 'eng', engScan.pdf, path.join(eng, 'ocrmypdf.pdf')]);
    ocrmypdfSeconds = (performance.now() - started) / 1000;
  }
  const rate = (seconds: number) => PAGES / seconds;
  return [
    `${PAGES} A4 pages scanned at ${DPI} dpi (grey, one image per page), ${os.availableParallelism()} cores, Tesseract pool of 2 workers; server ${server.command}; medians of ${RUNS} alternating runs (REST ${restRuns.map((s) => formatNumber(s, 1)).join(', ')} s; raw ${rawRuns.map((s) => formatNumber(s, 1)).join(', ')} s).`,
    '',
    '| Path | Seconds | Pages/s | REST ÷ it |',
    '|---|---|---|---|',
    `| REST (upload, POST ocr, download) | ${formatNumber(restSeconds, 1)} | ${formatNumber(rate(restSeconds), 3)} | 1 |`,
    `| raw tesseract, 2 single-threaded processes | ${formatNumber(rawSeconds, 1)} | ${formatNumber(rate(rawSeconds), 3)} | ${formatNumber(rate(restSeconds) / rate(rawSeconds), 2)} |`,
    ocrmypdfSeconds === undefined
      ? '| ocrmypdf -j 2 --output-type pdf | not installed | | |'
      : `| ocrmypdf -j 2 --output-type pdf | ${formatNumber(ocrmypdfSeconds, 1)} | ${formatNumber(rate(ocrmypdfSeconds), 3)} | ${formatNumber(rate(restSeconds) / rate(ocrmypdfSeconds), 2)} |`,
    '',
    `Word accuracy of the REST result against the known text: eng ${formatNumber(engAccuracy * 100, 2)} % (${PAGES} pages), deu ${formatNumber(deuAccuracy * 100, 2)} % (3 pages, umlauts and ß).`,
  ];
}
