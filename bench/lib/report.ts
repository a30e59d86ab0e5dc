import type { Calibration } from './calibrate.js';
import { formatMemory, formatNumber, median, type Summary } from './stats.js';

export interface PhaseMemory {
  /** VmHWM read at the end of the phase. */
  hwm: number;
  /** 'phase' when VmHWM was reset at the start of the phase; 'process' when it is the peak since the server started. */
  hwmScope: 'phase' | 'process';
  /** Largest VmRSS of the 50 ms samples taken during the timed transfers. */
  maxSampledRss: number;
  samples: number;
  rssBefore: number;
  rssAfter: number;
}

/** CPU seconds (user + system) used during one timed transfer. */
export interface CpuUse {
  server: number;
  client: number;
  serverUser: number;
  serverSystem: number;
  clientUser: number;
  clientSystem: number;
}

export interface TransferResults {
  sizeBytes: number;
  sizeMiB: number;
  repeat: number;
  sourceReused: boolean;
  sourceSha256: string;
  /** The untimed warm-up round, for the record. */
  warmup: Array<{ cpSeconds: number; uploadSeconds: number; downloadSeconds: number; sinkSeconds: number }>;
  cp: { seconds: number[]; mbps: Summary };
  upload: {
    seconds: number[];
    mbps: Summary;
    bodyBytes: number;
    fileSizeVerified: boolean;
    memory: PhaseMemory;
    cpu: CpuUse[];
  };
  download: {
    seconds: number[];
    mbps: Summary;
    bytes: number[];
    sha256Verified: boolean;
    /** Covers the downloads to a file and to the sink. */
    memory: PhaseMemory;
    cpu: CpuUse[];
  };
  /** Diagnostic: the same download into a sink that only counts bytes (no client file writes). */
  downloadToSink: { seconds: number[]; mbps: Summary; cpu: CpuUse[] };
}

export interface InfoResults {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  requestsPerSecondMean: number;
  requestsPerSecondOverall: number;
  requestsTotal: number;
  latencyMs: { p50: number; p90: number; p99: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  warmupRequestsPerSecond: number;
  /** How server and load generator were placed on the CPUs. */
  pinning: string;
  /** CPU seconds used by the server and by autocannon's process during the measured run. */
  cpu: CpuUse;
  memory: { hwm: number; hwmScope: 'phase' | 'process'; maxSampledRss: number };
  /** The same load against a bare Fastify route answering the same JSON (bench/bare-fastify.ts). */
  baseline?: {
    command: string;
    pinning: string;
    requestsPerSecondMean: number;
    requestsPerSecondOverall: number;
    latencyMs: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    warmupRequestsPerSecond: number;
    cpu: CpuUse;
  };
}

export interface Machine {
  /** The CPU reports a hypervisor. */
  virtual: boolean;
  cpus: string;
  cpuCount: number;
  memory: string;
  kernel: string;
  node: string;
  filesystem: string;
}

export interface BenchResults {
  date: string;
  machine: Machine;
  server: {
    command: string;
    mode: 'src (tsx)' | 'dist';
    pid: number;
    /** VmRSS right after the health check answered and an anonymous login. */
    idleRss: number;
    /** VmRSS once the health reports no engine `starting` (plus 2 s); the engines' own processes are not counted. */
    idleRssWarm?: number;
    /** How long after the first health answer the engines were reported started; undefined when never. */
    enginesReadyMs?: number | undefined;
  };
  /** os.loadavg() before and after the measurements: other work on the machine skews the figures. */
  load: { before: number[]; after: number[] };
  /** Speed checks of the machine before and after the measurements. */
  calibration: { before: Calibration; after: Calibration };
  options: { only: string; sizeMiB: number; repeat: number; cpuProfile: string | undefined; nodeFlags: string[] };
  transfer?: TransferResults;
  info?: InfoResults;
  targets: Target[];
}

export interface Target {
  name: string;
  target: string;
  measured: string;
  met: boolean;
}

const TARGET_MBPS = 500;
const TARGET_RSS_BYTES = 150e6;
const TARGET_INFO_RPS = 10_000;
/** Issue 12: figures relative to a baseline measured in the same run, so that they do not depend on the machine. */
const TARGET_IDLE_RSS_BYTES = 110e6;
const TARGET_TRANSFER_CP_RATIO = 0.25;
const TARGET_INFO_BARE_RATIO = 0.5;

export function evaluateTargets(results: Omit<BenchResults, 'targets'>): Target[] {
  const targets: Target[] = [];
  const idle = Math.max(results.server.idleRss, results.server.idleRssWarm ?? 0);
  targets.push({
    name: "Server idle RSS (after health and after the engines' warm-up, the larger)",
    target: '≤ 110 MB',
    measured: formatMemory(idle),
    met: idle <= TARGET_IDLE_RSS_BYTES,
  });
  const t = results.transfer;
  if (t) {
    for (const [label, mbps] of [
      ['Upload', t.upload.mbps.median],
      ['Download', t.download.mbps.median],
    ] as const) {
      const r = mbps / t.cp.mbps.median;
      targets.push({ name: `${label} / \`cp\` (medians)`, target: `≥ ${TARGET_TRANSFER_CP_RATIO}×`, measured: `${formatNumber(r, 2)}×`, met: r >= TARGET_TRANSFER_CP_RATIO });
    }
    targets.push({
      name: 'Upload throughput (median)',
      target: `≥ ${TARGET_MBPS} MB/s`,
      measured: `${formatNumber(t.upload.mbps.median, 1)} MB/s`,
      met: t.upload.mbps.median >= TARGET_MBPS,
    });
    targets.push({
      name: 'Download throughput (median)',
      target: `≥ ${TARGET_MBPS} MB/s`,
      measured: `${formatNumber(t.download.mbps.median, 1)} MB/s`,
      met: t.download.mbps.median >= TARGET_MBPS,
    });
    const peak = Math.max(t.upload.memory.hwm, t.download.memory.hwm, t.upload.memory.maxSampledRss, t.download.memory.maxSampledRss);
    targets.push({
      name: `Server peak RSS while moving ${sizeLabel(t.sizeMiB)}`,
      target: '< 150 MB',
      measured: formatMemory(peak),
      met: peak < TARGET_RSS_BYTES,
    });
  }
  const i = results.info;
  if (i) {
    targets.push({
      name: `GET /documents/{id}/info, ${i.connections} connections`,
      target: `≥ ${TARGET_INFO_RPS.toLocaleString('en-US')} req/s, 0 non-2xx`,
      measured: `${formatNumber(i.requestsPerSecondMean, 0)} req/s, ${i.non2xx} non-2xx`,
      met: i.requestsPerSecondMean >= TARGET_INFO_RPS && i.non2xx === 0 && i.errors === 0 && i.timeouts === 0,
    });
    if (i.baseline) {
      const r = i.requestsPerSecondMean / i.baseline.requestsPerSecondMean;
      targets.push({
        name: 'GET info / bare Fastify route, same load',
        target: `≥ ${TARGET_INFO_BARE_RATIO}×`,
        measured: `${formatNumber(r, 2)}× (${formatNumber(i.requestsPerSecondMean, 0)} / ${formatNumber(i.baseline.requestsPerSecondMean, 0)} req/s)`,
        met: r >= TARGET_INFO_BARE_RATIO,
      });
    }
  }
  return targets;
}

function sizeLabel(mib: number): string {
  return mib % 1024 === 0 ? `${mib / 1024} GiB` : `${mib} MiB`;
}

function status(met: boolean): string {
  return met ? '✅ met' : '❌ not met';
}

function ratio(server: number, baseline: number): string {
  return Number.isFinite(server / baseline) ? formatNumber(server / baseline, 2) : 'n/a';
}

function runs(values: number[]): string {
  return values.map((v) => formatNumber(v)).join(', ');
}

export function renderMarkdown(results: BenchResults): string {
  const lines: string[] = [];
  const { machine, transfer: t, info: i } = results;
  lines.push('## Benchmark results', '');
  lines.push(`- **Date:** ${results.date}`);
  lines.push(`- **Machine:** ${machine.cpuCount} × ${machine.cpus}, ${machine.memory} RAM, ${machine.kernel}${machine.virtual ? ', virtual machine' : ''}`);
  lines.push(`- **Node:** ${machine.node}; server started from ${results.server.mode === 'dist' ? '`dist/main.js`' : '`src/main.ts` through tsx'} (\`${results.server.command}\`), log level warn`);
  lines.push(`- **Disk:** data directory, test file and \`cp\` target on the same ${machine.filesystem} file system (as /tmp)`);
  const { before: cb, after: ca } = results.calibration;
  lines.push(
    `- **Speed check (before → after):** SHA-256 ${formatNumber(cb.sha256MBps)} → ${formatNumber(ca.sha256MBps)} MB/s, memory copy ${formatNumber(cb.memcpyMBps)} → ${formatNumber(ca.memcpyMBps)} MB/s (in the benchmark process; a drop means the machine slowed down during the run)`,
  );
  lines.push(
    `- **Server idle RSS:** ${formatMemory(results.server.idleRss)} right after health answered; ` +
      (results.server.idleRssWarm === undefined
        ? "not measured after the engines' warm-up"
        : `${formatMemory(results.server.idleRssWarm)} after the engines' warm-up (${results.server.enginesReadyMs === undefined ? 'health never reported them started' : `reported started ${formatNumber(results.server.enginesReadyMs / 1000)} s after health`}; the server process alone, not the engines' processes)`),
  );
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' / ');
  lines.push(
    `- **Load average (1/5/15 min):** ${load(results.load.before)} before, ${load(results.load.after)} after` +
      ' (the benchmark itself raises the latter)' +
      ((results.load.before[0] ?? 0) > 0.5 ? ' — **other work was running on the machine before the start; the figures are likely disturbed by it**' : ''),
  );
  if (results.options.cpuProfile) lines.push(`- **CPU profile of the server written to** \`${results.options.cpuProfile}\` (profiling slows the server down)`);
  lines.push('');

  lines.push('### Targets', '');
  lines.push('| Target | Goal | Measured | Status |', '|---|---|---|---|');
  for (const target of results.targets) lines.push(`| ${target.name} | ${target.target} | ${target.measured} | ${status(target.met)} |`);
  lines.push('');

  if (t) {
    const label = sizeLabel(t.sizeMiB);
    lines.push(`### Transfer of a ${label} file (${t.sizeBytes.toLocaleString('en-US')} bytes)`, '');
    if (t.sizeMiB !== 1024) lines.push(`> Quick run with ${label}, not the 1 GiB the targets are defined for.`, '');
    const cpu = (uses: CpuUse[]) => {
      const m = (pick: (u: CpuUse) => number) => formatNumber(median(uses.map(pick)));
      return `${m((u) => u.server)} s (sys ${m((u) => u.serverSystem)}) / ${m((u) => u.client)} s (sys ${m((u) => u.clientSystem)})`;
    };
    lines.push(
      '| Measurement | Best | Median | Runs (MB/s) | `cp` baseline (median) | Server / `cp` (median) | CPU s server / client (median) | Peak server RSS (VmHWM) | Max sampled VmRSS |',
      '|---|---|---|---|---|---|---|---|---|',
      `| \`cp\` file → file (baseline) | ${formatNumber(t.cp.mbps.best)} MB/s | ${formatNumber(t.cp.mbps.median)} MB/s | ${runs(t.cp.mbps.runs)} | — | 1.00 | — | — | — |`,
      `| Upload: POST /documents, multipart \`filedata\` | ${formatNumber(t.upload.mbps.best)} MB/s | ${formatNumber(t.upload.mbps.median)} MB/s | ${runs(t.upload.mbps.runs)} | ${formatNumber(t.cp.mbps.median)} MB/s | ${ratio(t.upload.mbps.median, t.cp.mbps.median)} | ${cpu(t.upload.cpu)} | ${formatMemory(t.upload.memory.hwm)} | ${formatMemory(t.upload.memory.maxSampledRss)} |`,
      `| Download: GET /documents/{id} → file | ${formatNumber(t.download.mbps.best)} MB/s | ${formatNumber(t.download.mbps.median)} MB/s | ${runs(t.download.mbps.runs)} | ${formatNumber(t.cp.mbps.median)} MB/s | ${ratio(t.download.mbps.median, t.cp.mbps.median)} | ${cpu(t.download.cpu)} | ${formatMemory(t.download.memory.hwm)} | ${formatMemory(t.download.memory.maxSampledRss)} |`,
      `| Download → byte-counting sink (diagnostic, no client file writes) | ${formatNumber(t.downloadToSink.mbps.best)} MB/s | ${formatNumber(t.downloadToSink.mbps.median)} MB/s | ${runs(t.downloadToSink.mbps.runs)} | ${formatNumber(t.cp.mbps.median)} MB/s | ${ratio(t.downloadToSink.mbps.median, t.cp.mbps.median)} | ${cpu(t.downloadToSink.cpu)} | (in the row above) | (in the row above) |`,
    );
    lines.push('');
    lines.push(
      `Verification: stored \`fileSize\` equal to the source in every upload: ${t.upload.fileSizeVerified ? 'yes' : '**NO**'}; ` +
        `downloaded byte count and SHA-256 equal to the source in every download: ${t.download.sha256Verified ? 'yes' : '**NO**'}.`,
      '',
    );
  }

  if (i) {
    lines.push(`### GET /documents/{id}/info`, '');
    lines.push(
      '| Connections | Duration | Requests/s (mean) | Requests/s (total ÷ time) | Latency p50 | Latency p90 | Latency p99 | Latency max | non-2xx | Errors / timeouts | CPU s server / client | Peak server RSS (VmHWM) |',
    );
    lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
    lines.push(
      `| ${i.connections} | ${i.durationSeconds} s after ${i.warmupSeconds} s warm-up | ${formatNumber(i.requestsPerSecondMean, 0)} | ${formatNumber(i.requestsPerSecondOverall, 0)} | ${formatNumber(i.latencyMs.p50)} ms | ${formatNumber(i.latencyMs.p90)} ms | ${formatNumber(i.latencyMs.p99)} ms | ${formatNumber(i.latencyMs.max)} ms | ${i.non2xx} | ${i.errors} / ${i.timeouts} | ${formatNumber(i.cpu.server)} (sys ${formatNumber(i.cpu.serverSystem)}) / ${formatNumber(i.cpu.client)} | ${formatMemory(i.memory.hwm)} |`,
    );
    lines.push('');
    const b = i.baseline;
    if (b) {
      lines.push(
        'Baseline in the same run: a bare Fastify route at the same path answering the same JSON (`bench/bare-fastify.ts`: no authentication, session, storage, hooks, schema or logger), same node flags, same CPU pinning, same autocannon settings.',
        '',
      );
      lines.push('| Server | Requests/s (mean) | Requests/s (total ÷ time) | Latency p50 | Latency p99 | non-2xx | CPU s server / client | Quire / bare |', '|---|---|---|---|---|---|---|---|');
      lines.push(
        `| Quire, GET info | ${formatNumber(i.requestsPerSecondMean, 0)} | ${formatNumber(i.requestsPerSecondOverall, 0)} | ${formatNumber(i.latencyMs.p50)} ms | ${formatNumber(i.latencyMs.p99)} ms | ${i.non2xx} | ${formatNumber(i.cpu.server)} / ${formatNumber(i.cpu.client)} | ${ratio(i.requestsPerSecondMean, b.requestsPerSecondMean)} |`,
        `| bare Fastify | ${formatNumber(b.requestsPerSecondMean, 0)} | ${formatNumber(b.requestsPerSecondOverall, 0)} | ${formatNumber(b.latencyMs.p50)} ms | ${formatNumber(b.latencyMs.p99)} ms | ${b.non2xx} | ${formatNumber(b.cpu.server)} / ${formatNumber(b.cpu.client)} | 1.00 |`,
      );
      lines.push('');
    }
  }

  lines.push('### Method', '');
  lines.push('- MB/s means 10^6 bytes of file content per second (the multipart envelope is not counted). Targets are judged on the median run.');
  if (t) {
    lines.push(
      `- ${t.repeat} timed rounds, each running \`cp\`, upload, download to a sink and download to a file one after the other, after one untimed warm-up round; each output (copy, downloaded file, stored document) is deleted as soon as it has been checked, so that every timed write reuses page-cache memory just freed. The test file is one random MiB repeated (each MiB stamped with its index)${t.sourceReused ? ', reused from an earlier `--keep` run' : ''}.`,
      "- Nothing is dropped from the page cache: the source is read from the cache in every run (cp, upload and download alike), and written data stays in the cache (nothing is fsync'd). `sync` runs before each timed run so every run starts without dirty pages.",
      '- `cp`: GNU coreutils `cp source target`, timed from spawn to exit with `process.hrtime` (on ext4 it copies in the kernel with `copy_file_range`, without passing the bytes through user space).',
      '- Upload: one `node:http` request per run (no keep-alive), body streamed from disk in 1 MiB reads with a declared Content-Length; timed from the start of the request until the 303 arrives (the server has then written, format-sniffed and moved the file into place). Stored size checked afterwards with GET …/info.',
      "- Download: one `node:http` GET per run streamed into a file on the same disk (one `writeSync` per received chunk); timed until that file is closed. Byte count and SHA-256 are checked afterwards, outside the timed section. The target is judged on this figure. The sink row repeats the download into a consumer that only counts bytes, to separate the server from the client's file writes.",
      '- CPU: user + system seconds (system part in parentheses) of the server process (/proc/<pid>/stat) and of the benchmark process (the client) during each timed transfer.',
      `- The client runs in the benchmark process on the same ${results.machine.cpuCount}-CPU machine, so client and server share the CPUs.`,
      ...(results.machine.virtual
        ? [
            '- On a virtual machine the first touch of guest memory the host has not backed (or took back) is slow, and fresh page-cache pages are such memory: the timing of writes, by `cp`, the server or the client alike, varies from run to run — compare the runs column and the CPU times.',
          ]
        : []),
      '- Peak RSS: VmHWM of the server process (/proc/<pid>/status), reset through /proc/<pid>/clear_refs at the start of each phase' +
        (t.upload.memory.hwmScope === 'process' ? ' (reset refused here: the value is the peak since the server started)' : '') +
        ', plus the largest VmRSS sampled every 50 ms during the transfers. The server is the `node` child process itself.',
    );
  }
  if (i) {
    lines.push(
      `- Info: autocannon (programmatic, in the benchmark process, loaded only for this part: loading it slows the transfer client measurably) with ${i.connections} keep-alive connections, no pipelining, Bearer token header, against a small uploaded PDF; CPU pinning: ${i.pinning}; a ${i.warmupSeconds} s warm-up run (${formatNumber(i.warmupRequestsPerSecond, 0)} req/s) is discarded. "Requests/s (mean)" is autocannon's mean of its per-second samples.`,
    );
  }
  lines.push('');
  return lines.join('\n');
}
