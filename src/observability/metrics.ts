import type { OperationEvents } from './operation-events.js';

/** The Prometheus metrics (prom-client). (Skeleton: the metrics helper fills it in.) */
export interface MetricsDeps {
  events: OperationEvents;
}

export class Metrics {
  constructor(readonly deps: MetricsDeps) {}

  close(): void {}
}
