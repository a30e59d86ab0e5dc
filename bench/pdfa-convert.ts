/**
 * PDF/A-3b conversion of a 100-page text+image PDF: our whole pdfa convert (the document transaction:
 * qpdf open and repair, Ghostscript -dPDFA=3, our fix-ups, our validator, the atomic commit) next to
 * raw Ghostscript -dPDFA=3 on the same file in the same run (the same prefix file and ICC profile).
 * Runs alternate, the medians are compared; the target of issue 14 is a ratio within 1.3.
 *
 * `--warmup` runs of each come first and are not counted (default 1: the first loads pdf-lib and the
 * profiles). The validator's code is still warming up after that (V8 optimises its model walk over
 * its first ~10 validations in a process: ~400 ms CPU on the first, ~80 ms from the tenth on), so
 * `--warmup=10` shows a server that has converted a few documents already.
 *
 * `--keep=<file.pdf>` keeps the last result (for bench/pdfa-validate-runs.ts).
 *
 * On a loaded machine the wall times say little, so CPU times are printed too: Ghostscript's own (the
 * children's CPU from /proc/self/stat, 10 ms ticks) raw and inside our conversion, and Node's CPU
 * before Ghostscript starts, while it runs and after it ends (the engine is wrapped here to mark its
 * start and end). What a quiet 2-core machine would take is about `before + max(Ghostscript, Node
 * while it runs) + after`: Ghostscript runs on one core, Node's work alongside on the other; the
 * printed "CPU ratio" is that over raw Ghostscript's CPU. `after` is the serial tail: fix-ups,
 * validation, commit.
 *
 *   node --import tsx bench/pdfa-convert.ts [--pages=100] [--runs=5] [--warmup=1] [--keep=<file.pdf>]
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { PDFDocument, StandardFonts, rgb } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { newId } from '../src/core/ids.js';
import { Ghostscript } from '../src/engines/ghostscript/ghostscript.js';
import { findSrgbProfile, pdfaArgs, writePdfaPrefix } from '../src/engines/ghostscript/pdfa.js';
import { PdfRewriter } from '../src/engines/pdf/rewriter.js';
import { RememberedCredentials } from '../src/operations/documents/credentials.js';
import { DocumentService } from '../src/operations/documents/document-service.js';
import { PdfaService } from '../src/operations/pdfa/pdfa-service.js';
import type { PdfaRequest } from '../src/operations/pdfa/pdfa.schema.js';
import type { Session } from '../src/sessions/session.js';
import { FileDocumentStore } from '../src/storage/file-document-store.js';
import { median } from './lib/stats.js';

/** CPU of this process's waited-for children (Ghostscript, qpdf) in ms: cutime + cstime of /proc/self/stat. */
function childCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): cutime and cstime are fields 16 and 17.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The engine with its PDF/A run's start and end marked (Node CPU and wall at each). */
class MarkedGhostscript extends Ghostscript {
  marks = { startCpu: 0, startWall: 0, endCpu: 0, endWall: 0 };
  override async pdfa(...args: Parameters<Ghostscript['pdfa']>): Promise<string> {
    this.marks.startCpu = cpuMs();
    this.marks.startWall = performance.now();
    try {
      return await super.pdfa(...args);
    } finally {
      this.marks.endCpu = cpuMs();
      this.marks.endWall = performance.now();
    }
  }
}

const { values } = parseArgs({ options: { pages: { type: 'string', default: '100' }, runs: { type: 'string', default: '5' }, warmup: { type: 'string', default: '1' }, keep: { type: 'string' } } });
const pages = Number(values.pages);
const runs = Number(values.runs);
const warmup = Number(values.warmup);

/** Text on every page and a different photo-like JPEG on every tenth (pdf-lib, sharp). */
async function textImagePdf(count: number): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.TimesRoman);
  for (let n = 1; n <= count; n++) {
    const page = document.addPage([595, 842]);
    page.drawText(`Page ${n}`, { x: 50, y: 790, size: 20, font, color: rgb(0.2, 0.2, 0.5) });
    for (let line = 0; line < 45; line++)
      page.drawText(`${n}.${line + 1} Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.`, { x: 50, y: 760 - line * 14, size: 9, font });
    if (n % 10 === 1) {
      const pixels = Buffer.alloc(600 * 400 * 3);
      for (let i = 0; i < pixels.length; i++) pixels[i] = (i * (n + 31) + ((i / 3) | 0) * 7) & 0xff;
      const jpeg = await sharp(pixels, { raw: { width: 600, height: 400, channels: 3 } })
        .jpeg({ quality: 85 })
        .toBuffer();
      page.drawImage(await document.embedJpg(jpeg), { x: 50, y: 60, width: 300, height: 200 });
    }
  }
  document.setTitle('PDF/A bench');
  return Buffer.from(await document.save());
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-pdfa-bench-'));
try {
  const icc = findSrgbProfile();
  if (!icc) throw new Error('no sRGB profile of Ghostscript installed');
  const input = path.join(dir, 'input.pdf');
  writeFileSync(input, await textImagePdf(pages));

  const store = new FileDocumentStore(path.join(dir, 'data'));
  await store.open();
  const documents = new DocumentService(store, { limitsFor: () => ({ uploadLimit: 0, maxFiles: 0, diskSpaceLimit: 0 }), isLive: async () => true });
  const now = Date.now();
  const session = { id: newId(), kind: 'user', userName: 'bench', roles: ['user'], createdAt: now, expiresAt: now + 3_600_000, lastAccess: now } as unknown as Session;
  const ghostscript = new MarkedGhostscript();
  const service = new PdfaService({ documents, credentials: new RememberedCredentials() }, { ghostscript, rewriter: new PdfRewriter({ timeoutMs: 300_000 }), iccProfile: icc }, 600_000);
  const request = { pdfa: { convert: { level: '3b', errorReport: 'none', successReport: 'none', imageQuality: 75, autoTagging: false } } } as unknown as PdfaRequest;

  const prefixFile = path.join(dir, 'prefix.ps');
  const options = { part: 3 as const, iccProfile: icc, prefixFile, jpegQuality: 75 };
  await writePdfaPrefix(options);

  const raw: number[] = [];
  const ours: number[] = [];
  // Node's own CPU time during our conversion (fix-ups, validation; Ghostscript's and qpdf's child
  // processes are not in it): less at the mercy of other processes' load than the wall times.
  const oursCpu: number[] = [];
  const rawGsCpu: number[] = [];
  const oursGsCpu: number[] = [];
  const before: number[] = [];
  const during: number[] = [];
  const after: number[] = [];
  const tailWall: number[] = [];
  const cpuRatio: number[] = [];
  let verdict = '';
  for (let run = 0; run < warmup + runs; run++) {
    let t = performance.now();
    let children = childCpuMs();
    const gs = spawnSync('gs', pdfaArgs(input, path.join(dir, 'raw.pdf'), options), { encoding: 'utf8' });
    if (gs.status !== 0) throw new Error(`gs failed: ${gs.stderr}`);
    const rawMs = performance.now() - t;
    const rawCpu = childCpuMs() - children;
    // A fresh document per run: an already converted one would be kept as it is (and cost less).
    const record = await documents.upload(session, Readable.from([readFileSync(input)]), { clientFileName: 'input.pdf', history: false });
    ghostscript.marks = { startCpu: 0, startWall: 0, endCpu: 0, endWall: 0 };
    children = childCpuMs();
    t = performance.now();
    const cpu = process.cpuUsage();
    const cpuStart = cpuMs();
    const { warnings } = await service.run(session, record.id, request, 'json');
    const end = performance.now();
    const cpuEnd = cpuMs();
    const oursMs = end - t;
    const { user, system } = process.cpuUsage(cpu);
    const childCpu = childCpuMs() - children;
    const { marks } = ghostscript;
    verdict = warnings[0] ?? '';
    if (values.keep !== undefined && run === warmup + runs - 1) copyFileSync((await documents.content(session, record.id)).file.path, values.keep);
    await documents.delete(session, record.id);
    // The warm-up runs load pdf-lib and the profiles and let V8 optimise: not counted.
    if (run < warmup) continue;
    raw.push(rawMs);
    ours.push(oursMs);
    oursCpu.push((user + system) / 1000);
    if (marks.endWall === 0) throw new Error('our conversion ran no Ghostscript: the phases cannot be told apart');
    rawGsCpu.push(rawCpu);
    oursGsCpu.push(childCpu);
    before.push(marks.startCpu - cpuStart);
    during.push(marks.endCpu - marks.startCpu);
    after.push(cpuEnd - marks.endCpu);
    tailWall.push(end - marks.endWall);
    cpuRatio.push((marks.startCpu - cpuStart + Math.max(childCpu, marks.endCpu - marks.startCpu) + cpuEnd - marks.endCpu) / rawCpu);
  }
  const rawMedian = median(raw);
  const oursMedian = median(ours);
  console.log(`PDF/A-3b of a ${pages}-page text+image PDF, ${runs} runs each after ${warmup} warm-up (medians):`);
  console.log(`  raw Ghostscript -dPDFA=3: ${rawMedian.toFixed(0)} ms  [${raw.map((v) => v.toFixed(0)).join(', ')}]`);
  console.log(`  Quire pdfa convert:       ${oursMedian.toFixed(0)} ms  [${ours.map((v) => v.toFixed(0)).join(', ')}]`);
  console.log(`  ratio: ${(oursMedian / rawMedian).toFixed(2)} (target ≤ 1.30)`);
  console.log(`  Node CPU of ours (no child processes): ${median(oursCpu).toFixed(0)} ms  [${oursCpu.map((v) => v.toFixed(0)).join(', ')}]`);
  const list = (values: number[]): string => `${median(values).toFixed(0)} ms  [${values.map((v) => v.toFixed(0)).join(', ')}]`;
  console.log(`  CPU: raw Ghostscript ${list(rawGsCpu)}`);
  console.log(`       ours: child processes (Ghostscript) ${list(oursGsCpu)}`);
  console.log(`             Node before Ghostscript ${list(before)}`);
  console.log(`             Node while it runs ${list(during)}`);
  console.log(`             Node after it (fix-ups, validation, commit) ${list(after)}; wall of that tail ${list(tailWall)}`);
  console.log(`  CPU ratio (before + max(Ghostscript, Node while it runs) + after) / raw Ghostscript: ${median(cpuRatio).toFixed(2)}  [${cpuRatio.map((v) => v.toFixed(2)).join(', ')}]`);
  console.log(`  ${verdict}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
