import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { WorkerDiedError, type PoolWorker } from '../pool/worker.js';
import { ownerMark, parentDeathPrefix } from '../process/parent-death.js';
import { HtmlEngineError } from './errors.js';
import { killGroup, processGroupMemory } from './process-group.js';
import { render } from './render.js';
import { renderUrl } from './render-url.js';
import type { HtmlJob, HtmlResult } from './types.js';
import type { UrlJob } from './url-job.js';

export interface ChromiumWorkerOptions {
  executablePath: string;
  /** Added to the browser's environment (e.g. FONTCONFIG_FILE). */
  env?: Record<string, string>;
  /** Where the browser's profile directory is created (and removed again); default the OS temp dir. */
  tempDir?: string;
  /** Wait for a page's resources, unless the job says otherwise. */
  loadTimeoutMs: number;
  /** Give up on a browser that does not come up within this; default 30 s. */
  launchTimeoutMs?: number;
}

const ARGS = [
  // The sandbox needs user namespaces or a setuid helper, which containers rarely grant. Jobs are kept
  // apart by incognito contexts, their network by the job's proxy, and the browser is killed by group.
  '--no-sandbox',
  '--disable-gpu',
  // No traffic of the browser's own (updates, sync, safe browsing), and none outside the HTTP proxy.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  // WebRTC would send UDP (STUN) to any address, past the job's proxy.
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-extensions',
  '--no-first-run',
  // /dev/shm is 64 MB in default containers; Chromium then crashes on large pages.
  '--disable-dev-shm-usage',
  // Glyph positions independent of hinting, so text in the PDF is spaced as designed.
  '--font-render-hinting=none',
];

/** What the browser inherits from the server; not the rest, which may hold secrets. */
const INHERITED_ENV = ['PATH', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_TIME', 'TZ', 'TMPDIR', 'FONTCONFIG_FILE', 'FONTCONFIG_PATH'];

/** The name of every browser's profile directory begins so (see leftovers.ts). */
export const PROFILE_PREFIX = 'quire-chromium-';

/** How long `close()` lets the browser shut down before killing it. */
const CLOSE_GRACE_MS = 5_000;

/**
 * One warm Chromium for the `WorkerPool`: a browser process (group leader of all its helpers) with a
 * profile directory of its own, which is removed once the browser is gone.
 */
export class ChromiumWorker implements PoolWorker<HtmlJob | UrlJob, HtmlResult> {
  readonly ended: Promise<Error>;
  private readonly child: ChildProcess;
  private readonly pid: number;
  /** Rejects with `WorkerDiedError` as soon as the browser is killed or lost; raced against every job. */
  private readonly death: Promise<never>;
  private die!: (reason: Error) => void;
  private endReason: Error | undefined;
  private killed = false;
  /** `close()` was called: a job failing from now on fails because the browser goes away. */
  private closing = false;
  /** Settles once the browser has exited and its profile directory is removed. */
  private readonly cleanedUp: Promise<void>;

  static async launch(options: ChromiumWorkerOptions): Promise<ChromiumWorker> {
    const profile = await mkdtemp(path.join(options.tempDir ?? os.tmpdir(), PROFILE_PREFIX));
    try {
      // puppeteer-core is loaded with the first browser, not at server start (~15 MB of resident
      // memory): with the Chromium warm-up in the background, the server answers before it needs it.
      const { default: puppeteer } = await import('puppeteer-core');
      const browser = await puppeteer.launch({
        ...(await dyingWithServer(options.executablePath, profile)),
        headless: true,
        // DevTools over a pipe: no debugging port on localhost that a page's script could reach.
        pipe: true,
        env: browserEnv(profile, options.env),
        // The server's own shutdown closes the pool; puppeteer must not exit the process on signals.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: options.launchTimeoutMs ?? 30_000,
      });
      return new ChromiumWorker(browser, profile, options);
    } catch (error) {
      await rm(profile, { recursive: true, force: true, maxRetries: 3 });
      throw error;
    }
  }

  private constructor(
    private readonly browser: Browser,
    profile: string,
    private readonly options: ChromiumWorkerOptions,
  ) {
    // Launched by us, so the process handle exists; puppeteer starts it detached, i.e. as group leader.
    const child = browser.process() as ChildProcess;
    this.child = child;
    this.pid = child.pid!;
    this.death = new Promise<never>((_, reject) => {
      this.die = (reason) => reject(new WorkerDiedError(`Chromium ended: ${reason.message}`, { cause: reason }));
    });
    this.death.catch(() => undefined); // nobody may be racing it
    this.ended = new Promise<Error>((resolve) => {
      const end = (reason: Error): void => {
        if (this.endReason) return;
        this.endReason = reason;
        this.die(reason);
        resolve(reason);
      };
      browser.once('disconnected', () => end(new Error(this.killed ? 'killed' : 'browser disconnected')));
      child.once('exit', (code, signal) => end(new Error(this.killed ? 'killed' : `browser exited (${signal ?? `code ${code}`})`)));
      if (child.exitCode !== null || child.signalCode !== null || !browser.connected) end(new Error('browser exited during start'));
    });
    this.cleanedUp = new Promise<void>((resolve) => {
      const cleanUp = (): void => {
        // Helpers of a browser that crashed may linger in its group.
        killGroup(this.pid);
        void rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 })
          .catch(() => undefined)
          .then(resolve);
      };
      if (child.exitCode !== null || child.signalCode !== null) cleanUp();
      else child.once('exit', cleanUp);
    });
  }

  async run(job: HtmlJob | UrlJob): Promise<HtmlResult> {
    if (this.endReason || this.killed || this.closing) throw new WorkerDiedError(`Chromium ended: ${this.endReason?.message ?? (this.killed ? 'killed' : 'closed')}`);
    try {
      const work = 'url' in job ? renderUrl(this.browser, job) : render(this.browser, job, job.loadTimeoutMs ?? this.options.loadTimeoutMs);
      return await Promise.race([work, this.death]);
    } catch (error) {
      if (error instanceof WorkerDiedError || error instanceof HtmlEngineError) throw error;
      const message = (error as Error).message;
      // A job whose browser vanished under it failed for that reason, not its own (the pool retries it).
      if (this.killed || this.closing || !this.browser.connected) throw new WorkerDiedError(`Chromium ended during the job: ${message}`, { cause: error });
      throw new HtmlEngineError('renderFailed', `Chromium could not convert the document: ${message}`, { cause: error });
    }
  }

  async ping(): Promise<void> {
    // Browser.getVersion: a real round trip over the DevTools pipe.
    await this.browser.version();
  }

  memoryBytes(): Promise<number> {
    return this.endReason ? Promise.resolve(0) : processGroupMemory(this.pid);
  }

  kill(): void {
    this.killed = true;
    this.die(new Error('killed'));
    // Once the browser has exited its group was killed already (see cleanedUp), and the pid may have
    // been reused by another group since. (Chromium's crash handler daemonises out of the group; it
    // exits by itself when the browser is gone. --disable-crashpad-for-testing would keep it from
    // starting, but also breaks the network service of Chromium 156.)
    if (this.child.exitCode === null && this.child.signalCode === null) killGroup(this.pid);
  }

  async close(): Promise<void> {
    this.closing = true;
    if (!this.endReason) {
      const timer = setTimeout(() => this.kill(), CLOSE_GRACE_MS);
      await Promise.race([this.browser.close().catch(() => this.kill()), this.ended]);
      clearTimeout(timer);
    }
    await this.ended;
    await this.cleanedUp;
  }
}

/**
 * The browser dies with the server, however the server dies: puppeteer spawns `setpriv --pdeathsig
 * KILL -- chromium …` (see process/parent-death.ts; from the main thread, which the signal is tied
 * to), and setpriv and Debian's launcher script exec, so the pid puppeteer sees is the browser's and
 * it still leads the process group. Chromium's helpers (zygotes, renderers, GPU and network
 * services) end by themselves within ~200 ms of their browser, busy renderers too (measured).
 * puppeteer puts its default arguments first, so they are spelled out here, after the command.
 */
async function dyingWithServer(executablePath: string, profile: string): Promise<{ executablePath: string; args: string[]; ignoreDefaultArgs?: true; userDataDir: string }> {
  const prefix = parentDeathPrefix();
  if (prefix.length === 0) return { executablePath, args: ARGS, userDataDir: profile };
  // setpriv exists; say so when the browser does not, as puppeteer would.
  if (!existsSync(executablePath)) throw new Error(`Browser was not found at the configured executablePath (${executablePath})`);
  const { default: puppeteer } = await import('puppeteer-core');
  const chromiumArgs = await puppeteer.defaultArgs({ headless: true, args: ARGS, userDataDir: profile });
  return { executablePath: prefix[0]!, ignoreDefaultArgs: true, args: [...prefix.slice(1), executablePath, ...chromiumArgs], userDataDir: profile };
}

function browserEnv(profile: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  // HOME inside the profile: the NSS database and caches Chromium keeps there go away with it.
  // The owner mark lets a later server on the same data dir find a browser this one left (leftovers.ts).
  return { ...env, HOME: profile, ...extra, ...ownerMark() };
}
