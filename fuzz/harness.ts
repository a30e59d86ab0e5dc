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
import { killKnown, type ProcInfo } from './proc.js';
import { ServerUnderTest, type ExitInfo } from './server.js';

/** How often the watchdog looks, how long a health probe may take, and how long unanswered is "stuck". */
const WATCH_INTERVAL_MS = 5_000;
const PROBE_TIMEOUT_MS = 5_000;
const STUCK_MS = 20_000;

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
  /** Set when the fuzzer killed the server because it stopped answering (its event loop blocked). */
  unresponsive?: { seconds: number };
  /** Case indices in flight when the server died. */
  suspects: number[];
  /** The last lines of its output (the V8 fatal error, a stack). */
  lastWords: string;
}

export class Harness {
  readonly server: ServerUnderTest;
  /** Case index → when it started. */
  readonly inFlight = new Map<number, number>();
  /** Cases that ended lately: memory is given back late, a crash may follow the answer. */
  private readonly ended: { index: number; at: number }[] = [];
  monitor!: MemoryMonitor;
  limits!: Limits;
  private tokens: string[] = [];
  private sentinel!: Sentinel;
  private lastDeath: Death | undefined;
  private stuckSince: number | undefined;
  private killedStuck: { seconds: number } | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private probing = false;
  readonly orphans: ProcInfo[] = [];

  constructor(readonly options: HarnessOptions) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-fuzz-data-'));
    this.server = new ServerUnderTest(options.root, dataDir, options.settings);
  }

  async start(): Promise<void> {
    await this.bootServer();
    const config = await readServerConfig(this.options.root, this.server.env());
    this.limits = config.limits;
    // A child is held to its engine's configured cap unless the bounds name one for everything.
    const bounds = { ...this.options.bounds, childBytesByComm: this.options.bounds.childBytesByComm ?? config.childCaps };
    this.monitor = new MemoryMonitor(
      () => (this.server.alive ? this.server.pid : -1),
      bounds,
      () => this.suspects(),
    );
    this.sentinel = new Sentinel(this.server, this.options.sentinelPdf);
    await this.sentinel.setup();
    this.tokens = [];
    for (let i = 0; i < this.options.sessions; i++) this.tokens.push(await login(this.server.rest));
    this.watchdog = setInterval(() => void this.watch(), WATCH_INTERVAL_MS);
    this.watchdog.unref();
  }

  /**
   * A server whose event loop is blocked answers nothing, not even health: every later case would
   * wait for its full limit. While a case has been running for a while, health is probed; when it
   * stays unanswered for STUCK_MS the server is killed (and reported as unresponsive, not crashed).
   */
  private async watch(): Promise<void> {
    if (this.probing || this.killedStuck || !this.server.alive) return;
    const oldest = Math.min(...this.inFlight.values());
    if (!this.inFlight.size || Date.now() - oldest < WATCH_INTERVAL_MS) {
      this.stuckSince = undefined;
      return;
    }
    this.probing = true;
    try {
      const status = await this.server.health(PROBE_TIMEOUT_MS);
      if (status !== 0) {
        this.stuckSince = undefined;
        return;
      }
      this.stuckSince ??= Date.now() - PROBE_TIMEOUT_MS;
      const seconds = Math.round((Date.now() - this.stuckSince) / 1000);
      if (Date.now() - this.stuckSince >= STUCK_MS && this.server.alive) {
        this.options.log(`the server has not answered GET health for ${seconds} s: killing it`);
        this.killedStuck = { seconds };
        this.server.killNow();
      }
    } finally {
      this.probing = false;
    }
  }

  private async bootServer(): Promise<void> {
    await this.server.start();
    this.lastDeath = undefined;
    this.killedStuck = undefined;
    this.stuckSince = undefined;
    const started = this.server.starts;
    void this.server.waitExit().then((exit) => {
      if (this.server.starts !== started) return;
      const output = this.server.output();
      this.lastDeath = { exit, suspects: this.suspects(), lastWords: lastWords(output), ...(this.killedStuck ? { unresponsive: this.killedStuck } : {}) };
    });
  }

  /**
   * Health after a batch: the status, or 0 when the server stayed silent for STUCK_MS — then it is
   * killed (an unresponsive death, handled like a crash).
   */
  async ensureResponsive(): Promise<number> {
    const started = Date.now();
    for (;;) {
      const status = await this.server.health(PROBE_TIMEOUT_MS);
      if (status !== 0 || !this.server.alive) return status;
      if (Date.now() - started >= STUCK_MS) {
        this.options.log(`the server has not answered GET health for ${Math.round((Date.now() - started) / 1000)} s: killing it`);
        this.killedStuck = { seconds: Math.round((Date.now() - started) / 1000) };
        this.server.killNow();
        await this.server.waitExit();
        await sleep(50);
        return 0;
      }
    }
  }

  /** Marks a case as running. */
  begin(index: number): void {
    this.inFlight.set(index, Date.now());
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
    return [...new Set([...this.inFlight.keys(), ...this.ended.filter((e) => e.at >= since).map((e) => e.index)])];
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

  /** Synchronous last resort: SIGKILL to the server and every descendant seen (signal handlers). */
  killEverything(): void {
    const descendants = this.server.descendants();
    this.server.killNow();
    for (const proc of [...descendants, ...(this.monitor?.lastDescendants ?? [])]) killKnown(proc);
  }

  async stop(): Promise<void> {
    if (this.watchdog) clearInterval(this.watchdog);
    this.monitor?.stop();
    await this.server.stop();
    this.server.reapOrphans(this.monitor?.lastDescendants ?? []);
    if (!this.options.keepData) rmSync(this.server.dataDir, { recursive: true, force: true });
  }
}

/** The crash (or the kill of an unresponsive server) as a violation: exit, orphans killed, last words. */
export function crashViolation(death: Death, reaped: ProcInfo[]): Violation {
  const orphans = reaped.length ? `; ${reaped.length} orphan processes killed (${[...new Set(reaped.map((p) => p.comm))].join(', ')})` : '';
  if (death.unresponsive) {
    return { kind: 'unresponsive', target: 'server', detail: `the server did not answer GET health for ${death.unresponsive.seconds} s (event loop blocked) and was killed${orphans}` };
  }
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
