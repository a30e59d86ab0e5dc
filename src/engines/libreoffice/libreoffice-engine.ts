import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkerPool, type PoolSettings, type PoolStats, type RunOptions } from '../pool/worker-pool.js';
import type { PoolWorker } from '../pool/worker.js';
import { OneShotWorker } from './one-shot-worker.js';
import { UnoWorker, type UnoJob, type UnoResult } from './uno-worker.js';

/** The UNO driver script, at the same place relative to this module in `src/` and in `dist/`. */
const UNO_SCRIPT = fileURLToPath(new URL('../../../resources/uno_worker.py', import.meta.url));

export interface LibreOfficeEngineOptions extends PoolSettings {
  /** Where worker profiles and one-shot scratch directories live. */
  workDir: string;
  startTimeoutMs: number;
  soffice: string;
  /** Debian's Python with the `uno` module (the `python3` on PATH may be another one). */
  python: string;
  /** Environment of soffice (e.g. FONTCONFIG_FILE for the data dir's fonts folder). */
  env: NodeJS.ProcessEnv;
  /** Called once when the warm pool cannot start and one-shot conversion is used instead. */
  onFallback?: (reason: Error) => void;
}

export const LIBREOFFICE_DEFAULTS = {
  soffice: '/usr/lib/libreoffice/program/soffice.bin',
  python: '/usr/bin/python3',
  startTimeoutMs: 60_000,
};

/**
 * Office documents to PDF through a pool of warm LibreOffice listeners (see `UnoWorker`). When not a
 * single listener starts, it falls back to one `soffice --convert-to` per job, with a warning.
 */
export class LibreOfficeEngine {
  private pool?: WorkerPool<UnoJob, UnoResult>;
  private mode: 'warm' | 'oneShot' = 'warm';
  private generation = 0;

  constructor(private readonly options: LibreOfficeEngineOptions) {}

  get name(): string {
    return 'libreoffice';
  }

  /** `warm` (UNO listeners) or `oneShot` (fallback). */
  get running(): 'warm' | 'oneShot' {
    return this.mode;
  }

  async start(): Promise<void> {
    await mkdir(this.options.workDir, { recursive: true });
    try {
      this.pool = this.createPool((slot) => this.startUnoWorker(slot));
      await this.pool.start();
    } catch (error) {
      this.mode = 'oneShot';
      this.options.onFallback?.(error as Error);
      this.pool = this.createPool(async () => new OneShotWorker(this.options.soffice, this.options.workDir, this.options.env));
      await this.pool.start();
    }
  }

  /** Converts one document; rejects with `UnoJobError` (the document) or `PoolError` (the engine). */
  convert(job: UnoJob, options?: RunOptions): Promise<UnoResult> {
    if (!this.pool) throw new Error('LibreOffice engine not started');
    return this.pool.run(job, options);
  }

  /** The pool, for metrics (`job` and `restart` events). */
  get events(): WorkerPool<UnoJob, UnoResult> | undefined {
    return this.pool;
  }

  stats(): PoolStats | undefined {
    return this.pool?.stats();
  }

  healthy(): Promise<boolean> {
    return this.pool ? this.pool.healthy() : Promise.resolve(false);
  }

  recycleAll(reason: string): void {
    this.pool?.recycleAll(reason);
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  private createPool(create: (slot: number) => Promise<PoolWorker<UnoJob, UnoResult>>): WorkerPool<UnoJob, UnoResult> {
    // The options carry the pool settings (PoolSettings); the pool ignores the rest.
    return new WorkerPool<UnoJob, UnoResult>({ ...this.options, name: this.name, create });
  }

  private async startUnoWorker(slot: number): Promise<UnoWorker> {
    if (!existsSync(this.options.python)) throw new Error(`${this.options.python} not found (install python3-uno)`);
    // A profile per start: a killed soffice can leave its profile locked or half-written.
    const generation = ++this.generation;
    const profileDir = path.join(this.options.workDir, `profile-${slot}-${generation}`);
    await rm(profileDir, { recursive: true, force: true });
    const worker = await UnoWorker.start(
      {
        python: this.options.python,
        script: UNO_SCRIPT,
        soffice: this.options.soffice,
        profileDir,
        env: this.options.env,
        startTimeoutMs: this.options.startTimeoutMs,
      },
      `quire-${process.pid}-${slot}-${generation}`,
    );
    void worker.ended.then(() => rm(profileDir, { recursive: true, force: true }));
    return worker;
  }
}
