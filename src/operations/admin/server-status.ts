import { stat } from 'node:fs/promises';
import os from 'node:os';
import type { Config } from '../../config/load.js';
import { Errors } from '../../core/errors.js';
import { WEBSERVICES, type WebserviceName } from '../../core/webservices.js';
import { webServiceModule } from '../webservices.js';
import type { PoolStats } from '../../engines/pool/worker-pool.js';
import { gcTotals } from '../../observability/metrics-process.js';
import { heapReading, MachineReader } from '../../observability/metrics-runtime.js';
import type { OperationEvent, OperationEvents } from '../../observability/operation-events.js';
import { memberClusterStatus, singleNodeClusterStatus, type ClusterStatus, type MemberRecord, type MemberView } from './cluster-status.js';

/**
 * What a health check found for one engine (reference `Admin_ExecutableStatusState` without `unknown`),
 * plus `starting`: a pool that warms up in the background after the server began listening.
 */
export type ExecutableState = 'ok' | 'error' | 'disabled' | 'starting';

export interface ServerStatusDeps {
  config: Config;
  events: OperationEvents;
  engines: {
    /** A real check of every engine, by engine name (src/engines-wiring.ts). */
    health(): Promise<Readonly<Record<string, ExecutableState>>>;
    stats(): PoolStats[];
  };
  build: { version: string };
  /** When the server first started (kept across in-process restarts). */
  startedAt: Date;
  /** Cluster mode: this node's id and the members the shared store knows (src/cluster/node.ts). */
  cluster?: { id: string; members(): Promise<MemberView[]> } | undefined;
}

/**
 * The engines each web service of reference §7 needs: its module's `engines` (operations/webservices.ts).
 * A web service this server does not offer has none and is reported `disabled`.
 */
function webserviceEngines(name: WebserviceName): readonly string[] {
  return webServiceModule(name)?.engines ?? [];
}

/**
 * Health checks start processes (gs, qpdf, pdftotext, tesseract) and ping workers: a result in which
 * every engine answered serves the status calls, health probes and cluster heartbeats of half a minute.
 * At 5 s, the heartbeat of an idle cluster node (every 2 s) kept it checking all the time: 4 % of a core,
 * idle, per node. A result with an engine in error is checked again after 5 s, so a recovery shows soon.
 */
const HEALTH_TTL_MS = 30_000;
const FAILED_HEALTH_TTL_MS = 5_000;

// ---- the wire shapes (reference §11.1; the schemas are in http/schemas/admin-status.ts) ----------------

export type WebserviceStatusValue = 'unknown' | 'ok' | 'disabled' | 'error' | 'notLicensed';
export type ExecutableStatusValue = Exclude<ExecutableState, 'starting'> | 'unknown';

export interface AdminWebserviceStatus {
  enabled: boolean;
  executables: Record<string, { enabled: boolean; status: ExecutableStatusValue }>;
  state: {
    instances: { maxPoolSize: number; maxQueueSize: number; maxUsedPoolSize: number; maxUsedQueueSize: number; poolSize: number; queueSize: number };
    jobs: {
      errorDetails: Record<string, { code: number; count: number; description: string }>;
      executionTimeMs: number;
      lastJobId: number;
      numberOfErrorJobs: number;
      numberOfJobs: number;
      numberOfSuccessfulJobs: number;
    };
    lastUpdate: number;
  };
  status: WebserviceStatusValue;
}

export interface AdminServerStatus {
  server: {
    configurations: Record<string, { flags: Array<'readOnly' | 'containsVariables' | 'changed'> }>;
    hasChangedConfiguration: boolean;
    licenseIsClusterUsage: boolean;
    licenseText: string;
    mainVersion: number;
    minorVersion: number;
    providers: Record<'documentStorage' | 'fileStorage' | 'sessionStorage', Array<{ fileName: string; format: 'plain' | 'json' | 'yaml' | 'xml'; name: string }>>;
    serverPlatform: 'windows' | 'linux';
    serverStart: number;
    serverVersion: string;
  };
  java: {
    gc: Array<{ collectionCount: number; collectionTime: number; name: string }>;
    javaName: string;
    javaVendor: string;
    javaVersion: string;
    memoryAllocated: number;
    memoryFree: number;
    memoryMax: number;
    memoryTotalFree: number;
    memoryUsed: number;
  };
  os: {
    container: { name: string };
    cpuLogicalProcessors: number;
    memoryCommittedVirtualSize: number;
    memoryFree: number;
    memoryFreeSwapSize: number;
    memoryTotal: number;
    memoryTotalSwapSize: number;
    osArchitecture: string;
    osName: string;
    osVersion: string;
    processCpuLoad: number;
    systemLoadAverage: number;
  };
  webservices: Record<string, AdminWebserviceStatus>;
}

/**
 * `Admin_ServerStatus`: the version and start of the server, the Node.js runtime in the reference's
 * `java` member, the machine, and per web service the state of its engines from a real health
 * check (cached for HEALTH_TTL_MS) and the calls it answered since this instance started.
 */
export class ServerStatusService {
  private readonly jobs = new Map<string, JobCounts>(WEBSERVICES.map((name) => [name, { total: 0, failed: 0, executionTimeMs: 0, errors: new Map(), lastAt: 0 }]));
  private readonly machine = new MachineReader();
  /** When this instance loaded its configuration (a later change of the file needs a restart). */
  private readonly loadedAt = Date.now();
  private health?: { at: number; report: Promise<Readonly<Record<string, ExecutableState>>>; ttlMs: number };
  private lastHealth?: { states: Readonly<Record<string, ExecutableState>>; checkedAt: Date };

  constructor(readonly deps: ServerStatusDeps) {
    deps.events.on((event) => {
      const jobs = this.jobs.get(event.webservice);
      if (jobs) count(jobs, event);
    });
  }

  async serverStatus(): Promise<AdminServerStatus> {
    const [health, machine, gc, configChanged] = await Promise.all([this.engineHealth(), this.machine.read(), gcTotals(), this.configurationChanged()]);
    const heap = heapReading();
    const pools = this.deps.engines.stats();
    const [mainVersion = 0, minorVersion = 0] = this.deps.build.version.split('.').map((part) => Number.parseInt(part, 10) || 0);
    const provider = [{ name: 'embedded', fileName: '', format: 'plain' as const }];
    return {
      server: {
        configurations: {},
        hasChangedConfiguration: configChanged,
        licenseIsClusterUsage: false,
        licenseText: 'Apache License 2.0',
        mainVersion,
        minorVersion,
        providers: { documentStorage: provider, fileStorage: provider, sessionStorage: provider },
        serverPlatform: process.platform === 'win32' ? 'windows' : 'linux',
        serverStart: this.deps.startedAt.getTime(),
        serverVersion: this.deps.build.version,
      },
      java: {
        gc: gc.map((total) => ({ name: total.kind, collectionCount: total.count, collectionTime: Math.round(total.seconds * 1000) })),
        javaName: 'Node.js',
        javaVendor: 'OpenJS Foundation',
        javaVersion: process.versions.node,
        memoryAllocated: heap.allocated,
        memoryFree: heap.allocated - heap.used,
        memoryMax: heap.max,
        memoryTotalFree: heap.max - heap.used,
        memoryUsed: heap.used,
      },
      os: {
        container: { name: machine.container },
        cpuLogicalProcessors: machine.logicalProcessors,
        memoryCommittedVirtualSize: machine.processVirtualBytes,
        memoryFree: machine.memoryFree,
        memoryFreeSwapSize: machine.swapFree,
        memoryTotal: machine.memoryTotal,
        memoryTotalSwapSize: machine.swapTotal,
        osArchitecture: process.arch,
        osName: os.type(),
        osVersion: os.release(),
        processCpuLoad: machine.processCpuLoad,
        systemLoadAverage: machine.loadAverage,
      },
      webservices: Object.fromEntries(WEBSERVICES.map((name) => [name, this.webserviceStatus(name, health, pools)])),
    };
  }

  /** `Cluster_Status`: this server alone, or in cluster mode every member with its last heartbeat. */
  async clusterStatus(localAddress: string): Promise<ClusterStatus> {
    const cluster = this.deps.cluster;
    if (!cluster) return singleNodeClusterStatus(localAddress);
    return memberClusterStatus(await cluster.members(), { id: cluster.id, clusterName: this.deps.config.cluster.redis.keyPrefix }, localAddress);
  }

  /** What this node reports in its cluster heartbeat: load, engine health (the last check, as the health endpoint) and pools. */
  memberSnapshot(): Pick<MemberRecord, 'loadAverage' | 'cpuCount' | 'health' | 'engines' | 'pools'> {
    const last = this.lastEngineHealth();
    return {
      loadAverage: os.loadavg()[0] ?? 0,
      cpuCount: os.availableParallelism(),
      health: last ? healthWord(last.states) : 'STARTING',
      engines: last?.states ?? {},
      pools: this.deps.engines.stats().map(({ engine, size, ready, busy, starting, queued, queueLimit }) => ({ engine, size, ready, busy, starting, queued, queueLimit })),
    };
  }

  private webserviceStatus(name: WebserviceName, health: Readonly<Record<string, ExecutableState>>, pools: PoolStats[]): AdminWebserviceStatus {
    const engines = webserviceEngines(name);
    const executables = Object.fromEntries(
      engines.map((engine) => {
        // The reference's states have no `starting`: an engine still warming up is not known yet.
        const state = health[engine];
        const status: ExecutableStatusValue = state === undefined || state === 'starting' ? 'unknown' : state;
        return [engine, { enabled: status !== 'disabled', status }];
      }),
    );
    const own = pools.filter((pool) => engines.includes(pool.engine));
    const sum = (value: (pool: PoolStats) => number) => own.reduce((total, pool) => total + value(pool), 0);
    const jobs = this.jobs.get(name)!;
    return {
      enabled: engines.length > 0,
      executables,
      state: {
        instances: {
          maxPoolSize: sum((p) => p.size),
          maxQueueSize: sum((p) => p.queueLimit),
          maxUsedPoolSize: sum((p) => p.peakBusy),
          maxUsedQueueSize: sum((p) => p.peakQueued),
          poolSize: sum((p) => p.ready),
          queueSize: sum((p) => p.queued),
        },
        jobs: {
          errorDetails: Object.fromEntries([...jobs.errors].map(([code, count]) => [String(code), { code, count, description: describeError(code) }])),
          executionTimeMs: Math.round(jobs.executionTimeMs),
          lastJobId: jobs.total - 1,
          numberOfErrorJobs: jobs.failed,
          numberOfJobs: jobs.total,
          numberOfSuccessfulJobs: jobs.total - jobs.failed,
        },
        lastUpdate: jobs.lastAt || this.loadedAt,
      },
      status: overallStatus(engines.map((engine) => executables[engine]!.status)),
    };
  }

  private engineHealth(): Promise<Readonly<Record<string, ExecutableState>>> {
    const now = Date.now();
    if (!this.health || now - this.health.at >= this.health.ttlMs) {
      // A failed check must not fail the status call: its engines show as `unknown`.
      const report = this.deps.engines.health().catch(() => ({}));
      const health = { at: now, report, ttlMs: HEALTH_TTL_MS };
      this.health = health;
      void report.then((states) => {
        this.lastHealth = { states, checkedAt: new Date(health.at) };
        if (Object.values(states).some((state) => state !== 'ok' && state !== 'disabled')) health.ttlMs = FAILED_HEALTH_TTL_MS;
      });
    }
    return this.health.report;
  }

  /**
   * The last finished engine check, at once: the liveness probe must answer fast even while an engine
   * check hangs (up to its timeout). A check older than HEALTH_TTL_MS starts a new one in the
   * background; before the first one has finished there is nothing to report.
   */
  lastEngineHealth(): { states: Readonly<Record<string, ExecutableState>>; checkedAt: Date } | undefined {
    void this.engineHealth();
    return this.lastHealth;
  }

  /** The configuration file changed after this instance read it: a restart would apply something new. */
  private async configurationChanged(): Promise<boolean> {
    const file = this.deps.config.configFile;
    if (!file) return false;
    const info = await stat(file).catch(() => undefined);
    return info !== undefined && info.mtimeMs > this.loadedAt;
  }
}

/** The health endpoint's word: DEGRADED when an enabled engine failed its last check (the process still serves the rest). */
export function healthWord(states: Readonly<Record<string, ExecutableState>>): 'UP' | 'DEGRADED' {
  return Object.values(states).some((state) => state === 'error') ? 'DEGRADED' : 'UP';
}

/** The operations of one web service since this instance started. */
interface JobCounts {
  total: number;
  failed: number;
  executionTimeMs: number;
  /** Failures per webPDF errorCode. */
  errors: Map<number, number>;
  /** Epoch milliseconds when the last one ended; 0 before the first. */
  lastAt: number;
}

function count(jobs: JobCounts, event: OperationEvent): void {
  jobs.total++;
  jobs.executionTimeMs += event.durationMs;
  jobs.lastAt = event.startedAt + event.durationMs;
  if (!event.ok) {
    jobs.failed++;
    const code = event.errorCode ?? Errors.INTERNAL.errorCode;
    jobs.errors.set(code, (jobs.errors.get(code) ?? 0) + 1);
  }
}

/**
 * A web service is `ok` when every engine it needs answered; `error` when one that is switched on
 * did not; `disabled` when it has no engine (not offered) or one is switched off in the
 * configuration (the inputs that engine handles are refused; `executables` says which).
 */
function overallStatus(states: ExecutableStatusValue[]): WebserviceStatusValue {
  if (states.length === 0) return 'disabled';
  if (states.includes('error')) return 'error';
  if (states.includes('unknown')) return 'unknown';
  if (states.includes('disabled')) return 'disabled';
  return 'ok';
}

const ERROR_DESCRIPTIONS = new Map<number, string>(Object.values(Errors).map((entry) => [entry.errorCode, entry.description]));

function describeError(code: number): string {
  return ERROR_DESCRIPTIONS.get(code) ?? '';
}
