import { WorkerPool, type PoolStats, type RunOptions } from '../pool/worker-pool.js';
import { ChromiumWorker } from './chromium-worker.js';
import type { HtmlJob, HtmlResult } from './types.js';
import type { UrlJob, UrlResult } from './url-job.js';

export interface ChromiumEngineOptions {
  /** Warm browsers. */
  size?: number;
  /** Jobs that may wait for a browser; past it conversions are refused with `busy`. */
  queueLimit?: number;
  /** Time limit of one conversion, ms; the browser is killed and replaced when it passes. */
  jobTimeoutMs?: number;
  /** How long a conversion may wait for a browser, ms. */
  queueTimeoutMs?: number;
  /** Replace a browser after this many conversions (0: never). */
  maxJobsPerWorker?: number;
  /** Replace a browser whose processes together hold more than this (resident anonymous + shared memory), bytes (0: never). */
  maxMemoryBytes?: number;
  /** Kill a browser whose processes pass this while it renders, failing the job with MemoryLimitError, bytes (0: never). */
  memoryLimitBytes?: number;
  /** Ping idle browsers this often, ms (0: never). */
  healthIntervalMs?: number;
  executablePath?: string;
  /** Added to the browsers' environment, e.g. FONTCONFIG_FILE for the server's fonts. */
  env?: Record<string, string>;
  /** Longest wait for a page's resources, ms (a job's wait is at most half its time limit). */
  loadTimeoutMs?: number;
  /** Parent directory of the browsers' profile directories; default the OS temp dir. */
  tempDir?: string;
}

export const CHROMIUM_ENGINE_DEFAULTS = {
  size: 2,
  queueLimit: 50,
  jobTimeoutMs: 60_000,
  queueTimeoutMs: 60_000,
  maxJobsPerWorker: 100,
  maxMemoryBytes: 1024 * 1024 * 1024,
  memoryLimitBytes: 0,
  healthIntervalMs: 30_000,
  executablePath: '/usr/bin/chromium',
  loadTimeoutMs: 20_000,
} as const;

/**
 * HTML → PDF with warm Chromium browsers under a `WorkerPool`: queueing, time limits, crash retry,
 * recycling and health checks are the pool's; each conversion runs in a fresh incognito context.
 *
 * `convert` rejects with `HtmlEngineError` for the job's own failures and `PoolError` (`busy`,
 * `timeout`, `poisoned`, `unavailable`) for the supervisor's.
 */
export class ChromiumEngine {
  /** For metrics: emits `job` and `restart` events. */
  readonly pool: WorkerPool<HtmlJob | UrlJob, HtmlResult>;
  private readonly jobTimeoutMs: number;
  private readonly loadTimeoutMs: number;

  constructor(options: ChromiumEngineOptions = {}) {
    const settings = { ...CHROMIUM_ENGINE_DEFAULTS, ...withoutUndefined(options) };
    this.jobTimeoutMs = settings.jobTimeoutMs;
    this.loadTimeoutMs = settings.loadTimeoutMs;
    this.pool = new WorkerPool<HtmlJob | UrlJob, HtmlResult>({
      name: 'chromium',
      size: settings.size,
      queueLimit: settings.queueLimit,
      jobTimeoutMs: settings.jobTimeoutMs,
      queueTimeoutMs: settings.queueTimeoutMs,
      maxJobsPerWorker: settings.maxJobsPerWorker,
      maxMemoryBytes: settings.maxMemoryBytes,
      memoryLimitBytes: settings.memoryLimitBytes,
      healthIntervalMs: settings.healthIntervalMs,
      create: () =>
        ChromiumWorker.launch({
          executablePath: settings.executablePath,
          loadTimeoutMs: settings.loadTimeoutMs,
          ...(options.env === undefined ? {} : { env: options.env }),
          ...(options.tempDir === undefined ? {} : { tempDir: options.tempDir }),
        }),
    });
  }

  /** Starts the browsers; rejects with `PoolError('unavailable')` when not one of them starts. */
  start(): Promise<void> {
    return this.pool.start();
  }

  convert(job: HtmlJob, options: RunOptions = {}): Promise<HtmlResult> {
    // Leave half of the time limit for printing: a page whose resources hang is printed as it is
    // instead of costing a killed browser.
    const loadTimeoutMs = job.loadTimeoutMs ?? Math.min(this.loadTimeoutMs, Math.floor((options.timeoutMs ?? this.jobTimeoutMs) / 2));
    return this.pool.run({ ...job, loadTimeoutMs }, options);
  }

  /** A web page → PDF (render-url.ts) in the same browsers, under the same supervision. */
  convertUrl(job: UrlJob, options: RunOptions = {}): Promise<UrlResult> {
    return this.pool.run(job, options) as Promise<UrlResult>;
  }

  stats(): PoolStats {
    return this.pool.stats();
  }

  healthy(): Promise<boolean> {
    return this.pool.healthy();
  }

  /** Replaces every browser once idle, e.g. after fonts were installed. */
  recycleAll(reason: string): void {
    this.pool.recycleAll(reason);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
