import { WorkerPool } from '../../pool/worker-pool.js';
import type { DecodeJob, FoundCode } from './protocol.js';
import { ThreadWorker } from './thread-worker.js';

export interface DetectorSettings {
  /** Worker threads decoding at once. */
  workers: number;
  /** Images that may wait for a thread; past it calls are refused with 429. */
  queueLimit: number;
  /** Most milliseconds one image may take; then its thread is terminated and replaced. */
  jobTimeoutMs: number;
  /** Heap cap of each thread, in MB. */
  memoryMb: number;
}

export type DecodeOptions = Omit<DecodeJob, 'id' | 'image'>;

/**
 * Barcode detection in a bounded pool of worker threads (zxing-wasm). The pool starts with the
 * first image, not with the server: a server that never detects never compiles the decoder.
 */
export class BarcodeDetector {
  private pool?: Promise<WorkerPool<Omit<DecodeJob, 'id'>, FoundCode[]>>;

  constructor(private readonly settings: DetectorSettings) {}

  async decode(image: Uint8Array, options: DecodeOptions): Promise<FoundCode[]> {
    const pool = await this.started();
    return pool.run({ ...options, image });
  }

  /** Ends the threads (server shutdown, tests). */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    if (pool) await (await pool.catch(() => undefined))?.close();
  }

  private started(): Promise<WorkerPool<Omit<DecodeJob, 'id'>, FoundCode[]>> {
    if (!this.pool) {
      const { workers, queueLimit, jobTimeoutMs, memoryMb } = this.settings;
      const pool = new WorkerPool<Omit<DecodeJob, 'id'>, FoundCode[]>({
        name: 'barcode',
        size: workers,
        queueLimit,
        jobTimeoutMs,
        queueTimeoutMs: jobTimeoutMs,
        maxJobsPerWorker: 0,
        maxMemoryBytes: 0,
        healthIntervalMs: 0,
        create: () => ThreadWorker.start(memoryMb),
      });
      this.pool = pool.start().then(
        () => pool,
        (error: unknown) => {
          this.pool = undefined;
          throw error;
        },
      );
    }
    return this.pool;
  }
}
