/**
 * The running server with what the fuzzer keeps around it: the fuzz sessions (one per concurrent
 * case), the sentinel session, the memory monitor, the limits from the server's configuration, and
 * recovery after a crash (orphans reaped, server started again on the same data dir, sessions
 * checked or opened anew).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { documentIds, login } from './api.js';
import type { ExecuteContext, Violation } from './execute.js';
import { Sentinel } from './invariants.js';
import { readServerConfig, type Limits } from './limits.js';
import { MemoryMonitor, type MemoryBounds } from './monitor.js';
import type { ProcInfo } from './proc.js';
import { ServerUnderTest, type ExitInfo } from './server.js';

export interface HarnessOptions {
  /** The checkout whose dist/ runs. */
  root: string;
  /** QUIRE_* settings of the run. */
  settings: Record<string, string>;
  sessions: number;
  bounds: MemoryBounds;
  extraMarginMs: number;
  sentinelPdf: Buffer;
  validPdf: Buffer;
  keepData?: boolean;
  log: (line: string) => void;
}

export interface Death {
  exit: ExitInfo;
  /** Case indices in flight when the server died. */
  suspects: number[];
  /** The last lines of its output (the V8 fatal error, a stack). */
  lastWords: string;
}

export class Harness {
  readonly server: ServerUnderTest;
  readonly inFlight = new Set<number>();
  /** Cases that ended lately: memory is given back late, a crash may follow the answer. */
  private readonly ended: { index: number; at: number }[] = [];
  monitor!: MemoryMonitor;
  limits!: Limits;
  private tokens: string[] = [];
  private sentinel!: Sentinel;
  private lastDeath: Death | undefined;
  readonly orphans: ProcInfo[] = [];

  constructor(readonly options: HarnessOptions) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-fuzz-data-'));
    this.server = new ServerUnderTest(options.root, dataDir, options.settings);
  }

  async start(): Promise<void> {
    await this.bootServer();
    this.limits = (await readServerConfig(this.options.root, this.server.env())).limits;
    this.monitor = new MemoryMonitor(() => (this.server.alive ? this.server.pid : -1), this.options.bounds, () => this.suspects());
    this.sentinel = new Sentinel(this.server, this.options.sentinelPdf);
    await this.sentinel.setup();
    this.tokens = [];
    for (let i = 0; i < this.options.sessions; i++) this.tokens.push(await login(this.server.rest));
  }

  private async bootServer(): Promise<void> {
    await this.server.start();
    this.lastDeath = undefined;
    const started = this.server.starts;
    void this.server.waitExit().then((exit) => {
      if (this.server.starts !== started) return;
      const output = this.server.output();
      this.lastDeath = { exit, suspects: this.suspects(), lastWords: lastWords(output) };
    });
  }

  /** Marks a case as running. */
  begin(index: number): void {
    this.inFlight.add(index);
  }

  /** Marks a case as done. */
  end(index: number): void {
    this.inFlight.delete(index);
    this.ended.push({ index, at: Date.now() });
    if (this.ended.length > 64) this.ended.shift();
  }

  /** The cases in flight, and those that ended in the last two seconds. */
  suspects(): number[] {
    const since = Date.now() - 2_000;
    return [...new Set([...this.inFlight, ...this.ended.filter((e) => e.at >= since).map((e) => e.index)])];
  }

  /** The death since the last recovery, if the server died. */
  death(): Death | undefined {
    return this.lastDeath;
  }

  /**
   * After a death: kill what the dead server left, start it again, and make sure the fuzz sessions
   * still work (they are persisted; a session lost in the crash is opened anew).
   */
  async recover(): Promise<ProcInfo[]> {
    // Let the exit handler record the suspects first.
    await this.server.waitExit();
    await sleep(50);
    const reaped = this.server.reapOrphans(this.monitor.lastDescendants);
    this.orphans.push(...reaped);
    this.monitor.lastDescendants = [];
    await this.bootServer();
    for (let i = 0; i < this.tokens.length; i++) {
      if ((await documentIds(this.server.rest, this.tokens[i]!)) === undefined) this.tokens[i] = await login(this.server.rest);
    }
    return reaped;
  }

  /** Recovers when the server is down (a replay may have killed it). */
  async ensureUp(): Promise<void> {
    if (!this.server.alive) await this.recover();
  }

  context(session: number): ExecuteContext {
    return { rest: this.server.rest, token: this.tokens[session]!, limits: this.limits, extraMarginMs: this.options.extraMarginMs, validPdf: this.options.validPdf };
  }

  token(session: number): string {
    return this.tokens[session]!;
  }

  checkSentinel() {
    return this.sentinel.check();
  }

  async stop(): Promise<void> {
    this.monitor?.stop();
    await this.server.stop();
    this.server.reapOrphans(this.monitor?.lastDescendants ?? []);
    if (!this.options.keepData) rmSync(this.server.dataDir, { recursive: true, force: true });
  }
}

/** The crash as a violation: exit, orphans killed, last words. */
export function crashViolation(death: Death, reaped: ProcInfo[]): Violation {
  const orphans = reaped.length ? `; ${reaped.length} orphan processes killed (${[...new Set(reaped.map((p) => p.comm))].join(', ')})` : '';
  return { kind: 'crash', target: 'server', detail: `server exited (code ${death.exit.code}, signal ${death.exit.signal})${orphans}:\n${death.lastWords}` };
}

/** The interesting end of a dead server's output: from the last fatal-looking line on. */
export function lastWords(output: string): string {
  const lines = output.trimEnd().split('\n').slice(-300);
  const fatal = lines.findIndex((l) => /FATAL ERROR|Allocation failed|JavaScript heap out of memory|Segmentation fault|Uncaught|Unhandled|panic/i.test(l));
  const from = fatal >= 0 ? fatal : Math.max(0, lines.length - 8);
  return lines
    .slice(from, from + 8)
    .map((l) => l.slice(0, 200))
    .join('\n');
}
