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

/**
 * A gauge whose values are read from their source when Prometheus scrapes, so that nothing has to
 * push updates (pool sizes, active sessions, stored bytes).
 */
export function scrapedGauge<L extends string>(registry: Registry, metric: ScrapedMetric<L>): Gauge<L> {
  return new Gauge<L>({
    name: metric.name,
    help: metric.help,
    labelNames: metric.labelNames ?? [],
    registers: [registry],
    async collect() {
      const samples = await metric.read();
      this.reset();
      for (const [labels, value] of samples) this.set(labels, value);
    },
  });
}

/**
 * A counter mirrored at scrape time from a running total its source keeps anyway (pool job counts,
 * sessions created): the totals only grow during the life of their source, and a new server
 * instance starts both the source and this counter at zero.
 */
export function scrapedCounter<L extends string>(registry: Registry, metric: ScrapedMetric<L>): Counter<L> {
  return new Counter<L>({
    name: metric.name,
    help: metric.help,
    labelNames: metric.labelNames ?? [],
    registers: [registry],
    async collect() {
      const samples = await metric.read();
      this.reset();
      for (const [labels, value] of samples) this.inc(labels, value);
    },
  });
}
