import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ServerOptions {
  /** Repository root: the server's working directory. */
  root: string;
  /** Where the fresh data directory is created (same disk as /tmp). */
  tempDir: string;
  /** Start dist/main.js instead of src/main.ts through tsx. */
  dist: boolean;
  /** Extra node flags for the server process (e.g. --cpu-prof). */
  nodeFlags: string[];
  /** Extra environment for the server (e.g. to override a QUIRE_ key while investigating). */
  env?: Record<string, string>;
}

export interface BenchServer {
  pid: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** origin + /webPDF/rest */
  rest: string;
  dataDir: string;
  /** How the server was started, for the report. */
  command: string;
  /** Last output of the server (stdout and stderr), for diagnostics. */
  output(): string;
  /** SIGTERM, then SIGKILL after a grace period; removes the data directory. Idempotent. */
  stop(): Promise<void>;
  /** Synchronous last resort for process exit handlers. */
  killNow(): void;
}

const OUTPUT_KEEP = 64 * 1024;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function startBenchServer(options: ServerOptions): Promise<BenchServer> {
  // --dist runs the server exactly as `npm start` does (same node flags); otherwise the sources through tsx.
  const start = startScript(options.root);
  const entry = options.dist ? start.args : ['--import', 'tsx', 'src/main.ts'];
  if (options.dist && !existsSync(path.join(options.root, 'dist/main.js'))) {
    throw new Error('--dist given but dist/main.js does not exist: run `npm run build` first.');
  }
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(options.tempDir, 'data-'));
  // Extra flags go right before the script, after the start script's own flags, so that they win
  // (V8 takes the last value of a repeated flag).
  const args = [...entry.slice(0, -1), ...options.nodeFlags, ...entry.slice(-1)];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: options.root,
    env: {
      ...process.env,
      ...start.env,
      PORT: String(port),
      QUIRE_DATA_DIR: dataDir,
      QUIRE_SERVER__HOST: '127.0.0.1',
      QUIRE_LOG__LEVEL: 'warn',
      QUIRE_ADMIN_PASSWORD: 'bench',
      QUIRE_LIMITS__ANONYMOUS__UPLOAD_LIMIT: '0',
      QUIRE_LIMITS__ANONYMOUS__DISK_SPACE_LIMIT: '0',
      QUIRE_LIMITS__ANONYMOUS__MAX_FILES: '0',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > OUTPUT_KEEP * 2) output = output.slice(-OUTPUT_KEEP);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    });
  });
  const origin = `http://127.0.0.1:${port}`;

  let stopping: Promise<void> | undefined;
  const server: BenchServer = {
    pid: child.pid ?? -1,
    origin,
    rest: `${origin}/webPDF/rest`,
    dataDir,
    command: `${path.basename(process.execPath)} ${args.join(' ')}`,
    output: () => output.slice(-OUTPUT_KEEP),
    killNow: () => {
      if (!exited) child.kill('SIGKILL');
    },
    stop: () => {
      stopping ??= (async () => {
        if (!exited) {
          child.kill('SIGTERM');
          const timer = sleep(15_000).then(() => 'timeout' as const);
          if ((await Promise.race([exit.then(() => 'exited' as const), timer])) === 'timeout') {
            child.kill('SIGKILL');
            await exit;
          }
        }
        await rm(dataDir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };

  // Wait for GET /webPDF/health.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) {
      await server.stop();
      throw new Error(`the server exited during startup (code ${exited.code}, signal ${exited.signal}):\n${output}`);
    }
    try {
      const response = await fetch(`${origin}/webPDF/health`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`the server did not become healthy within 60 s:\n${output}`);
    }
    await sleep(100);
  }
  return server;
}

/** package.json's start script ("VAR=value … node <flags> dist/main.js"): its environment assignments and node arguments. */
export function startScript(root: string): { env: Record<string, string>; args: string[] } {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (pkg.scripts?.start ?? 'node dist/main.js').trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  return { env, args: words[0] === 'node' ? words.slice(1) : ['dist/main.js'] };
}

/**
 * Waits until the server's health names every enabled engine and none of them is still `starting`
 * (LibreOffice and Chromium warm up in the background after the server listens). Returns how long
 * that took, or undefined when the health never said so within `timeoutMs`.
 */
export async function waitForEngines(origin: string, timeoutMs = 120_000): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    try {
      const response = await fetch(`${origin}/webPDF/health`, { signal: AbortSignal.timeout(2_000) });
      const body = (await response.json()) as { engines?: Record<string, string> };
      if (body.engines && !Object.values(body.engines).includes('starting')) return Date.now() - started;
    } catch {
      // not answering: try again
    }
    await sleep(250);
  }
  return undefined;
}

export interface BareServer {
  pid: number;
  /** The info URL of the bare route. */
  url: string;
  command: string;
  stop(): Promise<void>;
}

/**
 * Starts bench/bare-fastify.ts (the info baseline) with the node flags of `npm start`, answering
 * `body` at the info path of `documentId`.
 */
export async function startBareFastify(root: string, body: string, documentId: string): Promise<BareServer> {
  const start = startScript(root);
  const args = [...start.args.slice(0, -1), '--import', 'tsx', 'bench/bare-fastify.ts'];
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...start.env, BODY: body, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bare Fastify baseline did not start within 30 s:\n${output}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bare Fastify baseline exited (code ${code}):\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid ?? -1,
    url: `http://127.0.0.1:${port}/webPDF/rest/documents/${documentId}/info`,
    command: `${path.basename(process.execPath)} ${args.join(' ')}`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}
