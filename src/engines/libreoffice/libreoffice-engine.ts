import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkerPool, type PoolSettings, type PoolStats, type RunOptions } from '../pool/worker-pool.js';
import type { PoolWorker } from '../pool/worker.js';
import { detectIsolation, officeReadFolders, sandboxCommand, type Isolation, type IsolationMode } from './isolation.js';
import { listenerPipeName } from './leftovers.js';
import { OneShotWorker } from './one-shot-worker.js';
import { seedProfile } from './profile.js';
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
  /**
   * The kernel walls around soffice (see isolation.ts): `auto` (default) puts up what the system
   * allows, `required` refuses to start without both, `off` puts up none (LibreOffice's own settings
   * and the content broker guard still hold).
   */
  isolation?: IsolationMode;
  /** More folders the sandboxed soffice may read (the fonts folder) or write (the fontconfig cache). */
  sandboxRead?: readonly string[];
  sandboxWrite?: readonly string[];
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
  private walls: Isolation = { network: [], landlock: 0, missing: [] };
  private readFolders: string[] = [];
  /** Every job runs in a folder of its own here: the only place soffice may read documents from and write to. */
  private readonly jobsDir: string;
  private readonly instance = randomBytes(4).toString('hex');

  constructor(private readonly options: LibreOfficeEngineOptions) {
    this.jobsDir = path.join(options.workDir, 'jobs');
  }

  get name(): string {
    return 'libreoffice';
  }

  /** `warm` (UNO listeners) or `oneShot` (fallback). */
  get running(): 'warm' | 'oneShot' {
    return this.mode;
  }

  /** The walls that stand around soffice (known after `start`). */
  get isolation(): Readonly<Isolation> {
    return this.walls;
  }

  async start(): Promise<void> {
    const mode = this.options.isolation ?? 'auto';
    this.walls = await detectIsolation(mode, this.sandboxPython());
    if (mode === 'required' && this.walls.missing.length > 0) {
      throw new Error(`LibreOffice isolation is required, but this system offers ${this.walls.missing.join(' and ')}`);
    }
    this.readFolders = [
      ...(await officeReadFolders(this.options.soffice)),
      // The content broker guard soffice loads (resources/ucb_guard.py).
      path.dirname(UNO_SCRIPT),
      ...(this.options.env.FONTCONFIG_FILE ? [this.options.env.FONTCONFIG_FILE] : []),
      ...(this.options.sandboxRead ?? []),
    ];
    await rm(this.jobsDir, { recursive: true, force: true });
    await mkdir(this.jobsDir, { recursive: true });
    try {
      this.pool = this.createPool((slot) => this.startUnoWorker(slot));
      await this.pool.start();
    } catch (error) {
      // Without the content broker guard, one-shot LibreOffice follows some links in documents (ODF
      // drawings, RTF fields) to the network and the disk: it runs only inside both walls (or when
      // isolation is off).
      if (mode !== 'off' && this.walls.missing.length > 0) {
        throw new Error(`LibreOffice listeners could not start (${(error as Error).message}), and the one-shot fallback needs both walls, but this system offers ${this.walls.missing.join(' and ')}`, {
          cause: error,
        });
      }
      this.mode = 'oneShot';
      this.options.onFallback?.(error as Error);
      this.pool = this.createPool(
        async () =>
          new OneShotWorker(this.options.soffice, this.options.workDir, this.options.env, {
            launcher: this.walls.network,
            sandbox: (dirs) => this.sandboxPrefix(dirs),
          }),
      );
      await this.pool.start();
    }
  }

  /**
   * Converts one document; rejects with `UnoJobError` (the document) or `PoolError` (the engine).
   * The input is linked (or copied) into a job folder of its own and the result moved out of it:
   * soffice sees nothing of the caller's folders.
   */
  async convert(job: UnoJob, options?: RunOptions): Promise<UnoResult> {
    const pool = this.pool;
    if (!pool) throw new Error('LibreOffice engine not started');
    const dir = await mkdtemp(path.join(this.jobsDir, 'job-'));
    try {
      // The input keeps its name (the one-shot fallback reads the type from it) in a folder of its own, apart from the output.
      await mkdir(path.join(dir, 'in'));
      const input = path.join(dir, 'in', path.basename(job.input));
      await link(job.input, input).catch(() => copyFile(job.input, input));
      const output = path.join(dir, 'output.pdf');
      const result = await pool.run({ ...job, input, output }, options);
      await rename(output, job.output).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EXDEV') throw error;
        await copyFile(output, job.output);
      });
      return result;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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

  /** The Landlock wrapper for a soffice that writes only to `writable` (and the engine's job folder); none without Landlock. */
  private sandboxPrefix(writable: readonly string[]): string[] {
    if (this.walls.landlock === 0) return [];
    return sandboxCommand(this.sandboxPython(), {
      read: this.readFolders,
      write: [...writable, this.jobsDir, '/dev/null', ...(this.options.sandboxWrite ?? [])],
      // soffice creates its UNO pipe (a Unix socket) in /tmp; it may not read anything there.
      socket: ['/tmp'],
    });
  }

  /** sandbox.py needs only the standard library: any python3 does when Debian's is missing. */
  private sandboxPython(): string {
    return existsSync(this.options.python) ? this.options.python : 'python3';
  }

  private async startUnoWorker(slot: number): Promise<UnoWorker> {
    if (!existsSync(this.options.python)) throw new Error(`${this.options.python} not found (install python3-uno)`);
    // A profile per start: a killed soffice can leave its profile locked or half-written.
    const generation = ++this.generation;
    const profileDir = path.join(this.options.workDir, `profile-${slot}-${generation}`);
    await rm(profileDir, { recursive: true, force: true });
    await seedProfile(profileDir);
    const worker = await UnoWorker.start(
      {
        python: this.options.python,
        script: UNO_SCRIPT,
        soffice: this.options.soffice,
        profileDir,
        env: this.options.env,
        startTimeoutMs: this.options.startTimeoutMs,
        launcher: this.walls.network,
        sandbox: this.sandboxPrefix([profileDir]),
      },
      // Unique per engine too: two engines in one process must not reach each other's soffice. The
      // work dir's token lets a later start remove the socket if this soffice is killed (leftovers.ts).
      listenerPipeName(this.options.workDir, `${process.pid}-${this.instance}-${slot}-${generation}`),
    );
    void worker.ended.then(() => rm(profileDir, { recursive: true, force: true }));
    return worker;
  }
}
