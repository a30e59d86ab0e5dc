import type { EventEmitter } from 'node:events';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Gives the garbage of start-up and of bursts of work back when the server is quiet. V8 runs a full
 * collection only when its old generation grows past a limit, and Node never tells it that the process
 * is idle, so what start-up and the engines' warm-up left behind (~12 MB of dead objects: module
 * loading, route building, puppeteer) stayed for the life of the server. One full collection (~50 ms)
 * runs before the server listens (what building the app left), once the engines have started, and after any burst of activity that grew the heap by
 * `minGrowthBytes`, when no request has been in flight for `quietMs`.
 */

export interface HeapCompactionOptions {
  /** How long no request may have been in flight before a quiet collection; default 1 s. */
  quietMs?: number;
  /** Growth of the heap (total + external) since the last full collection that makes one worth it; default 8 MB. */
  minGrowthBytes?: number;
  /** The collector; default V8's full collection (`gc()`). */
  collect?: () => void;
}

export class HeapCompaction {
  private readonly quietMs: number;
  private readonly minGrowthBytes: number;
  private readonly collect: () => void;
  private inFlight = 0;
  private lastActivityAt = 0;
  private sizeAfterLast = 0;
  private pending = false;
  private quietTimer: NodeJS.Timeout | undefined;
  private readonly servers: EventEmitter[] = [];
  private readonly onRequest = (_request: unknown, response: EventEmitter) => {
    this.inFlight++;
    this.lastActivityAt = Date.now();
    response.once('close', () => {
      this.inFlight--;
      this.lastActivityAt = Date.now();
    });
  };

  constructor(options: HeapCompactionOptions = {}) {
    this.quietMs = options.quietMs ?? 1_000;
    this.minGrowthBytes = options.minGrowthBytes ?? 8 * 1024 * 1024;
    this.collect = options.collect ?? fullCollection();
  }

  /** A full collection now (before the server listens: nothing is in flight yet). */
  compactNow(): void {
    this.collect();
    this.sizeAfterLast = heapSize();
  }

  /** A full collection once no request has been in flight for `quietMs`. */
  compactWhenQuiet(): void {
    this.pending = true;
    this.lastActivityAt ||= Date.now();
  }

  /** Follows the requests of these servers (quiet is checked four times per `quietMs`). */
  watch(...servers: EventEmitter[]): void {
    for (const server of servers) {
      server.on('request', this.onRequest);
      this.servers.push(server);
    }
    this.quietTimer ??= setInterval(() => this.checkQuiet(), Math.max(10, Math.floor(this.quietMs / 4)));
    this.quietTimer.unref();
  }

  stop(): void {
    clearInterval(this.quietTimer);
    this.quietTimer = undefined;
    for (const server of this.servers.splice(0)) server.off('request', this.onRequest);
  }

  private checkQuiet(): void {
    if (this.inFlight > 0 || this.lastActivityAt === 0 || Date.now() - this.lastActivityAt < this.quietMs) return;
    if (!this.pending && heapSize() - this.sizeAfterLast < this.minGrowthBytes) return;
    this.pending = false;
    this.collect();
    this.sizeAfterLast = heapSize();
  }
}

/** Heap plus external memory, from V8's own counters (process.memoryUsage() would also read /proc for the RSS, four times a second). */
function heapSize(): number {
  const heap = v8.getHeapStatistics();
  return heap.total_heap_size + heap.external_memory;
}

/**
 * V8's `gc()` without `--expose-gc` on the command line: the flag is set at run time and the function
 * taken from a fresh context, so that it is not a global of the server's own code. Plain `gc()` is the
 * full collection; with options, `{ type: 'major' }` keeps what the stack might reach.
 */
function fullCollection(): () => void {
  let gc = (globalThis as { gc?: () => void }).gc;
  return () => {
    if (!gc) {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as () => void;
    }
    gc();
  };
}
