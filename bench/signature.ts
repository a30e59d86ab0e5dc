/**
 * Signature benchmark (issue 15), through the whole REST path in one run:
 *
 *   (a) throughput: 1-page PDFs are uploaded first, then each is signed once (PAdES B-B, approval
 *       signature with the generated key) by CONCURRENCY clients at a time: signatures per second over
 *       the wall time of all the sign calls (each answered 303 after the signed file is stored).
 *   (b) a 100 MB PDF (one page and a 100 MB stream) is uploaded, then signed once; the call's time is
 *       compared with `sha256sum` of the same file (after a warm read), and the server's peak RSS
 *       (VmHWM, reset right before the call) with the 200 MB target.
 *
 * Targets: ≥ 50 signatures/s (a), ≤ 1.5 × sha256sum and RSS < 200 MB (b).
 *
 * The machine is shared, so (a) also reports the CPU the server spent per signature (its own and its
 * children's — qpdf — from /proc/<pid>/stat): 2 cores ÷ that is the rate the server sustains when it has
 * both cores to itself, a figure that other load on the machine moves much less than the wall rate.
 *
 *   node --import tsx bench/signature.ts [--dist] [--documents=300] [--concurrency=4] [--cpu-prof=dir]
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PDFDocument } from '@cantoo/pdf-lib';
import { loginAnonymous } from './lib/api.js';
import { memoryOf, resetPeak } from './lib/memory.js';
import { startBenchServer } from './lib/server.js';
import { formatMemory, formatNumber, median } from './lib/stats.js';
import { timedUpload } from './lib/transfer.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string) => process.stderr.write(`${line}\n`);
const BIG_BYTES = 100 * 1024 * 1024;

/** CPU seconds a process spent, its own and its waited-for children's (utime, stime, cutime, cstime). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime..cstime are fields 14..17.
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks / CLOCK_TICKS;
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** A 1-page PDF with a 100 MB stream object, written in 1 MiB pieces (classic xref). */
async function writeBigPdf(file: string): Promise<void> {
  const out = createWriteStream(file);
  const write = (data: string | Buffer) => new Promise<void>((resolve, reject) => out.write(data, (error) => (error ? reject(error) : resolve())));
  const offsets: number[] = [];
  let position = 0;
  const put = async (data: string | Buffer) => {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    await write(bytes);
    position += bytes.length;
  };
  await put('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  offsets[1] = position;
  await put('1 0 obj\n<</Type /Catalog /Pages 2 0 R>>\nendobj\n');
  offsets[2] = position;
  await put('2 0 obj\n<</Type /Pages /Kids [3 0 R] /Count 1>>\nendobj\n');
  offsets[3] = position;
  await put('3 0 obj\n<</Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources <<>> /PieceInfo <</Bench <</Data 4 0 R>>>>>>\nendobj\n');
  offsets[4] = position;
  await put(`4 0 obj\n<</Length ${BIG_BYTES}>>\nstream\n`);
  const chunk = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < BIG_BYTES / chunk.length; i++) {
    chunk.fill(i & 0xff);
    await put(chunk);
  }
  await put('\nendstream\nendobj\n');
  const xref = position;
  const entries = [1, 2, 3, 4].map((n) => `${String(offsets[n]).padStart(10, '0')} 00000 n \n`).join('');
  await put(`xref\n0 5\n0000000000 65535 f \n${entries}trailer\n<</Size 5 /Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`);
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

async function signCall(rest: string, token: string, documentId: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${rest}/signature/${documentId}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ signature: { add: { certificationLevel: 'none', reason: 'bench' } } }),
  });
  const text = await response.text();
  if (response.status !== 303) throw new Error(`sign ${documentId} answered ${response.status}: ${text.slice(0, 300)}`);
  return performance.now() - start;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { dist: { type: 'boolean', default: false }, documents: { type: 'string', default: '300' }, concurrency: { type: 'string', default: '4' }, 'cpu-prof': { type: 'string' } },
  });
  const documents = Number(values.documents);
  const concurrency = Number(values.concurrency);
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-signature-'));
  const profile = values['cpu-prof'];
  const server = await startBenchServer({ root, tempDir, dist: values.dist, nodeFlags: profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profile)}`] : [] });
  try {
    const token = await loginAnonymous(server.rest);
    // (a) throughput
    const small = path.join(tempDir, 'one-page.pdf');
    const pdf = await PDFDocument.create();
    pdf.addPage([595, 842]).drawText('Signed by the signature benchmark', { x: 50, y: 780, size: 18 });
    writeFileSync(small, await pdf.save());
    const size = statSync(small).size;
    const ids: string[] = [];
    for (let i = 0; i < documents; i++) ids.push((await timedUpload(server.rest, token, small, size, `doc-${i}.pdf`)).documentId);
    await signCall(server.rest, token, ids.shift()!); // warm-up: loads the key store, forge, qpdf paths
    const latencies: number[] = [];
    const queue = [...ids];
    const started = performance.now();
    const cpuBefore = cpuSecondsOf(server.pid);
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) latencies.push(await signCall(server.rest, token, id));
      }),
    );
    const wall = (performance.now() - started) / 1000;
    const cpuMs = ((cpuSecondsOf(server.pid) - cpuBefore) * 1000) / latencies.length;
    const rate = latencies.length / wall;
    log(
      `(a) ${latencies.length} signatures of a 1-page PDF, ${concurrency} at a time: ${formatNumber(rate, 1)} signatures/s (p50 ${formatNumber(median(latencies), 1)} ms); ` +
        `server CPU ${formatNumber(cpuMs, 2)} ms per signature (with qpdf), i.e. ${formatNumber(2000 / cpuMs, 1)} signatures/s on 2 free cores`,
    );

    // (b) a 100 MB PDF
    const big = path.join(tempDir, 'big.pdf');
    await writeBigPdf(big);
    const bigSize = statSync(big).size;
    const upload = await timedUpload(server.rest, token, big, bigSize, 'big.pdf');
    spawnSync('cat', [big], { stdio: ['ignore', 'ignore', 'ignore'] });
    const hashStart = performance.now();
    spawnSync('sha256sum', [big], { stdio: ['ignore', 'ignore', 'ignore'] });
    const hashMs = performance.now() - hashStart;
    const before = memoryOf(server.pid);
    resetPeak(server.pid);
    const signMs = await signCall(server.rest, token, upload.documentId);
    const peak = memoryOf(server.pid).hwm;
    log(
      `(b) ${formatNumber(bigSize / 1024 / 1024, 0)} MB PDF: sign ${formatNumber(signMs, 0)} ms, sha256sum ${formatNumber(hashMs, 0)} ms (${formatNumber(signMs / hashMs, 2)}×); ` +
        `server RSS ${formatMemory(before.rss)} before, peak ${formatMemory(peak)} during the call`,
    );
  } finally {
    await server.stop();
    await rm(tempDir, { recursive: true, force: true });
  }
}

await main();
