import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { PoolStats } from '../../../core/pool-stats.js';
import { type PoolEvents, WorkerPool } from '../../pool/worker-pool.js';
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

type JobListener = (...job: PoolEvents['job']) => void;

/**
 * Barcode detection in a bounded pool of worker threads (zxing-wasm). The pool starts with the
 * first image, not with the server: a server that never detects never compiles the decoder (each
 * thread holds its own compiled module). The server wires it like its other pools
 * (engines-wiring.ts): stats and job events for the metrics, a health check, closed on shutdown.
 */
export class BarcodeDetector {
  private pool?: Promise<WorkerPool<Omit<DecodeJob, 'id'>, FoundCode[]>>;
  private running?: WorkerPool<Omit<DecodeJob, 'id'>, FoundCode[]>;
  private readonly listeners = new Set<JobListener>();

  constructor(private readonly settings: DetectorSettings) {}

  /** The pool's figures; before the first detection an empty pool of its configured size. */
  stats(): PoolStats {
    if (this.running) return this.running.stats();
    const zero = { ready: 0, busy: 0, starting: 0, queued: 0, completed: 0, failed: 0, timeouts: 0, crashes: 0, rejected: 0, restarts: 0, averageJobMs: 0, peakBusy: 0, peakQueued: 0 };
    return { engine: 'barcode', size: this.settings.workers, queueLimit: this.settings.queueLimit, ...zero };
  }

  /**
   * True when the engine can work: a started pool answers a ping; before the first detection the
   * decoder's WebAssembly file must be readable (starting threads for a health check would hold
   * their memory for nothing).
   */
  async healthy(): Promise<boolean> {
    if (this.running) return this.running.healthy();
    try {
      await access(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
      return true;
    } catch {
      return false;
    }
  }

  /** Calls `listener` after every detection job (the metrics); returns the function that stops it. */
  onJob(listener: JobListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async decode(image: Uint8Array, options: DecodeOptions): Promise<FoundCode[]> {
    const pool = await this.started();
    return pool.run({ ...options, image });
  }

  /** Ends the threads (server shutdown, tests). */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.running = undefined;
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
      pool.on('job', (...job) => {
        for (const listener of this.listeners) listener(...job);
      });
      this.pool = pool.start().then(
        () => {
          this.running = pool;
          return pool;
        },
        (error: unknown) => {
          this.pool = undefined;
          throw error;
        },
      );
    }
    return this.pool;
  }
}
