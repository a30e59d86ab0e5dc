import { Counter, Histogram, type Registry } from 'prom-client';
import { isWebservice, WEBSERVICES } from '../core/webservices.js';
import { HotCounter, HotHistogram } from './metrics-hot.js';
import { METRIC_PREFIX } from './metrics-process.js';
import type { OperationEvents } from './operation-events.js';

/** Seconds; from a GET info (milliseconds) to long conversions. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * Requests and web-service operations, counted from the OperationEvents the HTTP layer emits for
 * every answered request under the REST base. Labels are route patterns and web-service names,
 * never raw paths, so the number of series stays bounded. Returns the function that stops counting.
 */
export function observeCalls(registry: Registry, events: OperationEvents): () => void {
  const registers = [registry];
  const requests = new HotCounter(`${METRIC_PREFIX}http_requests_total`, 'HTTP requests under the REST base, by route pattern, method and status code', registry);
  const requestTime = new HotHistogram(
    `${METRIC_PREFIX}http_request_duration_seconds`,
    'Time from receiving a request under the REST base to the end of its response, by route pattern and method',
    registry,
    REQUEST_BUCKETS,
  );
  const operations = new Counter({
    name: `${METRIC_PREFIX}operations_total`,
    help: 'Operations of the web services (converter, toolbox, pdfa, ...) by result (ok, failed) and webPDF errorCode of failures',
    labelNames: ['webservice', 'result', 'error_code'] as const,
    registers,
  });
  const operationTime = new Histogram({
    name: `${METRIC_PREFIX}operation_duration_seconds`,
    help: 'Duration of the web-service operations by result',
    labelNames: ['webservice', 'result'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const bytes = new Counter({
    name: `${METRIC_PREFIX}operation_bytes_total`,
    help: 'Request (in) and response (out) body bytes of the web-service operations, as far as Content-Length tells',
    labelNames: ['webservice', 'direction'] as const,
    registers,
  });
  // Every web service has its series from the start, so that rate() works from the first operation.
  for (const webservice of WEBSERVICES) operations.inc({ webservice, result: 'ok', error_code: '' }, 0);

  return events.on((event) => {
    const seconds = event.durationMs / 1000;
    const { route, method, statusCode } = event;
    requests.of(`${method} ${statusCode} ${route}`, () => ({ route, method, status: String(statusCode) })).value += 1;
    requestTime.observe(
      requestTime.of(`${method} ${route}`, () => ({ route, method })),
      seconds,
    );
    if (!isWebservice(event.webservice) || event.accepted) return;
    const result = event.ok ? 'ok' : 'failed';
    operations.inc({ webservice: event.webservice, result, error_code: event.errorCode === undefined ? '' : String(event.errorCode) });
    operationTime.observe({ webservice: event.webservice, result }, seconds);
    if (event.bytesIn > 0) bytes.inc({ webservice: event.webservice, direction: 'in' }, event.bytesIn);
    if (event.bytesOut > 0) bytes.inc({ webservice: event.webservice, direction: 'out' }, event.bytesOut);
  });
}
