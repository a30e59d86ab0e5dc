import { Histogram, type Registry } from 'prom-client';
import { scrapedCounter, scrapedGauge, type Sample } from './metrics-collected.js';
import type { PoolStats } from '../core/pool-stats.js';
import { METRIC_PREFIX } from './metrics-process.js';

/** What the metrics read of one engine pool. */
export type PoolSnapshot = Omit<PoolStats, 'averageJobMs' | 'peakBusy' | 'peakQueued'>;

export interface PoolJobEvent {
  engine: string;
  /** ok, failed, timeout, crashed, poisoned */
  outcome: string;
  durationMs: number;
  queuedMs: number;
}

export interface EngineMetricsSource {
  stats(): PoolSnapshot[];
  onJob(listener: (job: PoolJobEvent) => void): () => void;
}

const JOB_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * The engine pools: sizes, queues and job counts are read from the pools at scrape time; job and
 * queue-wait times are observed from the pools' `job` events. Returns the function that stops
 * observing.
 */
export function observeEngines(registry: Registry, engines: EngineMetricsSource): () => void {
  const perPool = (value: (pool: PoolSnapshot) => number) => (): Sample<'engine'>[] => engines.stats().map((pool) => [{ engine: pool.engine }, value(pool)]);

  scrapedGauge(registry, {
    name: `${METRIC_PREFIX}engine_workers`,
    help: 'Workers of each engine pool by state: busy (running a job), idle (ready for one), starting',
    labelNames: ['engine', 'state'],
    read: () =>
      engines.stats().flatMap((pool): Sample<'engine' | 'state'>[] => [
        [{ engine: pool.engine, state: 'busy' }, pool.busy],
        [{ engine: pool.engine, state: 'idle' }, Math.max(0, pool.ready - pool.busy)],
        [{ engine: pool.engine, state: 'starting' }, pool.starting],
      ]),
  });
  scrapedGauge(registry, { name: `${METRIC_PREFIX}engine_pool_size`, help: 'Configured workers of each engine pool', labelNames: ['engine'], read: perPool((p) => p.size) });
  scrapedGauge(registry, { name: `${METRIC_PREFIX}engine_queued_jobs`, help: 'Jobs waiting for a worker', labelNames: ['engine'], read: perPool((p) => p.queued) });
  scrapedGauge(registry, { name: `${METRIC_PREFIX}engine_queue_limit`, help: 'Jobs that may wait before calls are refused (429)', labelNames: ['engine'], read: perPool((p) => p.queueLimit) });
  scrapedCounter(registry, {
    name: `${METRIC_PREFIX}engine_jobs_total`,
    help: 'Jobs that ran on an engine pool, by result (ok; failed includes timeouts and crashes)',
    labelNames: ['engine', 'result'],
    read: () =>
      engines.stats().flatMap((pool): Sample<'engine' | 'result'>[] => [
        [{ engine: pool.engine, result: 'ok' }, pool.completed],
        [{ engine: pool.engine, result: 'failed' }, pool.failed],
      ]),
  });
  scrapedCounter(registry, { name: `${METRIC_PREFIX}engine_job_timeouts_total`, help: 'Jobs killed at their time limit', labelNames: ['engine'], read: perPool((p) => p.timeouts) });
  scrapedCounter(registry, { name: `${METRIC_PREFIX}engine_job_crashes_total`, help: 'Jobs whose worker died under them', labelNames: ['engine'], read: perPool((p) => p.crashes) });
  scrapedCounter(registry, {
    name: `${METRIC_PREFIX}engine_jobs_rejected_total`,
    help: 'Jobs refused without running: queue full, no worker within the queue timeout, or a document that hung or crashed the engine twice',
    labelNames: ['engine'],
    read: perPool((p) => p.rejected),
  });
  scrapedCounter(registry, {
    name: `${METRIC_PREFIX}engine_restarts_total`,
    help: 'Workers replaced: after a crash, a timeout, a failed health check, or recycling',
    labelNames: ['engine'],
    read: perPool((p) => p.restarts),
  });

  const jobTime = new Histogram({
    name: `${METRIC_PREFIX}engine_job_duration_seconds`,
    help: 'Time a job ran on an engine worker, by outcome (ok, failed, timeout, crashed)',
    labelNames: ['engine', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [registry],
  });
  const queueWait = new Histogram({
    name: `${METRIC_PREFIX}engine_queue_wait_seconds`,
    help: 'Time a job waited for a free engine worker',
    labelNames: ['engine'] as const,
    buckets: JOB_BUCKETS,
    registers: [registry],
  });
  return engines.onJob((job) => {
    // Refused documents (poisoned) never reached a worker: counted as rejected, not timed.
    if (job.outcome === 'poisoned') return;
    jobTime.observe({ engine: job.engine, outcome: job.outcome }, job.durationMs / 1000);
    queueWait.observe({ engine: job.engine }, job.queuedMs / 1000);
  });
}
