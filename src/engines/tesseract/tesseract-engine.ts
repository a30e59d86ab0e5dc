import { WorkerPool, type PoolSettings, type PoolStats } from '../pool/worker-pool.js';
import type { JobOptions } from '../contracts.js';
import type { OrientationResult, RecognizeJob, RecognizeResult, TesseractJob, TesseractResult } from './jobs.js';
import { startTesseractWorker, type TesseractWorkerOptions } from './tesseract-worker.js';

export interface TesseractEngineOptions extends PoolSettings, TesseractWorkerOptions {}

/**
 * Tesseract under the pool supervisor (engines/pool/worker-pool.ts): `size` slots (one per core by
 * default), each running one single-threaded `tesseract` at a time; pages of one document go to the
 * pool one job each, so they are recognised in parallel and pages of other calls queue among them in
 * arrival order. A page that passes the time limit is killed (`PoolError` timeout), a full queue is
 * `busy` (429). See tesseract-worker.ts for why a slot is a process per page.
 */
export class TesseractEngine {
  readonly pool: WorkerPool<TesseractJob, TesseractResult>;

  constructor(options: TesseractEngineOptions) {
    const { executable, tessdata, memoryCapBytes, env, ...pool } = options;
    this.pool = new WorkerPool<TesseractJob, TesseractResult>({
      name: 'tesseract',
      ...pool,
      // The cap of a run is prlimit's (RLIMIT_AS), not the pool's polling.
      memoryLimitBytes: 0,
      create: () => startTesseractWorker({ executable, tessdata, memoryCapBytes, env }),
    });
  }

  start(): Promise<void> {
    return this.pool.start();
  }

  async recognize(job: Omit<RecognizeJob, 'kind'>, options?: JobOptions): Promise<RecognizeResult> {
    return (await this.pool.run({ kind: 'recognize', ...job }, options)) as RecognizeResult;
  }

  async orientation(image: string, dpi: number, options?: JobOptions): Promise<OrientationResult> {
    return (await this.pool.run({ kind: 'orientation', image, dpi }, options)) as OrientationResult;
  }

  stats(): PoolStats {
    return this.pool.stats();
  }

  healthy(): Promise<boolean> {
    return this.pool.healthy();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
