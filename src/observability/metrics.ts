import { Registry } from 'prom-client';
import { observeCalls } from './metrics-calls.js';
import { observeEngines, type EngineMetricsSource } from './metrics-engines.js';
import { processRegistry } from './metrics-process.js';
import { observeQueue, type QueueMetricsSource } from './metrics-queue.js';
import { observeState, type StateMetricsSources } from './metrics-state.js';
import type { OperationEvents } from './operation-events.js';

export interface MetricsDeps extends StateMetricsSources {
  events: OperationEvents;
  engines: EngineMetricsSource;
  queue: QueueMetricsSource;
}

/**
 * The Prometheus metrics of one server instance (prom-client), in a registry of its own: an
 * in-process restart builds a new instance, and tests run several servers in one process, so
 * nothing may go to prom-client's global registry. The process-wide metrics come from
 * `processRegistry()` and are appended on every scrape. Every name starts with `quire_`; the list
 * is in docs/administration.md.
 */
export class Metrics {
  /** The Prometheus text exposition format 0.0.4. */
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
  private readonly registry = new Registry();
  private readonly stops: Array<() => void>;

  constructor(deps: MetricsDeps) {
    processRegistry();
    this.stops = [observeCalls(this.registry, deps.events), observeEngines(this.registry, deps.engines)];
    observeState(this.registry, deps);
    observeQueue(this.registry, deps.queue);
  }

  /** The exposition text: this instance's metrics, then the process's. */
  async scrape(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), processRegistry().metrics()]);
    return own + process;
  }

  close(): void {
    for (const stop of this.stops) stop();
    this.registry.clear();
  }
}
