import type { Registry } from 'prom-client';
import { scrapedCounter, scrapedGauge } from './metrics-collected.js';
import { METRIC_PREFIX } from './metrics-process.js';

/** What the work queue tells about itself (declared here: observability does not import operations). */
export interface QueueMetricsSource {
  stats(): Promise<{ byKind: Record<string, Record<string, number>>; maxPending: number }>;
  /** Outcomes per kind since the server (re)started. */
  readonly outcomes: Readonly<Record<string, Readonly<{ done: number; retried: number; failedPermanently: number }>>>;
}

/** The durable work queue: depth per kind and state, its bound, and outcomes (retries, permanent failures). */
export function observeQueue(registry: Registry, queue: QueueMetricsSource): void {
  scrapedGauge(registry, {
    name: `${METRIC_PREFIX}queue_entries`,
    help: 'Entries of the work queue by kind (job, webhook, session-cleanup) and state (PENDING, RUNNING, DONE, FAILED_PERMANENT = the replay queue)',
    labelNames: ['kind', 'state'],
    read: async () =>
      Object.entries((await queue.stats()).byKind).flatMap(([kind, states]) => Object.entries(states).map(([state, count]) => [{ kind, state }, count] as [{ kind: string; state: string }, number])),
  });
  scrapedGauge(registry, {
    name: `${METRIC_PREFIX}queue_max_pending`,
    help: 'Waiting or running entries past which calls get 429 (queue.maxPending)',
    read: async () => [[{}, (await queue.stats()).maxPending]],
  });
  scrapedCounter(registry, {
    name: `${METRIC_PREFIX}queue_outcomes_total`,
    help: 'Attempts of queue entries by kind and outcome (done, retried, failed_permanently) since the server (re)started',
    labelNames: ['kind', 'outcome'],
    read: () =>
      Object.entries(queue.outcomes).flatMap(([kind, o]) => [
        [{ kind, outcome: 'done' }, o.done] as [{ kind: string; outcome: string }, number],
        [{ kind, outcome: 'retried' }, o.retried] as [{ kind: string; outcome: string }, number],
        [{ kind, outcome: 'failed_permanently' }, o.failedPermanently] as [{ kind: string; outcome: string }, number],
      ]),
  });
}
