import type { Metric, MetricValue, Registry } from 'prom-client';

/**
 * A counter and a histogram for the per-request hot path, registered in a prom-client registry
 * that formats them like its own. prom-client hashes the label object on every inc/observe (also
 * through `labels()`), a visible share of the CPU of the most frequent call (`GET info`); here the
 * caller keeps the handle of a series (looked up once by a key it builds cheaply) and an update is
 * an addition. The exposition is the same text prom-client's Counter and Histogram write.
 */
type LabelValues = Record<string, string>;

/** What prom-client's registry reads from a metric (`MetricObjectWithValues` without its collect). */
interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: MetricValue<string>[];
}

abstract class HotMetric<S> {
  protected readonly series = new Map<string, S>();
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';

  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    // The registry reads a metric through get() and reset() only (duck-typed, as for custom collectors).
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of `key` (label values as one string), made from `labels()` on first use. */
  of(key: string, labels: () => LabelValues): S {
    let series = this.series.get(key);
    if (series === undefined) {
      series = this.create(labels());
      this.series.set(key, series);
    }
    return series;
  }

  reset(): void {
    this.series.clear();
  }

  /** For the text exposition: a histogram's series labels stay apart from `le`, as prom-client's own. */
  getForPromString(): MetricData {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() };
  }

  /** For JSON (`getMetricsAsJSON`): one label set per value. */
  get(): MetricData {
    const data = this.getForPromString();
    data.values = data.values.map((v) => {
      const { sharedLabels, ...value } = v as MetricValue<string> & { sharedLabels?: LabelValues };
      return { ...value, labels: { ...v.labels, ...sharedLabels } };
    });
    return data;
  }

  protected abstract create(labels: LabelValues): S;
  protected abstract values(): MetricValue<string>[];
}

export interface CounterSeries {
  readonly labels: LabelValues;
  value: number;
}

export class HotCounter extends HotMetric<CounterSeries> {
  readonly type = 'counter' as const;

  protected create(labels: LabelValues): CounterSeries {
    return { labels, value: 0 };
  }

  protected values(): MetricValue<string>[] {
    return [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value }));
  }
}

export interface HistogramSeries {
  readonly labels: LabelValues;
  /** Per bucket (not cumulative), the last one for values above every bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class HotHistogram extends HotMetric<HistogramSeries> {
  readonly type = 'histogram' as const;

  constructor(
    name: string,
    help: string,
    registry: Registry,
    private readonly bounds: readonly number[],
  ) {
    super(name, help, registry);
  }

  observe(series: HistogramSeries, value: number): void {
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]!) bucket += 1;
    series.counts[bucket]! += 1;
    series.sum += value;
    series.count += 1;
  }

  protected create(labels: LabelValues): HistogramSeries {
    return { labels, counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
  }

  protected values(): MetricValue<string>[] {
    const bucket = `${this.name}_bucket`;
    const out: Array<MetricValue<string> & { metricName: string; sharedLabels?: LabelValues }> = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += s.counts[i]!;
        out.push({ labels: { le: bound as unknown as string }, sharedLabels: s.labels, value: cumulative, metricName: bucket });
      });
      out.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      out.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}
