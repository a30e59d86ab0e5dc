import { Counter, Gauge, type Registry } from 'prom-client';

/** One series of a metric read at scrape time: its label values and its current value. */
export type Sample<L extends string> = [labels: Partial<Record<L, string>>, value: number];

interface ScrapedMetric<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Reads the current values; runs on every scrape. */
  read(): Sample<L>[] | Promise<Sample<L>[]>;
}

/** The options both kinds share: name, help, labels, registry, and a collect() that mirrors `read()`. */
function mirrored<L extends string, M extends { reset(): void }>(registry: Registry, metric: ScrapedMetric<L>, write: (into: M, labels: Sample<L>[0], value: number) => void) {
  return {
    name: metric.name,
    help: metric.help,
    labelNames: metric.labelNames ?? [],
    registers: [registry],
    async collect(this: M) {
      const samples = await metric.read();
      this.reset();
      for (const [labels, value] of samples) write(this, labels, value);
    },
  };
}

/**
 * A gauge whose values are read from their source when Prometheus scrapes, so that nothing has to
 * push updates (pool sizes, active sessions, stored bytes).
 */
export function scrapedGauge<L extends string>(registry: Registry, metric: ScrapedMetric<L>): Gauge<L> {
  return new Gauge<L>(mirrored<L, Gauge<L>>(registry, metric, (gauge, labels, value) => gauge.set(labels, value)));
}

/**
 * A counter mirrored at scrape time from a running total its source keeps anyway (pool job counts,
 * sessions created): the totals only grow during the life of their source, and a new server
 * instance starts both the source and this counter at zero.
 */
export function scrapedCounter<L extends string>(registry: Registry, metric: ScrapedMetric<L>): Counter<L> {
  return new Counter<L>(mirrored<L, Counter<L>>(registry, metric, (counter, labels, value) => counter.inc(labels, value)));
}
