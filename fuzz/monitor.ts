/**
 * Samples the resident memory of the server and of every descendant process a few times a second:
 * peaks for the report, the cases in flight whenever a bound is passed (the suspects), and a hard
 * stop for a runaway child (SIGKILL above `killChildBytes`) so that one hostile file cannot take the
 * shared machine with it — the case is reported either way.
 */
import { allProcs, descendantsOf, killKnown, readProc, type ProcInfo } from './proc.js';

export interface MemoryEvent {
  who: 'server' | 'child';
  pid: number;
  comm: string;
  rssBytes: number;
  /** Case ids in flight when it was seen. */
  suspects: number[];
  killed: boolean;
  at: number;
}

export interface MemoryBounds {
  serverBytes: number;
  /** A child's bound: its engine's configured cap (by command name) where there is one, else this. */
  childBytes: number;
  childBytesByComm?: Record<string, number>;
  /** A child above this is killed at once. */
  killChildBytes: number;
}

export class MemoryMonitor {
  peakServer = 0;
  peakChild = { rssBytes: 0, comm: '', pid: 0 };
  /** Peak per command name (soffice.bin, chromium, qpdf, …). */
  readonly peakByComm = new Map<string, number>();
  /** Bound violations since the last drain (one per process and bound). */
  private events: MemoryEvent[] = [];
  private reported = new Set<string>();
  private serverAbove = false;
  private timer: NodeJS.Timeout | undefined;
  /** The last descendants seen: what a crashed server may leave behind. */
  lastDescendants: ProcInfo[] = [];

  constructor(
    private readonly serverPid: () => number,
    readonly bounds: MemoryBounds,
    private readonly inFlight: () => number[],
    intervalMs = 300,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  sample(): void {
    const pid = this.serverPid();
    if (pid <= 0) return;
    const server = readProc(pid);
    if (!server) return;
    this.peakServer = Math.max(this.peakServer, server.rssBytes);
    // The server is reported each time it crosses the bound (its pid stays the same).
    const above = server.rssBytes > this.bounds.serverBytes;
    if (above && !this.serverAbove) this.events.push({ who: 'server', pid, comm: server.comm, rssBytes: server.rssBytes, suspects: this.inFlight(), killed: false, at: Date.now() });
    this.serverAbove = above;
    const children = descendantsOf(pid, allProcs());
    if (children.length) this.lastDescendants = children;
    for (const child of children) {
      this.peakByComm.set(child.comm, Math.max(this.peakByComm.get(child.comm) ?? 0, child.rssBytes));
      if (child.rssBytes > this.peakChild.rssBytes) this.peakChild = { rssBytes: child.rssBytes, comm: child.comm, pid: child.pid };
      if (child.rssBytes > (this.bounds.childBytesByComm?.[child.comm] ?? this.bounds.childBytes)) {
        const killed = child.rssBytes > this.bounds.killChildBytes && killKnown(child);
        this.note(child, killed);
      }
    }
  }

  /** One event per child process and state (above the bound, killed); the peak is kept up to date. */
  private note(proc: ProcInfo, killed: boolean): void {
    const key = `${proc.pid}:${proc.startTime}:${killed}`;
    if (this.reported.has(key)) {
      const pending = this.events.find((e) => e.pid === proc.pid && e.killed === killed);
      if (pending) pending.rssBytes = Math.max(pending.rssBytes, proc.rssBytes);
      return;
    }
    this.reported.add(key);
    this.events.push({ who: 'child', pid: proc.pid, comm: proc.comm, rssBytes: proc.rssBytes, suspects: this.inFlight(), killed, at: Date.now() });
  }

  /** The bound violations seen since the last call. */
  drain(): MemoryEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
