import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HotCounter, HotHistogram } from '../../src/observability/metrics-hot.js';

const BOUNDS = [0.005, 0.01, 0.1, 1];
const observations: Array<[route: string, method: string, status: number, seconds: number]> = [
  ['/r/documents/:documentId/info', 'GET', 200, 0.004],
  ['/r/documents/:documentId/info', 'GET', 200, 0.005],
  ['/r/documents/:documentId/info', 'GET', 404, 0.02],
  ['/r/toolbox/:documentId', 'POST', 303, 3.5],
  ['/r/toolbox/:documentId', 'POST', 303, 0.1],
];

describe('hot-path counter and histogram', () => {
  it('write the same exposition (text and JSON) as prom-client Counter and Histogram fed the same calls', async () => {
    const reference = new Registry();
    const counter = new Counter({ name: 'x_requests_total', help: 'requests', labelNames: ['route', 'method', 'status'], registers: [reference] });
    const histogram = new Histogram({ name: 'x_duration_seconds', help: 'durations', labelNames: ['route', 'method'], buckets: BOUNDS, registers: [reference] });
    const ours = new Registry();
    const hotCounter = new HotCounter('x_requests_total', 'requests', ours);
    const hotHistogram = new HotHistogram('x_duration_seconds', 'durations', ours, BOUNDS);

    for (const [route, method, status, seconds] of observations) {
      counter.inc({ route, method, status: String(status) });
      histogram.observe({ route, method }, seconds);
      hotCounter.of(`${method} ${status} ${route}`, () => ({ route, method, status: String(status) })).value += 1;
      hotHistogram.observe(
        hotHistogram.of(`${method} ${route}`, () => ({ route, method })),
        seconds,
      );
    }

    expect(await ours.metrics()).toBe(await reference.metrics());
    // prom-client's JSON also carries an empty exemplar per value; the values and labels are the same.
    const withoutExemplars = (metrics: Array<{ values: object[] }>) => metrics.map((m) => ({ ...m, values: m.values.map(({ exemplar: _, ...v }: { exemplar?: unknown }) => v) }));
    expect(withoutExemplars(await ours.getMetricsAsJSON())).toEqual(withoutExemplars(await reference.getMetricsAsJSON()));
    // A reset empties both, as prom-client's resetMetrics() does.
    ours.resetMetrics();
    reference.resetMetrics();
    expect(await ours.metrics()).toBe(await reference.metrics());
  });
});
