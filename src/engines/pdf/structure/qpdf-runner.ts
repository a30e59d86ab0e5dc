import { QpdfRunner } from '../qpdf.js';

/**
 * The qpdf runner of the structure engine. One per time limit: the runner holds no state besides its
 * options, so sharing it between calls is safe.
 */
const runners = new Map<number, QpdfRunner>();

export function structureQpdf(timeoutMs: number): QpdfRunner {
  let runner = runners.get(timeoutMs);
  if (!runner) {
    runner = new QpdfRunner({ qpdfPath: 'qpdf', timeoutMs });
    runners.set(timeoutMs, runner);
  }
  return runner;
}
