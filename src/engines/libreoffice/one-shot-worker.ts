import { existsSync, realpathSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { run, RunError } from '../process/run.js';
import { WorkerDiedError, type PoolWorker } from '../pool/worker.js';
import { seedProfile } from './profile.js';
import { UnoJobError, type UnoJob, type UnoResult } from './uno-worker.js';

/** How a one-shot soffice is walled in (see isolation.ts). */
export interface OneShotIsolation {
  /** argv prefix of the network namespace; empty: none. */
  launcher: readonly string[];
  /** argv prefix of the Landlock sandbox that may write to these folders; empty: none. */
  sandbox: (writable: readonly string[]) => readonly string[];
}

/**
 * The fallback when no UNO listener can start: one `soffice --convert-to pdf` per job, with a fresh
 * profile per job (concurrent runs on one profile fail). About 1 s per document instead of ~30 ms,
 * but it converts. It sits in the same pool as the warm workers, so the queue, time limits and
 * metrics stay the same. It has the profile's settings but not the content broker guard of the
 * warm workers, so the engine runs it only inside the network namespace and the Landlock sandbox.
 *
 * It runs soffice.bin itself, not the `soffice` launcher: the launcher (oosplash) forks soffice.bin,
 * and that child would outlive a killed server (measured: it keeps running when oosplash is
 * SIGKILLed). soffice.bin started by `run()` is the end of an exec chain that carries the
 * parent-death signal (setpriv, prlimit, unshare, sandbox.py: see parent-death.ts). What oosplash
 * did for us, the restart that soffice.bin asks for after it set up a new profile, is done here.
 */
export class OneShotWorker implements PoolWorker<UnoJob, UnoResult> {
  readonly ended: Promise<Error>;
  private abort?: AbortController;
  private endWorker!: (reason: Error) => void;
  private closed = false;

  constructor(
    /** soffice.bin (or the soffice launcher, next to which soffice.bin is looked for). */
    private readonly soffice: string,
    private readonly workDir: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly isolation: OneShotIsolation = { launcher: [], sandbox: () => [] },
  ) {
    this.ended = new Promise<Error>((resolve) => (this.endWorker = resolve));
  }

  async run(job: UnoJob): Promise<UnoResult> {
    if (this.closed) throw new WorkerDiedError('one-shot LibreOffice worker closed');
    const dir = await mkdtemp(path.join(this.workDir, 'oneshot-'));
    this.abort = new AbortController();
    try {
      const outDir = path.join(dir, 'out');
      await seedProfile(path.join(dir, 'profile'));
      await mkdir(path.join(dir, 'tmp'));
      const filter = `pdf:${exportFilterFor(job.input)}:${JSON.stringify(filterOptions(job.filterData))}`;
      const args = [
        '--headless',
        '--invisible',
        '--nologo',
        '--norestore',
        '--nolockcheck',
        `-env:UserInstallation=file://${path.join(dir, 'profile')}`,
        ...(job.inputFilter ? [`--infilter=${job.inputFilter}${job.inputFilterOptions ? `:${job.inputFilterOptions}` : ''}`] : []),
        '--convert-to',
        filter,
        '--outdir',
        outDir,
        job.input,
      ];
      let result;
      try {
        const [command, ...prefix] = [...this.isolation.launcher, ...this.isolation.sandbox([dir, path.dirname(job.input)]), officeBinary(this.soffice)];
        // Temporary files and $HOME in the job's folder: the sandbox lets soffice write nowhere else.
        const env = { ...this.env, TMPDIR: path.join(dir, 'tmp'), HOME: dir };
        for (let start = 1; ; start++) {
          // `tool` keeps the memory cap and cancellation of LibreOffice when the command is a wrapper.
          result = await run(command!, [...prefix, ...args], { env, signal: this.abort.signal, maxOutputBytes: 64 * 1024, tool: 'libreoffice' });
          // 81: soffice.bin finished setting up the new profile and asks to be started again.
          if (result.exitCode !== RESTART_REQUESTED || start === 2) break;
        }
      } catch (error) {
        if (error instanceof RunError && error.kind === 'aborted') throw new WorkerDiedError('one-shot LibreOffice killed');
        throw error;
      }
      const produced = (await readdir(outDir).catch(() => [])).find((name) => name.endsWith('.pdf'));
      if (result.exitCode !== 0 || !produced) {
        throw new UnoJobError('load', `LibreOffice could not convert the document (exit ${result.exitCode ?? result.signal})`);
      }
      await copyFile(path.join(outDir, produced), job.output);
      return { pages: null };
    } finally {
      this.abort = undefined;
      await rm(dir, { recursive: true, force: true });
    }
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('closed');
  }

  async memoryBytes(): Promise<number> {
    return 0;
  }

  kill(): void {
    this.abort?.abort();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.abort?.abort();
    this.endWorker(new Error('closed'));
  }
}

/** soffice.bin's exit status after it created a profile: start me again (oosplash does that). */
const RESTART_REQUESTED = 81;

/** soffice.bin itself for a configured soffice.bin or launcher (see the class comment). */
function officeBinary(soffice: string): string {
  if (soffice.endsWith('.bin')) return soffice;
  let launcher = soffice;
  try {
    launcher = realpathSync(soffice); // /usr/bin/soffice links to the program folder
  } catch {
    // not found: run() reports it
  }
  return existsSync(`${launcher}.bin`) ? `${launcher}.bin` : soffice;
}

/** `--convert-to` needs the application's filter name when options are passed. */
function exportFilterFor(input: string): string {
  const extension = path.extname(input).toLowerCase().slice(1);
  if (['xls', 'xlsx', 'xlt', 'ods', 'csv', 'xlsm', 'ots'].includes(extension)) return 'calc_pdf_Export';
  if (['ppt', 'pptx', 'odp', 'pps', 'ppsx', 'otp', 'pptm'].includes(extension)) return 'impress_pdf_Export';
  return 'writer_pdf_Export';
}

/** The JSON form of FilterData that `--convert-to` accepts since LibreOffice 7.4. */
function filterOptions(data: UnoJob['filterData']): Record<string, { type: string; value: string | number | boolean }> {
  return Object.fromEntries(
    Object.entries(data).map(([name, value]) => [
      name,
      { type: typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'long' : 'string', value: typeof value === 'number' ? String(value) : value },
    ]),
  );
}
