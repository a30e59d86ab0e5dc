/**
 * Barcode benchmark (issue 17), in one run:
 *
 *   (a) add: a QR code and an EAN-13 stamped on every page of a 500-page text PDF, next to raw
 *       `qpdf in.pdf out.pdf` copying the same file: the engine alone (COS read, stamp, incremental update) and the
 *       whole REST call (POST barcode/{id}: lock, copy, stamp, verify, commit; the upload is not
 *       timed), each as a ratio to qpdf (median of the runs); and the bytes added per page.
 *   (b) detect: a 100-page PDF with a QR code and an EAN-13 on every page (drawn by bwip-js PNGs
 *       placed by pdf-lib), POST barcode/{id} detect at 200 dpi against `pdftoppm -r 200 -gray` +
 *       `zbarimg` on the same pages (rendering included on both sides): pages per second and codes found.
 *
 * Targets: add ≤ 1.5 × qpdf, < 2 KB per stamped page; detect ≥ 0.8 × the pages/s of
 * pdftoppm + zbarimg, with at least its recall.
 *
 *   node --import tsx bench/barcode.ts [--dist] [--runs=3] [--pages=500] [--detect-pages=100 (0: add only)]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import bwipjs from 'bwip-js';
import { encodeCode, stampCodes } from '../src/engines/barcode/drawing.js';
import { loginAnonymous } from './lib/api.js';
import { cpuSecondsOf } from './lib/memory.js';
import { startBenchServer } from './lib/server.js';
import { formatNumber, median } from './lib/stats.js';
import { timedUpload } from './lib/transfer.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string) => process.stderr.write(`${line}\n`);

const { values } = parseArgs({
  options: { dist: { type: 'boolean', default: false }, runs: { type: 'string', default: '3' }, pages: { type: 'string', default: '500' }, 'detect-pages': { type: 'string', default: '100' } },
});
const runs = Number(values.runs);
const pages = Number(values.pages);
const detectPages = Number(values['detect-pages']);

async function textPdf(file: string, count: number): Promise<void> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < count; i++) {
    const page = document.addPage([595.28, 841.89]);
    for (let line = 0; line < 40; line++) page.drawText(`Page ${i + 1}, line ${line + 1}: lorem ipsum dolor sit amet, consectetur adipiscing elit`, { x: 50, y: 790 - line * 18, size: 10, font });
  }
  writeFileSync(file, await document.save());
}

async function codesPdf(file: string, count: number): Promise<void> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < count; i++) {
    const page = document.addPage([595.28, 841.89]);
    page.drawText(`Page ${i + 1}`, { x: 50, y: 790, size: 14, font });
    const qr = await document.embedPng(await bwipjs.toBuffer({ bcid: 'qrcode', text: `page ${i + 1}`, scale: 4, backgroundcolor: 'FFFFFF', padding: 8 }));
    const ean = await document.embedPng(await bwipjs.toBuffer({ bcid: 'ean13', text: String(400000000000 + i).slice(0, 12), scale: 3, height: 15, backgroundcolor: 'FFFFFF', padding: 10 }));
    page.drawImage(qr, { x: 60, y: 600, width: 110, height: 110 });
    page.drawImage(ean, { x: 300, y: 600, width: 180, height: (180 * ean.height) / ean.width });
  }
  writeFileSync(file, await document.save());
}

/** CPU seconds of this process's waited-for children (cutime + cstime of /proc/self/stat): what a qpdf run used. */
function childCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function timed(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

async function timedAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const tempDir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-barcode-'));
const server = await startBenchServer({ root, tempDir, dist: values.dist, nodeFlags: [] });
const lines: string[] = [];
try {
  const token = await loginAnonymous(server.rest);
  const post = async (documentId: string, body: unknown) => {
    const response = await fetch(`${server.rest}/barcode/${documentId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
    });
    const text = await response.text();
    if (response.status !== 303) throw new Error(`barcode answered ${response.status}: ${text}`);
  };

  // (a) add
  const input = path.join(tempDir, 'text.pdf');
  await textPdf(input, pages);
  const inputSize = statSync(input).size;
  const qpdfTimes: number[] = [];
  const engineTimes: number[] = [];
  const restTimes: number[] = [];
  // CPU milliseconds next to the wall times: on a machine others load, the wall ratio follows the load; the CPU used does not.
  const qpdfCpu: number[] = [];
  const engineCpu: number[] = [];
  const restCpu: number[] = [];
  const qr = encodeCode({ symbology: 'qrcode', value: 'https://www.webpdf.de', margin: 0 });
  const ean = encodeCode({ symbology: 'ean13', value: '590123412345', margin: 0 });
  const engineOut = path.join(tempDir, 'engine.pdf');
  const body = {
    barcode: {
      add: {
        qrcode: [{ value: 'https://www.webpdf.de', pages: '*', position: { x: 10, y: 10, width: 20, height: 20 } }],
        ean13: [{ value: '590123412345', pages: '*', position: { x: 150, y: 10, width: 40, height: 20 } }],
      },
    },
  };
  let restSize = 0;
  for (let run = 0; run < runs; run++) {
    const childBefore = childCpuSeconds();
    qpdfTimes.push(timed(() => execFileSync('qpdf', [input, path.join(tempDir, 'qpdf.pdf')])));
    qpdfCpu.push((childCpuSeconds() - childBefore) * 1000);
    const engineBefore = process.cpuUsage();
    engineTimes.push(
      await timedAsync(() =>
        stampCodes(input, engineOut, (count) => {
          const all = Array.from({ length: count }, (_, i) => i + 1);
          return [
            { shape: qr, pages: all, position: { x: 10, y: 10, width: 20, height: 20, metrics: 'mm', coordinates: 'user' }, rotation: 0 },
            { shape: ean, pages: all, position: { x: 150, y: 10, width: 40, height: 20, metrics: 'mm', coordinates: 'user' }, rotation: 0 },
          ];
        }),
      ),
    );
    const engineUsed = process.cpuUsage(engineBefore);
    engineCpu.push((engineUsed.user + engineUsed.system) / 1000);
    const { documentId } = await timedUpload(server.rest, token, input, inputSize, 'text.pdf');
    const serverBefore = cpuSecondsOf(server.pid);
    restTimes.push(await timedAsync(() => post(documentId, body)));
    restCpu.push((cpuSecondsOf(server.pid) - serverBefore) * 1000);
    const info = (await (await fetch(`${server.rest}/documents/${documentId}/info`, { headers: { authorization: `Bearer ${token}` } })).json()) as { fileSize: number };
    restSize = info.fileSize;
    log(
      `add run ${run + 1}: qpdf ${qpdfTimes.at(-1)!.toFixed(0)} ms (CPU ${qpdfCpu.at(-1)!.toFixed(0)}), engine ${engineTimes.at(-1)!.toFixed(0)} ms (CPU ${engineCpu.at(-1)!.toFixed(0)}), REST ${restTimes.at(-1)!.toFixed(0)} ms (server CPU ${restCpu.at(-1)!.toFixed(0)})`,
    );
  }
  const q = median(qpdfTimes);
  const qc = median(qpdfCpu);
  const perPageEngine = (statSync(engineOut).size - inputSize) / pages;
  const perPageRest = (restSize - inputSize) / pages;
  lines.push(
    `## barcode add: QR + EAN-13 on every page of a ${pages}-page PDF (${formatNumber(inputSize / 1024 / 1024, 1)} MB), median of ${runs}`,
    '',
    '| | wall ms | × qpdf copy | CPU ms | × qpdf CPU |',
    '|---|---|---|---|---|',
    `| qpdf in.pdf out.pdf | ${q.toFixed(0)} | 1.00 | ${qc.toFixed(0)} | 1.00 |`,
    `| engine (COS reader, stamp, incremental update) | ${median(engineTimes).toFixed(0)} | ${(median(engineTimes) / q).toFixed(2)} | ${median(engineCpu).toFixed(0)} | ${(median(engineCpu) / qc).toFixed(2)} |`,
    `| POST barcode/{id} (whole call; CPU: the server process's) | ${median(restTimes).toFixed(0)} | ${(median(restTimes) / q).toFixed(2)} | ${median(restCpu).toFixed(0)} | ${(median(restCpu) / qc).toFixed(2)} |`,
    '',
    `Bytes added per stamped page: ${perPageEngine.toFixed(0)} (engine), ${perPageRest.toFixed(0)} (stored result). Target ≤ 1.5 × qpdf, < 2048 B/page.`,
    '',
  );

  // (b) detect (--detect-pages=0: left out)
  if (detectPages > 0) {
    const codes = path.join(tempDir, 'codes.pdf');
    await codesPdf(codes, detectPages);
    const renderDir = path.join(tempDir, 'render');
    let zbarFound = 0;
    const zbarTime = timed(() => {
      execFileSync('mkdir', ['-p', renderDir]);
      execFileSync('pdftoppm', ['-q', '-cropbox', '-gray', '-png', '-r', '200', codes, path.join(renderDir, 'p')]);
      const result = spawnSync('sh', ['-c', `zbarimg -q ${path.join(renderDir, 'p-*.png')} 2>/dev/null`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      zbarFound = result.stdout.split('\n').filter((line) => line.trim() !== '').length;
    });
    const detectTimes: number[] = [];
    let ourFound = 0;
    for (let run = 0; run < runs; run++) {
      const { documentId } = await timedUpload(server.rest, token, codes, statSync(codes).size, 'codes.pdf');
      detectTimes.push(await timedAsync(() => post(documentId, { barcode: { detect: { selection: [{ formats: 'qrcode,ean13', resolution: 200 }] } } })));
      const report = JSON.parse(Buffer.from(await (await fetch(`${server.rest}/documents/${documentId}`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer()).toString('utf8')) as {
        barcodes: { count: number };
      };
      ourFound = report.barcodes.count;
      log(`detect run ${run + 1}: ${detectTimes.at(-1)!.toFixed(0)} ms, ${ourFound} codes`);
    }
    const ours = detectPages / (median(detectTimes) / 1000);
    const theirs = detectPages / (zbarTime / 1000);
    lines.push(
      `## barcode detect: ${detectPages} pages, a QR code and an EAN-13 each, 200 dpi`,
      '',
      '| | pages/s | codes found (of ' + 2 * detectPages + ') |',
      '|---|---|---|',
      `| pdftoppm -r 200 -gray + zbarimg | ${ours > 0 ? theirs.toFixed(1) : '-'} | ${zbarFound} |`,
      `| POST barcode/{id} detect (median of ${runs}) | ${ours.toFixed(1)} (${(ours / theirs).toFixed(2)} ×) | ${ourFound} |`,
    );
  }
  lines.push(
    '',
    `Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')}.`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await server.stop();
  await rm(tempDir, { recursive: true, force: true });
}
