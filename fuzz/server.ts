/**
 * The server under test: the built server (dist/main.js, with the node flags of `npm start`) as a
 * child process with its own data dir, a free port and a generated admin password. Its death is
 * observed (exit code, signal, the last output), and it can be started again on the same data dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { call } from './http.js';
import { descendantsOf, killKnown, processesMentioning, type ProcInfo } from './proc.js';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The node arguments of package.json's start script ("node <flags> dist/main.js"). */
function startArgs(root: string): string[] {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (pkg.scripts?.start ?? 'node dist/main.js').trim().split(/\s+/);
  return words[0] === 'node' ? words.slice(1) : ['dist/main.js'];
}

const OUTPUT_KEEP = 256 * 1024;

export class ServerUnderTest {
  readonly adminPassword = randomBytes(12).toString('hex');
  private child: ChildProcess | undefined;
  private exitInfo: ExitInfo | undefined;
  private exited: Promise<ExitInfo> = Promise.resolve({ code: 0, signal: null, at: 0 });
  private log = '';
  /** Characters of output seen so far (all processes): marks for outputSince(). */
  private seen = 0;
  /** Output of the current process only (a crash report shows what this one said). */
  private current = '';
  starts = 0;
  port = 0;

  constructor(
    readonly root: string,
    readonly dataDir: string,
    /** QUIRE_* settings of this run (the profile); the data dir, port and password are added. */
    private readonly settings: Record<string, string>,
    private readonly contextPath = '/webPDF',
  ) {}

  /** The environment the server gets (also what the limits are read with). */
  env(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith('QUIRE_') && name !== 'PORT') env[name] = value;
    }
    return {
      ...env,
      QUIRE_DATA_DIR: this.dataDir,
      QUIRE_SERVER__HOST: '127.0.0.1',
      QUIRE_ADMIN_PASSWORD: this.adminPassword,
      QUIRE_LOG__LEVEL: 'warn',
      ...this.settings,
      PORT: String(this.port),
    };
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get rest(): string {
    return `${this.origin}${this.contextPath}/rest`;
  }

  get pid(): number {
    return this.child?.pid ?? -1;
  }

  get tmpDir(): string {
    return path.join(this.dataDir, 'tmp');
  }

  get alive(): boolean {
    return this.child !== undefined && this.exitInfo === undefined;
  }

  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** A mark in the output stream (see outputSince). */
  outputMark(): number {
    return this.seen;
  }

  /** What the server wrote since a mark (as much of it as is kept). */
  outputSince(mark: number): string {
    const length = this.seen - mark;
    return length <= 0 ? '' : this.log.slice(-Math.min(length, this.log.length));
  }

  /** The last output of the current (or last) process. */
  output(): string {
    return this.current.slice(-OUTPUT_KEEP);
  }

  async start(): Promise<void> {
    if (!existsSync(path.join(this.root, 'dist/main.js'))) throw new Error(`${this.root}/dist/main.js does not exist: run npm run build`);
    if (!this.port) this.port = await freePort();
    this.exitInfo = undefined;
    this.current = '';
    this.starts++;
    const child = spawn(process.execPath, startArgs(this.root), { cwd: this.root, env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.current += text;
      this.log += text;
      this.seen += text.length;
      if (this.current.length > OUTPUT_KEEP * 2) this.current = this.current.slice(-OUTPUT_KEEP);
      if (this.log.length > OUTPUT_KEEP * 2) this.log = this.log.slice(-OUTPUT_KEEP);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal, at: Date.now() };
        resolve(this.exitInfo);
      });
    });
    const deadline = Date.now() + 90_000;
    for (;;) {
      const exit = this.exit;
      if (exit) throw new Error(`the server exited during startup (code ${exit.code}, signal ${exit.signal}):\n${this.output().slice(-4000)}`);
      const health = await this.health(2_000);
      if (health === 200) return;
      if (Date.now() > deadline) throw new Error(`the server did not become healthy within 90 s:\n${this.output().slice(-4000)}`);
      await sleep(200);
    }
  }

  /** Status of GET {contextPath}/health, 0 when there is no answer. */
  async health(timeoutMs = 5_000): Promise<number> {
    const answer = await call(`${this.origin}${this.contextPath}/health`, { timeoutMs });
    return answer.status;
  }

  /** SIGTERM (SIGKILL after the grace period); returns the exit. */
  async stop(graceMs = 20_000): Promise<ExitInfo | undefined> {
    if (!this.child) return undefined;
    if (this.alive) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    return this.exitInfo;
  }

  /** Synchronous last resort (process exit handlers). */
  killNow(): void {
    if (this.alive) this.child?.kill('SIGKILL');
  }

  waitExit(): Promise<ExitInfo> {
    return this.exited;
  }

  descendants(): ProcInfo[] {
    return this.alive ? descendantsOf(this.pid) : [];
  }

  /**
   * Processes a dead server left behind: its last known descendants still running, and anything
   * naming the data dir. They are killed (by pid, after checking it is still the same process), so
   * that the next server and the machine are not burdened; the list goes into the report.
   */
  reapOrphans(lastKnown: ProcInfo[]): ProcInfo[] {
    const seen = new Map<number, ProcInfo>();
    for (const proc of [...lastKnown, ...processesMentioning(this.dataDir, new Set(this.alive ? [this.pid, ...this.descendants().map((p) => p.pid)] : []))]) {
      if (!seen.has(proc.pid)) seen.set(proc.pid, proc);
    }
    return [...seen.values()].filter((proc) => killKnown(proc));
  }
}
