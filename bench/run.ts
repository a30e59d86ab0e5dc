/**
 * Quire benchmark: 1 GiB upload/download against a `cp` baseline, server peak RSS, and
 * GET /documents/{id}/info requests per second. Starts the real server as a child process.
 *
 *   npm run bench                       full run (1 GiB file, both parts)
 *   npm run bench -- --size=64          quick run with a 64 MiB file
 *   npm run bench -- --only=transfer    only upload/download (or --only=info, --only=converter)
 *   npm run bench -- --only=core        idle RSS (right after health and after the engines' warm-up),
 *                                       upload/download of 1 GiB next to cp, GET info next to a bare
 *                                       Fastify route (the memory and speed figures of issue 12)
 *   npm run bench -- --only=memory      idle RSS only (both points), no transfer, no load
 *   npm run bench -- --only=toolbox      merge of 100 × 10 pages and split of 1,000 pages through REST next to raw qpdf
 *   npm run bench -- --only=jobs --jobs=1000   1,000 small calls asynchronously through the queue vs synchronously
 *   npm run bench -- --only=converter --docs=200 --memory-runs=1000
 *                                       docx → PDF through REST at concurrency 1/2/4/8 next to the raw
 *                                       LibreOffice pool and one-shot soffice (see bench/converter.ts)
 *   npm run bench -- --dist --only=cluster   cluster mode (issue 20): 1 node in cluster mode vs the single node
 *                                       (GET info, docx → PDF), 3 nodes behind haproxy vs 1, CPU per conversion
 *                                       and the projection to more cores (see bench/cluster.ts; not part of "all")
 *   npm run bench -- --dist             start dist/main.js instead of src/main.ts through tsx
 *   npm run bench -- --keep             keep the test file for later runs (in $TMPDIR/quire-bench-cache/;
 *                                       later runs reuse it; remove that directory to get rid of it)
 *   npm run bench -- --cpu-prof         write a CPU profile of the server to bench/results/profiles/
 *   npm run bench -- --node-flags="--max-semi-space-size=1"   extra node flags for the server process
 *   npm run bench -- --no-pin           do not pin server and load generator to separate CPUs for the info run
 *   npm run bench -- --repeat=5 --connections=64 --duration=10 --warmup=2
 *   npm run bench -- --only=cluster --rounds=4   alternating rounds per comparison of the cluster bench (default 2)
 *
 * Writes the Markdown to stdout and to bench/results/latest.md, raw numbers to bench/results/latest.json.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { deleteDocument, documentInfo, loginAnonymous } from './lib/api.js';
import { runClusterBench } from './cluster.js';
import { runConverterBench } from './converter.js';
import { runJobsBench } from './jobs.js';
import { runToolboxBench } from './toolbox.js';
import { calibrate } from './lib/calibrate.js';
import { cpuTimesOf, memoryOf, resetPeak, RssSampler } from './lib/memory.js';
import { evaluateTargets, renderMarkdown, type BenchResults, type InfoResults, type Machine, type CpuUse, type PhaseMemory, type TransferResults } from './lib/report.js';
import { startBareFastify, startBenchServer, waitForEngines, type BenchServer } from './lib/server.js';
import { mbPerSecond, summarizeRates } from './lib/stats.js';
import { ensureSourceFile, removeFile, sha256Of, syncDisks, timedCopy, timedDownload, timedDownloadToSink, timedUpload } from './lib/transfer.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = path.join(root, 'bench', 'results');
/** Where --keep leaves the test file for later runs. */
const CACHE_DIR = path.join(os.tmpdir(), 'quire-bench-cache');

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

interface Options {
  dist: boolean;
  only: 'all' | 'core' | 'memory' | 'transfer' | 'info' | 'converter' | 'toolbox' | 'jobs' | 'cluster';
  jobs: number;
  sizeMiB: number;
  docs: number;
  memoryRuns: number;
  keep: boolean;
  repeat: number;
  connections: number;
  duration: number;
  warmup: number;
  /** Alternating rounds per comparison (cluster). */
  rounds: number;
  cpuProf: boolean;
  nodeFlags: string[];
  pin: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      dist: { type: 'boolean', default: false },
      only: { type: 'string', default: 'all' },
      size: { type: 'string', default: '1024' },
      docs: { type: 'string', default: '200' },
      jobs: { type: 'string', default: '1000' },
      'memory-runs': { type: 'string', default: '1000' },
      keep: { type: 'boolean', default: false },
      repeat: { type: 'string', default: '3' },
      connections: { type: 'string', default: '64' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '2' },
      'cpu-prof': { type: 'boolean', default: false },
      'node-flags': { type: 'string', default: '' },
      'no-pin': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      readFileSync(fileURLToPath(import.meta.url), 'utf8')
        .split('*/')[0]!
        .replace(/^\/\*\*?|^ \* ?/gm, '') + '\n',
    );
    process.exit(0);
  }
  const positive = (name: string, raw: string): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${name} must be a positive integer, not "${raw}"`);
    return value;
  };
  const nonNegative = (name: string, raw: string): number => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new UsageError(`--${name} must be a number of seconds ≥ 0, not "${raw}"`);
    return value;
  };
  if (!['all', 'core', 'memory', 'transfer', 'info', 'converter', 'toolbox', 'jobs', 'cluster'].includes(values.only)) {
    throw new UsageError(`--only must be core, memory, transfer, info, converter, toolbox, jobs or cluster, not "${values.only}"`);
  }
  return {
    dist: values.dist,
    only: values.only as Options['only'],
    sizeMiB: positive('size', values.size),
    docs: positive('docs', values.docs),
    memoryRuns: positive('memory-runs', values['memory-runs']),
    jobs: positive('jobs', values.jobs),
    keep: values.keep,
    repeat: positive('repeat', values.repeat),
    connections: positive('connections', values.connections),
    duration: positive('duration', values.duration),
    warmup: nonNegative('warmup', values.warmup),
    rounds: positive('rounds', values.rounds),
    cpuProf: values['cpu-prof'],
    nodeFlags: values['node-flags'].split(/\s+/).filter(Boolean),
    pin: !values['no-pin'],
  };
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** The file system type of the mount holding `target`, from /proc/mounts. */
function filesystemOf(target: string): string {
  try {
    let best = { mount: '', type: 'unknown' };
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, mount, type] = line.split(' ');
      if (!mount || !type) continue;
      const prefix = mount.endsWith('/') ? mount : `${mount}/`;
      if ((target === mount || target.startsWith(prefix)) && mount.length > best.mount.length) best = { mount, type };
    }
    return best.type;
  } catch {
    return 'unknown';
  }
}

function machine(tempDir: string): Machine {
  const cpus = os.cpus();
  let virtual = false;
  try {
    virtual = /^flags\s*:.*\bhypervisor\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    // not Linux
  }
  return {
    virtual,
    cpus: `${cpus[0]?.model.trim() ?? 'unknown CPU'}${cpus[0]?.speed ? ` @ ${cpus[0].speed} MHz` : ''}`,
    cpuCount: cpus.length,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    kernel: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    filesystem: filesystemOf(tempDir),
  };
}

async function runTransfer(server: BenchServer, token: string, options: Options, tempDir: string): Promise<TransferResults> {
  // A test file kept by a --keep run is reused (and left in place); otherwise this run makes its own,
  // in its own directory, and deletes it at the end unless --keep.
  const cached = path.join(CACHE_DIR, `source-${options.sizeMiB}MiB.bin`);
  const sourcePath = options.keep || (await exists(cached)) ? cached : path.join(tempDir, `source-${options.sizeMiB}MiB.bin`);
  if (sourcePath === cached) await mkdir(CACHE_DIR, { recursive: true });
  log(`preparing the ${options.sizeMiB} MiB test file ${sourcePath} ...`);
  const source = await ensureSourceFile(sourcePath, options.sizeMiB);
  log(source.reused ? 'reusing the kept test file' : `created, sha256 ${source.sha256}`);
  const copyTarget = path.join(tempDir, 'cp-target.bin');
  const downloadTarget = path.join(tempDir, 'download-target.bin');
  const mbps = (s: number) => mbPerSecond(source.size, s).toFixed(0);

  const cpSeconds: number[] = [];
  const uploadSeconds: number[] = [];
  const downloadSeconds: number[] = [];
  const downloadBytes: number[] = [];
  const uploadMemory: PhaseMemory[] = [];
  const downloadMemory: PhaseMemory[] = [];
  const uploadCpu: CpuUse[] = [];
  const downloadCpu: CpuUse[] = [];
  const sinkSeconds: number[] = [];
  const sinkCpu: CpuUse[] = [];
  const warmup: TransferResults['warmup'] = [];
  let bodyBytes = 0;
  let fileSizeVerified = true;
  let sha256Verified = true;

  // Rounds interleave cp, upload and the downloads. Each output is deleted as soon as it has been
  // checked, so that every timed write lands in page-cache memory that was just freed: on a virtual
  // machine, memory the host has not backed yet (or took back) costs a fault per page on first
  // touch and would make whichever step comes last in a round look slow. Round 0 is an untimed
  // warm-up (JIT, first touch of memory): its figures are logged and kept in the JSON only.
  for (let round = 0; round <= options.repeat; round++) {
    const tag = round === 0 ? 'warm-up' : `${round}/${options.repeat}`;

    syncDisks();
    const cp = await timedCopy(source.path, copyTarget);
    await removeFile(copyTarget);
    log(`cp ${tag}: ${cp.toFixed(3)} s, ${mbps(cp)} MB/s`);

    syncDisks();
    const up = await withMemory(server.pid, () => timedUpload(server.rest, token, source.path, source.size));
    bodyBytes = up.value.bodyBytes;
    log(`upload ${tag}: ${up.value.seconds.toFixed(3)} s, ${mbps(up.value.seconds)} MB/s, server VmHWM ${(up.memory.hwm / 1e6).toFixed(1)} MB, ${cpuText(up.cpu)}`);
    const documentId = up.value.documentId;
    const info = await documentInfo(server.rest, token, documentId);
    if (info.fileSize !== source.size) {
      fileSizeVerified = false;
      log(`!! document ${documentId} reports fileSize ${info.fileSize}, expected ${source.size}`);
    }

    // The download into a sink that only counts bytes: the server's side without the client's file writes.
    syncDisks();
    const sink = await withMemory(server.pid, () => timedDownloadToSink(server.rest, token, documentId));
    if (sink.value.bytes !== source.size) throw new Error(`download to sink ${tag}: ${sink.value.bytes} bytes, expected ${source.size}`);
    log(`download→sink ${tag}: ${sink.value.seconds.toFixed(3)} s, ${mbps(sink.value.seconds)} MB/s, server VmHWM ${(sink.memory.hwm / 1e6).toFixed(1)} MB, ${cpuText(sink.cpu)}`);

    syncDisks();
    const down = await withMemory(server.pid, () => timedDownload(server.rest, token, documentId, downloadTarget));
    log(`download ${tag}: ${down.value.seconds.toFixed(3)} s, ${mbps(down.value.seconds)} MB/s, server VmHWM ${(down.memory.hwm / 1e6).toFixed(1)} MB, ${cpuText(down.cpu)}`);
    // Verification, outside the timed section.
    const hash = await sha256Of(downloadTarget);
    if (down.value.bytes !== source.size || down.value.contentLength !== source.size || hash !== source.sha256) {
      sha256Verified = false;
      log(`!! download ${tag}: ${down.value.bytes} bytes (content-length ${down.value.contentLength}), sha256 ${hash}; expected ${source.size}, ${source.sha256}`);
    }

    await removeFile(downloadTarget);
    await deleteDocument(server.rest, token, documentId);

    if (round === 0) {
      warmup.push({ cpSeconds: cp, uploadSeconds: up.value.seconds, downloadSeconds: down.value.seconds, sinkSeconds: sink.value.seconds });
      continue;
    }
    cpSeconds.push(cp);
    uploadSeconds.push(up.value.seconds);
    uploadMemory.push(up.memory);
    downloadSeconds.push(down.value.seconds);
    downloadBytes.push(down.value.bytes);
    downloadMemory.push(down.memory, sink.memory);
    uploadCpu.push(up.cpu);
    downloadCpu.push(down.cpu);
    sinkSeconds.push(sink.value.seconds);
    sinkCpu.push(sink.cpu);
  }

  const rates = (seconds: number[]) => summarizeRates(seconds.map((s) => mbPerSecond(source.size, s)));
  return {
    sizeBytes: source.size,
    sizeMiB: options.sizeMiB,
    repeat: options.repeat,
    sourceReused: source.reused,
    sourceSha256: source.sha256,
    warmup,
    cp: { seconds: cpSeconds, mbps: rates(cpSeconds) },
    upload: { seconds: uploadSeconds, mbps: rates(uploadSeconds), bodyBytes, fileSizeVerified, memory: peakOf(uploadMemory), cpu: uploadCpu },
    download: {
      seconds: downloadSeconds,
      mbps: rates(downloadSeconds),
      bytes: downloadBytes,
      sha256Verified,
      memory: peakOf(downloadMemory),
      cpu: downloadCpu,
    },
    downloadToSink: { seconds: sinkSeconds, mbps: rates(sinkSeconds), cpu: sinkCpu },
  };
}

function cpuText(cpu: CpuUse): string {
  return `CPU server ${cpu.serverUser.toFixed(2)} user + ${cpu.serverSystem.toFixed(2)} sys, client ${cpu.clientUser.toFixed(2)} + ${cpu.clientSystem.toFixed(2)}`;
}

/**
 * Runs `work` with the server's VmHWM reset at its start and its VmRSS sampled every 50 ms; also
 * records the CPU time the server and this (client) process used meanwhile.
 */
async function withMemory<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; memory: PhaseMemory; cpu: CpuUse }> {
  const rssBefore = memoryOf(pid).rss;
  const reset = resetPeak(pid);
  const sampler = new RssSampler(pid);
  const serverCpu = cpuTimesOf(pid);
  const clientCpu = process.cpuUsage();
  let value: T;
  let sampled: { maxRss: number; samples: number };
  try {
    value = await work();
  } finally {
    sampled = sampler.stop();
  }
  const client = process.cpuUsage(clientCpu);
  const serverNow = cpuTimesOf(pid);
  const serverUser = serverNow.user - serverCpu.user;
  const serverSystem = serverNow.system - serverCpu.system;
  const cpu: CpuUse = {
    server: serverUser + serverSystem,
    client: (client.user + client.system) / 1e6,
    serverUser,
    serverSystem,
    clientUser: client.user / 1e6,
    clientSystem: client.system / 1e6,
  };
  const after = memoryOf(pid);
  return {
    value,
    memory: { hwm: after.hwm, hwmScope: reset ? 'phase' : 'process', maxSampledRss: sampled.maxRss, samples: sampled.samples, rssBefore, rssAfter: after.rss },
    cpu,
  };
}

/** The worst of several runs' memory figures. */
function peakOf(phases: PhaseMemory[]): PhaseMemory {
  return {
    hwm: Math.max(...phases.map((p) => p.hwm)),
    hwmScope: phases.every((p) => p.hwmScope === 'phase') ? 'phase' : 'process',
    maxSampledRss: Math.max(...phases.map((p) => p.maxSampledRss)),
    samples: phases.reduce((sum, p) => sum + p.samples, 0),
    rssBefore: Math.max(...phases.map((p) => p.rssBefore)),
    rssAfter: Math.max(...phases.map((p) => p.rssAfter)),
  };
}

/**
 * Pins the server (all its threads) to CPU 0 and this process (autocannon) to the other CPUs. Left
 * to itself, the scheduler often puts the two ping-ponging processes on the same CPU (wake-affine),
 * and the result then flips between about half and full speed from run to run; a remote client
 * would not share the server's CPU either. Returns a description, or why nothing was pinned.
 */
function pinApart(serverPid: number): string {
  const cpus = os.cpus().length;
  if (cpus < 2) return 'off (one CPU)';
  const others = cpus === 2 ? '1' : `1-${cpus - 1}`;
  const server = spawnSync('taskset', ['-a', '-p', '-c', '0', String(serverPid)], { encoding: 'utf8' });
  const client = spawnSync('taskset', ['-a', '-p', '-c', others, String(process.pid)], { encoding: 'utf8' });
  if (server.status !== 0 || client.status !== 0) {
    return `off (taskset failed: ${(server.error?.message ?? server.stderr ?? '').trim() || (client.error?.message ?? client.stderr ?? '').trim()})`;
  }
  return `server on CPU 0, load generator on CPU ${others}`;
}

/** A minimal one-page PDF for the info benchmark. */
function tinyPdf(): Buffer {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>'];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

async function runInfo(server: BenchServer, token: string, options: Options, tempDir: string): Promise<InfoResults> {
  const pdf = tinyPdf();
  const pdfPath = path.join(tempDir, 'tiny.pdf');
  await writeFile(pdfPath, pdf);
  const { documentId } = await timedUpload(server.rest, token, pdfPath, pdf.length, 'tiny.pdf');
  await removeFile(pdfPath);
  const check = await documentInfo(server.rest, token, documentId);
  if (check.fileSize !== pdf.length) throw new Error(`the small document reports fileSize ${check.fileSize}, expected ${pdf.length}`);
  log(`info target: ${documentId} (${check.mimeType}, ${check.fileSize} bytes)`);

  // Loaded only here: merely loading autocannon (its WebAssembly histogram, hdr-histogram-js) was
  // measured to double this process's CPU time per received byte, which would handicap the transfer
  // client if it were imported at the top.
  const { default: autocannon } = await import('autocannon');
  const url = `${server.rest}/documents/${documentId}/info`;
  const headers = { authorization: `Bearer ${token}` };
  const pinning = options.pin ? pinApart(server.pid) : 'off (--no-pin)';
  log(`CPU pinning for the info run: ${pinning}`);
  // The same warm-up and measured run for Quire and for the bare Fastify baseline.
  const load = async (pid: number, target: string, label: string) => {
    let warmupRequestsPerSecond = 0;
    if (options.warmup > 0) {
      log(`${label} warm-up: ${options.warmup} s at ${options.connections} connections ...`);
      const warm = await autocannon({ url: target, connections: options.connections, duration: options.warmup, headers });
      warmupRequestsPerSecond = warm.requests.mean;
    }
    log(`${label} measuring: ${options.duration} s at ${options.connections} connections ...`);
    const reset = resetPeak(pid);
    const sampler = new RssSampler(pid);
    const serverCpu = cpuTimesOf(pid);
    const clientCpu = process.cpuUsage();
    const result = await autocannon({ url: target, connections: options.connections, duration: options.duration, headers });
    const clientUsed = process.cpuUsage(clientCpu);
    const serverNow = cpuTimesOf(pid);
    const sampled = sampler.stop();
    const { hwm } = memoryOf(pid);
    const cpu: CpuUse = {
      server: serverNow.user - serverCpu.user + serverNow.system - serverCpu.system,
      client: (clientUsed.user + clientUsed.system) / 1e6,
      serverUser: serverNow.user - serverCpu.user,
      serverSystem: serverNow.system - serverCpu.system,
      clientUser: clientUsed.user / 1e6,
      clientSystem: clientUsed.system / 1e6,
    };
    log(`${label}: ${result.requests.mean.toFixed(0)} req/s mean, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, ${cpuText(cpu)}`);
    return { result, cpu, warmupRequestsPerSecond, memory: { hwm, hwmScope: reset ? ('phase' as const) : ('process' as const), maxSampledRss: sampled.maxRss } };
  };
  const { result, cpu, warmupRequestsPerSecond, memory } = await load(server.pid, url, 'info');
  await deleteDocument(server.rest, token, documentId);
  const elapsed = (result.finish.getTime() - result.start.getTime()) / 1000;

  // The baseline in the same run: a bare Fastify route answering the same JSON, pinned where the server was.
  log('starting the bare Fastify baseline ...');
  const bare = await startBareFastify(root, JSON.stringify(check), documentId);
  let baseline: InfoResults['baseline'];
  try {
    const barePinning = options.pin ? pinApart(bare.pid) : 'off (--no-pin)';
    const measured = await load(bare.pid, bare.url, 'bare Fastify');
    baseline = {
      command: bare.command,
      pinning: barePinning,
      requestsPerSecondMean: measured.result.requests.mean,
      requestsPerSecondOverall: measured.result.requests.total / ((measured.result.finish.getTime() - measured.result.start.getTime()) / 1000),
      latencyMs: { p50: measured.result.latency.p50, p99: measured.result.latency.p99 },
      non2xx: measured.result.non2xx,
      errors: measured.result.errors,
      warmupRequestsPerSecond: measured.warmupRequestsPerSecond,
      cpu: measured.cpu,
    };
  } finally {
    await bare.stop();
  }
  return {
    connections: options.connections,
    durationSeconds: options.duration,
    warmupSeconds: options.warmup,
    requestsPerSecondMean: result.requests.mean,
    requestsPerSecondOverall: result.requests.total / elapsed,
    requestsTotal: result.requests.total,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      average: result.latency.average,
      max: result.latency.max,
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    warmupRequestsPerSecond,
    pinning,
    cpu,
    memory,
    baseline,
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.only === 'cluster') {
    const { connections, duration, warmup, pin, cpuProf, nodeFlags, rounds } = options;
    process.stdout.write(`${await runClusterBench({ dist: options.dist, connections, duration, warmup, pin, cpuProf, nodeFlags, rounds })}\n`);
    return;
  }
  if (options.only === 'jobs') {
    process.stdout.write(`${await runJobsBench({ dist: options.dist, jobs: options.jobs, rounds: 3 })}\n`);
    return;
  }
  if (options.only === 'toolbox') {
    process.stdout.write(`${await runToolboxBench({ dist: options.dist })}\n`);
    return;
  }
  if (options.only === 'converter') {
    process.stdout.write(`${await runConverterBench({ dist: options.dist, docs: options.docs, memoryRuns: options.memoryRuns })}\n`);
    return;
  }
  // Everything of this run lives in its own directory (on the disk of /tmp), so that runs side by side cannot trip each other up.
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-run-'));
  await mkdir(resultsDir, { recursive: true });
  const loadBefore = os.loadavg();
  const calibrationBefore = calibrate();
  if (loadBefore[0]! > 0.5) log(`warning: load average ${loadBefore[0]!.toFixed(2)}: other work is running on this machine and will disturb the figures`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const profileDir = options.cpuProf ? path.join(resultsDir, 'profiles', stamp) : undefined;
  const nodeFlags = [...options.nodeFlags, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];

  let server: BenchServer | undefined;
  const onExit = () => server?.killNow();
  process.once('exit', onExit);
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the server`);
    void (async () => {
      await server?.stop().catch(() => undefined);
      await rm(tempDir, { recursive: true, force: true }).catch(() => undefined);
    })().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    log(`starting the server (${options.dist ? 'dist/main.js' : 'src/main.ts via tsx'}) ...`);
    server = await startBenchServer({ root, tempDir, dist: options.dist, nodeFlags });
    log(`server pid ${server.pid} at ${server.origin}, data in ${server.dataDir}`);
    const token = await loginAnonymous(server.rest);
    const idleRss = memoryOf(server.pid).rss;
    log(`idle RSS right after health: ${(idleRss / 1e6).toFixed(1)} MB`);
    // The server listens before LibreOffice and Chromium are warm: the second figure is after their start
    // (the engines' own processes are not counted, only the server's).
    const enginesReadyMs = await waitForEngines(server.origin);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idleRssWarm = memoryOf(server.pid).rss;
    log(`idle RSS after the engines' warm-up (${enginesReadyMs === undefined ? 'not reported' : `${enginesReadyMs} ms after health`}): ${(idleRssWarm / 1e6).toFixed(1)} MB`);

    const wants = (part: 'transfer' | 'info') => options.only === 'all' || options.only === 'core' || options.only === part;
    const transfer = wants('transfer') ? await runTransfer(server, token, options, tempDir) : undefined;
    const info = wants('info') ? await runInfo(server, token, options, tempDir) : undefined;

    const partial: Omit<BenchResults, 'targets'> = {
      date: new Date().toISOString(),
      machine: machine(tempDir),
      server: { command: server.command, mode: options.dist ? 'dist' : 'src (tsx)', pid: server.pid, idleRss, idleRssWarm, enginesReadyMs },
      load: { before: loadBefore, after: os.loadavg() },
      calibration: { before: calibrationBefore, after: calibrate() },
      options: {
        only: options.only,
        sizeMiB: options.sizeMiB,
        repeat: options.repeat,
        cpuProfile: profileDir ? path.relative(root, profileDir) : undefined,
        nodeFlags: options.nodeFlags,
      },
      ...(transfer ? { transfer } : {}),
      ...(info ? { info } : {}),
    };
    const results: BenchResults = { ...partial, targets: evaluateTargets(partial) };
    await server.stop();
    const markdown = renderMarkdown(results);
    await writeFile(path.join(resultsDir, 'latest.md'), markdown);
    await writeFile(path.join(resultsDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${markdown}\n`);
    if (options.only === 'all') {
      log('converter benchmark ...');
      process.stdout.write(`${await runConverterBench({ dist: options.dist, docs: options.docs, memoryRuns: options.memoryRuns })}\n`);
      log('toolbox benchmark ...');
      process.stdout.write(`${await runToolboxBench({ dist: options.dist })}\n`);
      log('queue benchmark ...');
      process.stdout.write(`${await runJobsBench({ dist: options.dist, jobs: options.jobs, rounds: 3 })}\n`);
    }
    log(`written: ${path.relative(root, path.join(resultsDir, 'latest.md'))}, ${path.relative(root, path.join(resultsDir, 'latest.json'))}`);
    if (profileDir) log(`CPU profile(s) in ${path.relative(root, profileDir)} (summarise with: node --import tsx bench/profile-summary.ts ${path.relative(root, profileDir)})`);
  } catch (error) {
    if (server) {
      const output = server.output().trim();
      if (output) log(`server output (last lines):\n${output.split('\n').slice(-40).join('\n')}`);
    }
    throw error;
  } finally {
    await server?.stop();
    process.off('exit', onExit);
    await rm(tempDir, { recursive: true, force: true });
  }
}

class UsageError extends Error {}

main().catch((error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (error instanceof UsageError || code.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`[bench] ${(error as Error).message} (see --help)\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`[bench] failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
