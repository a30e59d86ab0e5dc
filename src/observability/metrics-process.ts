import { collectDefaultMetrics, Registry } from 'prom-client';

/** Every metric name Quire exposes starts with this. */
export const METRIC_PREFIX = 'quire_';

let registry: Registry | undefined;

/**
 * Process and event-loop metrics: prom-client's default collectors. They describe the process, not
 * one server instance, and they cannot be stopped (each registration starts an event-loop delay
 * monitor and a GC observer for good). So they live once per process in a registry of their own
 * (never prom-client's global one), which every `Metrics` appends to its own on a scrape: an
 * in-process restart or several test servers in one process neither leak collectors nor report the
 * process twice.
 */
export function processRegistry(): Registry {
  if (!registry) {
    registry = new Registry();
    // The event-loop delay monitor is a timer that fires every `eventLoopMonitoringPrecision` ms for
    // the life of the process, busy or idle. At prom-client's 10 ms it cost 10 ms of CPU per second
    // (1 % of a core; an idle server's largest cost, and three times that for three nodes on one
    // machine): measured with process.cpuUsage() over 20 s, 10 ms → 10.0 ms/s, 100 ms → 1.0 ms/s,
    // none → 0.1 ms/s. At 100 ms a stall still shows in the lag percentiles; one far shorter than
    // 100 ms may fall between two samples, which is no loss for an alert on a blocked loop.
    collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX, eventLoopMonitoringPrecision: 100 });
  }
  return registry;
}

export interface GcTotal {
  /** V8's kind of collection: major, minor, incremental, weakcb. */
  kind: string;
  count: number;
  seconds: number;
}

/** The garbage collections of the process since its metrics started, per kind (from the GC histogram). */
export async function gcTotals(): Promise<GcTotal[]> {
  const metric = processRegistry().getSingleMetric(`${METRIC_PREFIX}nodejs_gc_duration_seconds`);
  if (!metric) return [];
  const totals = new Map<string, GcTotal>();
  // A histogram's values carry the name of their series (_bucket, _sum, _count); the type omits it.
  const values = (await metric.get()).values as Array<{ metricName?: string; labels: Record<string, string | number | undefined>; value: number }>;
  for (const { metricName, labels, value } of values) {
    const kind = String(labels.kind ?? 'unknown');
    const total = totals.get(kind) ?? { kind, count: 0, seconds: 0 };
    if (metricName?.endsWith('_count')) total.count = value;
    else if (metricName?.endsWith('_sum')) total.seconds = value;
    else continue;
    totals.set(kind, total);
  }
  return [...totals.values()];
}
