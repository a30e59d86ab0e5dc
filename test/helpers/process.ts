import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt } from '../../fuzz/build.js';

/**
 * The project: the process is started from its build exactly as `npm start` runs it
 * (`node dist/main.js`), built first when dist/ is older than the sources (as ./quire.sh does).
 * Not from the sources under tsx: compiling them costs every start seconds, more on a slow machine.
 */
export const PROJECT_DIR = new URL('../../', import.meta.url).pathname;

/**
 * Deadlines are not fixed numbers of milliseconds, which encode the speed of the machine they were
 * tuned on: they are multiples of this machine's own start, measured once per test file by starting a
 * server (engines off) on an empty data dir and timing spawn → first 200 from /webPDF/health.
 * A start that is not healthy within START_FACTOR starts fails; a deadline written for the machine the
 * suite was written on (`scaled(ms)`) grows with how much slower this one starts than REFERENCE_START_MS.
 */
const START_FACTOR = 20;
/** spawn → healthy of `node dist/main.js` on the machine the suite's deadlines were written for (2 vCPUs). */
const REFERENCE_START_MS = 600;
/** The calibration start itself can only fail by exiting or by never answering at all. */
const CALIBRATION_CAP_MS = 120_000;
let measured: Promise<number> | undefined;

/** This machine's spawn → healthy time of `node dist/main.js` (measured once, see above). */
export function measuredStartMs(): Promise<number> {
  measured ??= (async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-calibrate-'));
    try {
      const quire = await spawnQuire({ dataDir });
      try {
        await waitHealthy(quire, CALIBRATION_CAP_MS);
        return quire.healthyAfterMs!;
      } finally {
        await quire.kill();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  })();
  return measured;
}

/** A deadline written for the reference machine, stretched by how much slower this machine starts (never shortened). */
export async function scaled(ms: number): Promise<number> {
  return Math.round(ms * Math.max(1, (await measuredStartMs()) / REFERENCE_START_MS));
}

/** How long a start may take here before it counts as failed. */
export async function startDeadlineMs(): Promise<number> {
  return Math.max(5_000, START_FACTOR * (await measuredStartMs()));
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Date.now() when the process had exited and its output was closed. */
  at: number;
}

export interface QuireProcess {
  child: ChildProcess;
  port: number;
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** e.g. http://127.0.0.1:41234/webPDF/rest */
  rest: string;
  dataDir: string;
  /** Everything written so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once the process exited and its output streams closed. */
  exited: Promise<ExitStatus>;
  /** Whether the process is still running. */
  readonly running: boolean;
  /** Milliseconds from spawn to the first 200 of /webPDF/health (set by waitHealthy). */
  healthyAfterMs?: number;
  /** Date.now() at spawn. */
  readonly spawnedAt: number;
  /** Sends the signal and waits for the exit; SIGKILLs after `deadlineMs`. */
  stop(signal?: NodeJS.Signals, deadlineMs?: number): Promise<ExitStatus>;
  /** SIGKILL unless it already exited (cleanup after a test). */
  kill(): Promise<void>;
}

const children = new Set<ChildProcess>();

/** A port nobody listens on right now (listen on 0, note the port, close). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The parent's environment without Quire settings of its own, so that every test chooses its configuration. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('QUIRE_') && name !== 'PORT') env[name] = value;
  }
  return env;
}

export interface SpawnOptions {
  dataDir: string;
  env?: Record<string, string>;
  port?: number;
  /** Receives the process as soon as it is spawned, so that a test can kill it even if it never becomes healthy. */
  track?: (quire: QuireProcess) => void;
  /**
   * `stale` (default): build when dist/ is older than the sources. `missing`: only when there is no
   * dist/main.js, so that the processes of one test run the same build even while the tree changes
   * (the cluster tests start several nodes one after the other).
   */
  build?: 'stale' | 'missing';
}

/** Spawns the server as production would (`node dist/main.js`, built when stale); does not wait for it. */
export async function spawnQuire(options: SpawnOptions): Promise<QuireProcess> {
  if (options.build !== 'missing' || !existsSync(path.join(PROJECT_DIR, 'dist/main.js'))) ensureBuilt(PROJECT_DIR, (line) => process.stderr.write(`${line}\n`));
  const port = options.port ?? (await freePort());
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: PROJECT_DIR,
    env: {
      ...baseEnv(),
      PORT: String(port),
      QUIRE_DATA_DIR: options.dataDir,
      QUIRE_SERVER__HOST: '127.0.0.1',
      QUIRE_LOG__LEVEL: 'info',
      // Lifecycle tests do not convert; warm engine pools would only slow their starts.
      QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false',
      QUIRE_ENGINES__CHROMIUM__ENABLED: 'false',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  let running = true;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<ExitStatus>((resolve) => {
    child.on('close', (code, signal) => {
      running = false;
      children.delete(child);
      resolve({ code, signal, at: Date.now() });
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const quire: QuireProcess = {
    child,
    port,
    url,
    rest: `${url}/webPDF/rest`,
    dataDir: options.dataDir,
    spawnedAt,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    get running() {
      return running;
    },
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM', deadlineMs?: number) {
      deadlineMs ??= await scaled(15_000);
      if (running) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
      try {
        const status = await exited;
        return status;
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      if (running) child.kill('SIGKILL');
      await exited;
    },
  };
  options.track?.(quire);
  return quire;
}

/**
 * Polls `GET /webPDF/health` until it answers 200; fails with the process output if it exits or the
 * deadline passes (default: START_FACTOR times this machine's measured start).
 */
export async function waitHealthy(quire: QuireProcess, deadlineMs?: number): Promise<void> {
  deadlineMs ??= await startDeadlineMs();
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (!quire.running) {
      throw new Error(`Quire exited before it was healthy.\nstdout:\n${quire.stdout}\nstderr:\n${quire.stderr}`);
    }
    try {
      // One attempt may take what is left of the deadline: a busy machine answers late, not never.
      const response = await fetch(`${quire.url}/webPDF/health`, { signal: AbortSignal.timeout(Math.max(1000, deadline - Date.now())) });
      await response.arrayBuffer();
      if (response.status === 200) {
        quire.healthyAfterMs = Date.now() - quire.spawnedAt;
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Quire was not healthy within ${deadlineMs} ms.\nstdout:\n${quire.stdout}\nstderr:\n${quire.stderr}`);
}

/** Spawns the server and waits until it is healthy. */
export async function startQuire(options: SpawnOptions): Promise<QuireProcess> {
  const quire = await spawnQuire(options);
  await waitHealthy(quire);
  return quire;
}

/**
 * Waits for the exit of a process expected to stop by itself (a bad configuration); SIGKILLs and fails
 * after the deadline, given for the reference machine and stretched to this one's speed (`scaled`).
 */
export async function waitExit(quire: QuireProcess, deadlineMs = 15_000): Promise<ExitStatus> {
  deadlineMs = await scaled(deadlineMs);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      quire.child.kill('SIGKILL');
      reject(new Error(`Quire did not exit within ${deadlineMs} ms.\nstdout:\n${quire.stdout}\nstderr:\n${quire.stderr}`));
    }, deadlineMs);
  });
  try {
    return await Promise.race([quire.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Kills every child process still running (for afterEach/afterAll, also after a failed test). */
export async function killAll(): Promise<void> {
  const pending = [...children].map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('close', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  children.clear();
  await Promise.all(pending);
}
