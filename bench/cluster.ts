/**
 * Cluster benchmark (issue 20): what cluster mode costs one node, and what three nodes behind haproxy
 * give on this machine, with the CPU time per conversion that projects the scaling to more cores.
 *
 *   npm run build && npm run bench -- --dist --only=cluster [--duration=10] [--warmup=2] [--connections=64] [--rounds=2] [--cpu-prof]
 *
 * Everything on 127.0.0.1, started as `./quire.sh cluster` starts it: a real redis-server (AOF on),
 * nodes of `npm start` (dist/main.js with its flags) on one shared data dir, Debian's haproxy (least
 * connections, health-checked). Chromium is off in every server (no call here needs it).
 *
 * 1. Overhead: the embedded single node and one node in cluster mode run side by side, measured in
 *    alternating rounds (S, C, S, C: a load that changes during the run hits both alike):
 *    `GET documents/{id}/info` at 64 connections (autocannon; server on CPU 0, autocannon and
 *    redis-server on CPU 1) and docx → PDF through REST (upload, convert, download, delete) with 4
 *    clients. Target: cluster / single ≥ 0.8× (info) and ≥ 0.9× (conversions).
 * 2. Scaling: `./quire.sh cluster 1` against `./quire.sh cluster 3` on this machine: node 5 (counting
 *    every core as its own) behind haproxy against nodes 2–4 (sharing the cores: server.cpus ⌈cores / 3⌉
 *    each, as the launcher sets it) behind haproxy (alternating rounds, 6 clients), all four new and
 *    warmed alike (SCALING_WARMUP_PER_NODE conversions each). Target: 3 nodes not
 *    below 1 node. The CPU time per conversion of the nodes' process
 *    trees (node + its Python/soffice workers), redis-server and haproxy is read from /proc and
 *    printed with the projection to k cores.
 *
 * Writes Markdown to stdout and bench/results/cluster.md, raw numbers to bench/results/cluster.json.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisServer, type RedisServer } from '../test/helpers/redis-server.js';
import { startHaproxy, type Haproxy } from '../test/cluster/helpers/haproxy.js';
import { restConversion } from './converter.js';
import { loginAnonymous } from './lib/api.js';
import { drive } from './lib/drive.js';
import { childrenNamed, ownSecondsByName, setAffinity, treeCpu } from './lib/process-tree.js';
import { startBenchServer, waitForEngines, type BenchServer } from './lib/server.js';
import { formatNumber, median } from './lib/stats.js';
import { timedUpload } from './lib/transfer.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = path.join(root, 'bench', 'results');
const FIXTURE = path.join(root, 'test/fixtures/office/sample.docx');
/** Alternating rounds per comparison. */
/** Alternating rounds per comparison unless `--rounds` says otherwise. */
const DEFAULT_ROUNDS = 2;
/** Concurrent clients converting: part 1 (one node) and part 2 (up to three nodes, two LibreOffice workers each). */
const CLIENTS_OVERHEAD = 4;
const CLIENTS_SCALING = 6;
/** Warm-up conversions per client before the rounds of a comparison (per node of a target). */
const WARMUP_PER_CLIENT = 3;
/**
 * Warm-up conversions per node before the scaling rounds: every node of both targets starts fresh and
 * serves as many. A node's JavaScript reaches its optimised code only after some hundred calls; until
 * the 15:16 run, node 1 came to the scaling rounds with part 1 behind it (~900 conversions and ~200,000
 * `GET info`) and nodes 2–4 with 18 conversions each, and the nodes' own CPU per conversion was
 * 31 ms (node 1) against 44 ms (nodes 2–4). With 240 each (a probe of 2 rounds), 26–29 against 28–34;
 * with 120 each (15:31 run), the three nodes' fell from 43 to 33 ms over the four rounds. One node
 * alone, converting with 2 clients (a probe, 2026-11-26 18:05): 31, 26, 23, 24, 24, 20, 21, 21, 21, 21 ms
 * per conversion over its first ten hundreds; a second one 33, 26, 20 over its first three two-hundreds,
 * then 17–23 up to 2,000: about 500 conversions to a steady state.
 */
const SCALING_WARMUP_PER_NODE = 500;
/** Failed conversions a round tolerates (counted, shown) before the run stops. */
const MAX_FAILURES = 20;
const ADMIN_PASSWORD = 'bench';

export interface ClusterBenchOptions {
  dist: boolean;
  /** Extra node flags for every server process. */
  nodeFlags: string[];
  /** A CPU profile of every server process (bench/results/profiles/<stamp>/<server>/). */
  cpuProf: boolean;
  /** autocannon connections for GET info. */
  connections: number;
  /** Seconds of one measured info round; a conversion round aims at 1.5× this. */
  duration: number;
  /** Seconds of autocannon warm-up before each info round. */
  warmup: number;
  /** Pin the server and the load generator to separate CPUs for the info rounds. */
  pin: boolean;
  /** Alternating rounds per comparison (default 2): more narrow a ratio whose rounds overlap. */
  rounds?: number;
}

/** CPU seconds used by parts of the system during one measured round. */
interface CpuSplit {
  nodes: number;
  redis: number;
  haproxy: number;
  client: number;
  /** Per node (by name), for part 2: shows that the work was spread. */
  perNode: Record<string, number>;
  /** The nodes' trees by command name (node, python3, soffice.bin, ended): where a conversion's CPU goes. */
  byCommand: Record<string, number>;
}

interface Round {
  target: string;
  /** Requests answered 2xx (info) or conversions completed. */
  count: number;
  /** Requests not answered 2xx or failed (info), conversions that failed; not in `count`. */
  failures: number;
  /** The first failure's message (conversions). */
  firstFailure?: string;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  cpu: CpuSplit;
}

interface Target {
  name: string;
  /** Where requests go: a node's or haproxy's REST base. */
  rest: string;
  /** The node processes that serve this target (their trees are measured). */
  nodes: { name: string; pid: number }[];
  /** haproxy's pid, when it is in front. */
  haproxyPid?: number;
  token: string;
}

function log(message: string): void {
  process.stderr.write(`[bench cluster] ${message}\n`);
}

function portOf(server: BenchServer): number {
  return Number(new URL(server.origin).port);
}

/** CPU seconds of the parts of a target, read before and after a round. */
function cpuReader(target: Target, redisPid: number): () => CpuSplit {
  const read = () => {
    const trees = target.nodes.map((n) => [n.name, treeCpu(n.pid)] as const);
    return {
      nodes: Object.fromEntries(trees.map(([name, tree]) => [name, tree.seconds])),
      trees: trees.map(([, tree]) => tree),
      redis: treeCpu(redisPid).seconds,
      haproxy: target.haproxyPid ? treeCpu(target.haproxyPid).seconds : 0,
      client: process.cpuUsage(),
    };
  };
  const before = read();
  return () => {
    const after = read();
    const perNode = Object.fromEntries(target.nodes.map((n) => [n.name, after.nodes[n.name]! - before.nodes[n.name]!]));
    const client = process.cpuUsage(before.client);
    return {
      nodes: Object.values(perNode).reduce((a, b) => a + b, 0),
      redis: after.redis - before.redis,
      haproxy: after.haproxy - before.haproxy,
      client: (client.user + client.system) / 1e6,
      perNode,
      byCommand: ownSecondsByName(before.trees, after.trees),
    };
  };
}

/** One info round: autocannon warm-up, then the measured run, the server pinned apart from the client and Redis. */
async function infoRound(target: Target, documentId: string, redisPid: number, options: ClusterBenchOptions): Promise<Round> {
  const { default: autocannon } = await import('autocannon');
  const url = `${target.rest}/documents/${documentId}/info`;
  const headers = { authorization: `Bearer ${target.token}` };
  const all = `0-${os.cpus().length - 1}`;
  const pinned = options.pin && os.cpus().length >= 2;
  const pins: [number, string][] = pinned
    ? [
        [target.nodes[0]!.pid, '0'],
        [process.pid, '1'],
        [redisPid, '1'],
      ]
    : [];
  for (const [pid, cpus] of pins) {
    const failed = setAffinity(pid, cpus);
    if (failed) log(`pinning ${pid} to CPU ${cpus} failed: ${failed}`);
  }
  try {
    if (options.warmup > 0) await autocannon({ url, connections: options.connections, duration: options.warmup, headers });
    const cpu = cpuReader(target, redisPid);
    const result = await autocannon({ url, connections: options.connections, duration: options.duration, headers });
    const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
    const round: Round = {
      target: target.name,
      count: result['2xx'],
      failures: result.non2xx + result.errors,
      seconds,
      perSecond: result['2xx'] / seconds,
      p50Ms: result.latency.p50,
      cpu: cpu(),
    };
    log(
      `info ${target.name}: ${formatNumber(round.perSecond, 0)} req/s, p50 ${round.p50Ms} ms, failed ${round.failures}, node CPU ${formatNumber((round.cpu.nodes / round.count) * 1e6, 0)} µs/request`,
    );
    return round;
  } finally {
    // Later LibreOffice workers would inherit the node's affinity: undo it.
    for (const [pid] of pins) setAffinity(pid, all);
  }
}

/**
 * One conversion round: `clients` clients each converting one document after the other until
 * `seconds` have passed (none starts later); the round ends when the last one is done. A fixed time
 * rather than a fixed count: the rate of a target is not known before, and changes with the load.
 */
async function conversionRound(target: Target, docx: Buffer, clients: number, seconds: number, redisPid: number, everyNode: number[]): Promise<Round> {
  const cpu = cpuReader(target, redisPid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const latencies: number[] = [];
  const failures: string[] = [];
  const client = async () => {
    for (let t = performance.now(); t < deadline; t = performance.now()) {
      try {
        await restConversion(target, target.token, docx);
        latencies.push(performance.now() - t);
      } catch (error) {
        // Counted and shown (a loaded Redis past cluster.redis.commandTimeout answers 503); many mean something is broken.
        failures.push((error as Error).message);
        if (failures.length > MAX_FAILURES) throw new Error(`${target.name}: ${failures.length} conversions failed, the first: ${failures[0]}`);
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const elapsed = (performance.now() - started) / 1000;
  // What a round leaves running (a LibreOffice worker recycled after its maxJobs starts anew: 2–4 s of
  // CPU) is the round's cost, not the next round's: the 12:01 run found an idle node's soffice using 4 s
  // of CPU during the other target's rounds. Its own nodes' CPU is read once every node is quiet again.
  const settled = await settle(everyNode);
  if (settled > 1) log(`${target.name}: the nodes were quiet again ${formatNumber(settled, 1)} s after the round`);
  const round: Round = {
    target: target.name,
    count: latencies.length,
    failures: failures.length,
    ...(failures[0] ? { firstFailure: failures[0] } : {}),
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    p50Ms: median(latencies),
    cpu: cpu(),
  };
  if (failures[0]) log(`${target.name}: ${failures.length} failed conversions, the first: ${failures[0]}`);
  log(
    `convert ${target.name}: ${formatNumber(round.perSecond, 2)}/s (${round.count} in ${formatNumber(elapsed, 1)} s, p50 ${formatNumber(round.p50Ms, 0)} ms), CPU ${formatNumber((cpuTotal(round.cpu) / round.count) * 1000, 0)} ms/conversion (${Object.entries(
      round.cpu.byCommand,
    )
      .map(([name, seconds]) => `${name} ${formatNumber((seconds / round.count) * 1000, 1)}`)
      .join(', ')}; redis ${formatNumber((round.cpu.redis / round.count) * 1000, 1)}, haproxy ${formatNumber((round.cpu.haproxy / round.count) * 1000, 1)})`,
  );
  return round;
}

/** Waits (up to 30 s) until the nodes' process trees use less than a tenth of a core; the seconds it took. */
async function settle(pids: number[]): Promise<number> {
  const started = performance.now();
  const used = () => pids.reduce((sum, pid) => sum + treeCpu(pid).seconds, 0);
  for (let before = used(); performance.now() - started < 30_000; ) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = used();
    if (now - before < 0.05) break;
    before = now;
  }
  return (performance.now() - started) / 1000;
}

/** Server-side CPU: nodes with their workers, redis-server and haproxy (the client would run elsewhere). */
function cpuTotal(cpu: CpuSplit): number {
  return cpu.nodes + cpu.redis + cpu.haproxy;
}

/**
 * Conversions alternating between the targets, `rounds` times, after a warm-up of every target: a
 * LibreOffice worker's first conversions cost several times a warm one's (filters loaded, caches
 * filled). WARMUP_PER_CLIENT × clients conversions per node of the target, so that with calls spread evenly
 * every worker of 3 nodes is as warm as the workers of 1 (the 11:34 run warmed 3 nodes with a third
 * as many per worker, and their first round cost 86 ms of CPU per conversion against 69 in the second).
 */
async function compareConversions(
  targets: Target[],
  docx: Buffer,
  clients: number,
  seconds: number,
  redisPid: number,
  rounds: number,
  warmupPerNode = clients * WARMUP_PER_CLIENT,
): Promise<Round[][]> {
  for (const target of targets) {
    const count = warmupPerNode * target.nodes.length;
    const warm = await drive(count, clients, () => restConversion(target, target.token, docx));
    log(`warm-up ${target.name}: ${count} conversions, ${formatNumber(count / warm.seconds, 2)}/s`);
  }
  const measured: Round[][] = targets.map(() => []);
  const everyNode = [...new Set(targets.flatMap((t) => t.nodes.map((n) => n.pid)))];
  await settle(everyNode);
  for (let r = 0; r < rounds; r++) {
    for (const [i, target] of targets.entries()) measured[i]!.push(await conversionRound(target, docx, clients, seconds, redisPid, everyNode));
  }
  return measured;
}

/** Whole-run rate of a series of rounds: everything counted over all the time measured. */
function rate(rounds: Round[]): number {
  return rounds.reduce((a, r) => a + r.count, 0) / rounds.reduce((a, r) => a + r.seconds, 0);
}

/** CPU seconds of one part per item (request or conversion) over a series of rounds. */
function cpuPer(rounds: Round[], part: (cpu: CpuSplit) => number): number {
  return rounds.reduce((a, r) => a + part(r.cpu), 0) / rounds.reduce((a, r) => a + r.count, 0);
}

async function adminStatus(rest: string): Promise<{ mode: string; members: string[] }> {
  const login = await fetch(`${rest}/authentication/user/login/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` } });
  const { token } = (await login.json()) as { token: string };
  const response = await fetch(`${rest}/admin/cluster/status`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`admin/cluster/status answered ${response.status}: ${text}`);
  const status = JSON.parse(text) as { settings: { mode: string }; nodes: { name: string; state: string }[] };
  return { mode: status.settings.mode, members: status.nodes.filter((n) => n.state === 'up').map((n) => n.name) };
}

export async function runClusterBench(options: ClusterBenchOptions): Promise<string> {
  const rounds = options.rounds ?? DEFAULT_ROUNDS;
  const docx = readFileSync(FIXTURE);
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-cluster-'));
  const sharedData = path.join(tempDir, 'shared');
  await mkdir(sharedData);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const profileDir = options.cpuProf ? path.join(resultsDir, 'profiles', `cluster-${stamp}`) : undefined;
  const loadBefore = os.loadavg();
  const servers: BenchServer[] = [];
  const proxies: Haproxy[] = [];
  let redis: RedisServer | undefined;

  // Nodes do not die with this process by themselves (haproxy and redis-server do: parent-death signal).
  const killNodes = () => servers.forEach((s) => s.killNow());
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping every process of the run`);
    killNodes();
    void Promise.allSettled([...proxies.map((p) => p.stop()), redis?.stop(), rm(tempDir, { recursive: true, force: true })]).finally(() => process.exit(130));
  };
  process.once('exit', killNodes);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const start = async (name: string, env: Record<string, string>): Promise<BenchServer> => {
    const nodeFlags = [...options.nodeFlags, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : [])];
    const server = await startBenchServer({ root, tempDir, dist: options.dist, nodeFlags, env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false', ...env } });
    servers.push(server);
    const ready = await waitForEngines(server.origin);
    log(`${name}: pid ${server.pid} at ${server.origin}, engines ${ready === undefined ? 'not reported ready' : `ready ${ready} ms after health`}`);
    return server;
  };
  const clusterNode = (id: string, env: Record<string, string> = {}) =>
    start(id, {
      QUIRE_CLUSTER__MODE: 'cluster',
      QUIRE_CLUSTER__REDIS__URL: redis!.url,
      QUIRE_CLUSTER__NODE__ID: id,
      // One data dir for all nodes, as the shared NFS/SMB mount of a real cluster.
      QUIRE_DATA_DIR: sharedData,
      ...env,
    });
  const haproxyFor = async (nodes: BenchServer[]): Promise<{ url: string; pid: number }> => {
    const before = new Set(childrenNamed(process.pid, 'haproxy'));
    const proxy = await startHaproxy(nodes.map(portOf));
    proxies.push(proxy);
    const pid = childrenNamed(process.pid, 'haproxy').find((p) => !before.has(p));
    if (pid === undefined) throw new Error('the haproxy just started is not a child of this process');
    return { url: proxy.url, pid };
  };

  try {
    log('redis-server (AOF on) ...');
    const redisBefore = new Set(childrenNamed(process.pid, 'redis-server'));
    redis = await startRedisServer({ appendonly: true });
    const redisPid = childrenNamed(process.pid, 'redis-server').find((p) => !redisBefore.has(p));
    if (redisPid === undefined) throw new Error('the redis-server just started is not a child of this process');

    // Part 1: the embedded single node and node 1 of the cluster, side by side.
    log('starting the single node and cluster node 1 ...');
    const [single, node1] = await Promise.all([start('single', {}), clusterNode('node-1')]);
    const status1 = await adminStatus(node1.rest);
    if (status1.mode !== 'cluster') throw new Error(`node 1 reports mode ${status1.mode}, not cluster`);
    const singleTarget: Target = { name: 'single', rest: single.rest, nodes: [{ name: 'single', pid: single.pid }], token: await loginAnonymous(single.rest) };
    const clusterTarget: Target = { name: 'cluster (1 node)', rest: node1.rest, nodes: [{ name: 'node-1', pid: node1.pid }], token: await loginAnonymous(node1.rest) };
    const infoTargets = [singleTarget, clusterTarget];
    const documents = await Promise.all(infoTargets.map((t) => timedUpload(t.rest, t.token, FIXTURE, docx.length, 'info.docx').then((u) => u.documentId)));

    const infoRounds: Round[][] = [[], []];
    for (let r = 0; r < rounds; r++) {
      for (const [i, target] of infoTargets.entries()) infoRounds[i]!.push(await infoRound(target, documents[i]!, redisPid, options));
    }
    const overheadConversions = await compareConversions(infoTargets, docx, CLIENTS_OVERHEAD, options.duration * 1.5, redisPid, rounds);
    // Part 2: `./quire.sh cluster 1` against `./quire.sh cluster 3` on this machine: node 5 counts every core
    // as its own, as one node does; three nodes share them (server.cpus = ⌈cores / 3⌉ each, as the launcher
    // sets it). All four are new, so that each comes to the rounds with the same warm-up behind it (not node
    // 1 with part 1's); they run on the one Redis, the idle ones waiting while the others are measured.
    const shareOfThree = String(Math.ceil(Math.max(1, os.availableParallelism()) / 3));
    log(`stopping the single node and node 1; starting cluster node 5 alone and nodes 2–4 with server.cpus ${shareOfThree} ...`);
    await Promise.all([single.stop(), node1.stop()]);
    const scalingIds = ['node-5', 'node-2', 'node-3', 'node-4'];
    const [node5, ...nodes] = await Promise.all(scalingIds.map((id, i) => clusterNode(id, i === 0 ? {} : { QUIRE_SERVER__CPUS: shareOfThree })));

    const alone = await haproxyFor([node5!]);
    const three = await haproxyFor(nodes);
    const status3 = await adminStatus(`${three.url}/webPDF/rest`);
    if (status3.members.length !== 4) throw new Error(`the cluster lists ${status3.members.length} members up (${status3.members.join(', ')}), not 4`);
    // One session for both: it lives in Redis, so every node serves it.
    const token = await loginAnonymous(`${three.url}/webPDF/rest`);
    const nodeList = [node5!, ...nodes].map((n, i) => ({ name: scalingIds[i]!, pid: n.pid }));
    const scalingTargets: Target[] = [
      { name: '1 node + haproxy', rest: `${alone.url}/webPDF/rest`, nodes: nodeList.slice(0, 1), haproxyPid: alone.pid, token },
      { name: '3 nodes + haproxy', rest: `${three.url}/webPDF/rest`, nodes: nodeList.slice(1), haproxyPid: three.pid, token },
    ];
    const scaling = await compareConversions(scalingTargets, docx, CLIENTS_SCALING, options.duration * 1.5, redisPid, rounds, SCALING_WARMUP_PER_NODE);
    const processes = Object.fromEntries(nodeList.map((n) => [n.name, treeCpu(n.pid).processes]));

    const results = {
      date: new Date().toISOString(),
      machine: { cpus: `${os.cpus()[0]?.model.trim() ?? 'unknown'} × ${os.cpus().length}`, memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`, node: process.version },
      load: { before: loadBefore, after: os.loadavg() },
      options: { ...options, rounds, scalingCpus: Number(shareOfThree), clientsOverhead: CLIENTS_OVERHEAD, clientsScaling: CLIENTS_SCALING, profileDir: profileDir && path.relative(root, profileDir) },
      command: servers[0]?.command,
      processes,
      info: infoRounds,
      overheadConversions,
      scaling,
    };
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, 'cluster.json'), `${JSON.stringify(results, null, 2)}\n`);
    const markdown = render(results);
    await writeFile(path.join(resultsDir, 'cluster.md'), markdown);
    if (profileDir) log(`CPU profiles in ${path.relative(root, profileDir)} (node --import tsx bench/profile-summary.ts <dir>)`);
    return markdown;
  } catch (error) {
    for (const server of servers) {
      const output = server.output().trim();
      if (output) log(`output of ${server.origin} (last lines):\n${output.split('\n').slice(-20).join('\n')}`);
    }
    throw error;
  } finally {
    await Promise.all(proxies.map((p) => p.stop()));
    await Promise.all(servers.map((s) => s.stop()));
    await redis?.stop();
    await rm(tempDir, { recursive: true, force: true });
    process.off('exit', killNodes);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

interface Results {
  date: string;
  machine: { cpus: string; memory: string; node: string };
  load: { before: number[]; after: number[] };
  options: { connections: number; duration: number; warmup: number; pin: boolean; rounds: number; scalingCpus: number };
  command: string | undefined;
  processes: Record<string, Record<string, number>>;
  info: Round[][];
  overheadConversions: Round[][];
  scaling: Round[][];
}

const ms = (seconds: number) => formatNumber(seconds * 1000, 0);
const us = (seconds: number) => formatNumber(seconds * 1e6, 0);
const verdict = (ratio: number, target: number) => `${formatNumber(ratio, 2)}× ${ratio >= target ? '✅' : '❌'} (target ≥ ${target}×)`;
const rounds = (series: Round[], digits: number) => series.map((r) => formatNumber(r.perSecond, digits)).join(' / ');

function render(results: Results): string {
  const [infoSingle, infoCluster] = results.info as [Round[], Round[]];
  const [convSingle, convCluster] = results.overheadConversions as [Round[], Round[]];
  const [one, three] = results.scaling as [Round[], Round[]];
  const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(' / ');
  const infoRatio = rate(infoCluster) / rate(infoSingle);
  const convRatio = rate(convCluster) / rate(convSingle);
  const scaleRatio = rate(three) / rate(one);
  // CPU per conversion (seconds) by part, 3 nodes: the input of the projection.
  const c3 = { nodes: cpuPer(three, (c) => c.nodes), redis: cpuPer(three, (c) => c.redis), haproxy: cpuPer(three, (c) => c.haproxy), client: cpuPer(three, (c) => c.client) };
  const c3Total = c3.nodes + c3.redis + c3.haproxy;
  const c1Total = cpuPer(one, cpuTotal);
  const cores = os.cpus().length;
  const perNode = Object.keys(three[0]?.cpu.perNode ?? {}).map(
    (name) =>
      `${name} ${formatNumber(
        three.reduce((a, r) => a + (r.cpu.perNode[name] ?? 0), 0),
        1,
      )} s`,
  );
  // Where a conversion's CPU goes, by command over the rounds (ms per conversion); `ended` is what
  // processes that ended within a round used (a recycled LibreOffice worker, a tool run).
  const byCommand = (series: Round[]) => {
    const names = [...new Set(series.flatMap((r) => Object.keys(r.cpu.byCommand)))].sort((a, b) => (a === 'ended' ? 1 : b === 'ended' ? -1 : a.localeCompare(b)));
    return names.map((name) => `${name} ${formatNumber(cpuPer(series, (c) => c.byCommand[name] ?? 0) * 1000, 1)}`).join(', ');
  };
  const failed = (series: Round[][]) => series.flat().reduce((a, r) => a + r.failures, 0);
  const failures = [...results.overheadConversions.flat(), ...results.scaling.flat()]
    .filter((r) => r.firstFailure)
    .map((r) => `- ${r.target}: ${r.failures} failed conversions, the first: ${r.firstFailure}`);
  return [
    '### Cluster: overhead of cluster mode and 3 nodes behind haproxy',
    '',
    `${results.date}; ${results.machine.cpus}, ${results.machine.memory}, Node ${results.machine.node}; load average before ${load(results.load.before)}, after ${load(results.load.after)}. ` +
      `Servers: \`${results.command}\` (Chromium off), redis-server with AOF (everysec), haproxy leastconn; everything on 127.0.0.1 of this machine. ` +
      `Scaling: node 5 with every core its own (server.cpus 0) against nodes 2–4 with server.cpus ${results.options.scalingCpus} each, as \`./quire.sh cluster 1\` and \`./quire.sh cluster 3\` start them, all four new, each warmed with ${SCALING_WARMUP_PER_NODE} conversions. ` +
      `${results.options.rounds} alternating rounds per comparison; rates are the 2xx answers (completed conversions) over all the measured time. Process trees: ${Object.entries(results.processes)
        .map(
          ([n, p]) =>
            `${n} ${Object.entries(p)
              .map(([k, v]) => `${v} ${k}`)
              .join(', ')}`,
        )
        .join('; ')}.`,
    '',
    '| Figure | Single node | Cluster | Ratio | Rounds (single; cluster) |',
    '|---|---:|---:|---:|---|',
    `| GET info, ${results.options.connections} connections, req/s | ${formatNumber(rate(infoSingle), 0)} | ${formatNumber(rate(infoCluster), 0)} (1 node) | ${verdict(infoRatio, 0.8)} | ${rounds(infoSingle, 0)}; ${rounds(infoCluster, 0)} |`,
    `| GET info: CPU per request (node; + redis-server) | ${us(cpuPer(infoSingle, (c) => c.nodes))} µs | ${us(cpuPer(infoCluster, (c) => c.nodes))} µs + ${us(cpuPer(infoCluster, (c) => c.redis))} µs | ${formatNumber(cpuPer(infoCluster, (c) => c.nodes) / cpuPer(infoSingle, (c) => c.nodes), 2)}× node CPU | failed: ${failed(results.info)} |`,
    `| docx → PDF through REST, ${CLIENTS_OVERHEAD} clients, conversions/s | ${formatNumber(rate(convSingle), 2)} | ${formatNumber(rate(convCluster), 2)} (1 node) | ${verdict(convRatio, 0.9)} | ${rounds(convSingle, 2)}; ${rounds(convCluster, 2)}; failed: ${failed(results.overheadConversions)} |`,
    `| docx → PDF: CPU per conversion (node tree; + redis-server) | ${ms(cpuPer(convSingle, (c) => c.nodes))} ms | ${ms(cpuPer(convCluster, (c) => c.nodes))} ms + ${ms(cpuPer(convCluster, (c) => c.redis))} ms | ${formatNumber(cpuPer(convCluster, cpuTotal) / cpuPer(convSingle, cpuTotal), 2)}× | |`,
    `| docx → PDF behind haproxy, ${CLIENTS_SCALING} clients, conversions/s | ${formatNumber(rate(one), 2)} (1 node) | ${formatNumber(rate(three), 2)} (3 nodes) | ${verdict(scaleRatio, 1)} | ${rounds(one, 2)}; ${rounds(three, 2)}; failed: ${failed(results.scaling)} |`,
    `| CPU per conversion behind haproxy (nodes + soffice + redis + haproxy) | ${ms(c1Total)} ms (1 node) | ${ms(c3Total)} ms (3 nodes) | ${formatNumber(c3Total / c1Total, 2)}× | 3 nodes' trees over the rounds: ${perNode.join(', ')} |`,
    `| … by command, ms per conversion | ${byCommand(one)} | ${byCommand(three)} | | |`,
    '',
    ...failures.flatMap((line, i) => (i === failures.length - 1 ? [line, ''] : [line])),
    `Projection (3 nodes, CPU-bound): CPU per conversion c = nodes with their LibreOffice workers ${ms(c3.nodes)} ms + redis-server ${ms(c3.redis)} ms + haproxy ${ms(c3.haproxy)} ms = **${ms(c3Total)} ms** ` +
      `(the load generator's own ${ms(c3.client)} ms not counted: clients are elsewhere in a deployment). On k free cores the ceiling is k / c conversions/s: ` +
      [2, 4, 8, 16].map((k) => `${k} cores ${formatNumber(k / c3Total, 1)}/s`).join(', ') +
      `. Measured here on ${cores} shared cores: ${formatNumber(rate(three), 2)}/s = ${formatNumber((rate(three) * c3Total * 100) / cores, 0)} % of the ${cores}-core ceiling ` +
      `(u; the rest went to the load generator, to other processes on the machine and to idle waits). Projection: conversions/s on k cores ≈ u × k / c, with u measured on a quiet machine.`,
    '',
  ].join('\n');
}
