import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { syncDirectory } from '../atomic.js';
import { QUEUE_STATES, type QueueEntry, type QueueFilter, type QueueState, type QueueStore } from './queue-store.js';

const JOURNAL = 'journal.jsonl';
const JOURNAL_TEMP = 'journal.jsonl.tmp';
const DEFAULT_COMPACT_AFTER_BYTES = 64 * 1024 * 1024;
/** The journal is rewritten only once it holds this many times the bytes of the live entries. */
const COMPACT_RATIO = 4;
/** Largest single write of a batch or snapshot (one datasync still covers the whole batch). */
const WRITE_CHUNK_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

export interface FileQueueStoreOptions {
  /** The journal is compacted during operation once it is larger than this (and 4× the live data). Default 64 MiB. */
  compactAfterBytes?: number;
  /** Clock for the store's own bookkeeping (stats); entries carry the times their callers give. */
  now?: () => number;
}

export interface FileQueueStoreStats {
  /** Live entries. */
  entries: number;
  /** Current size of journal.jsonl. */
  journalBytes: number;
  /** Bytes a snapshot of the live entries takes. */
  liveBytes: number;
  /** Batches appended to the journal (each one write + one fdatasync). */
  writes: number;
  /** fdatasync calls on the journal for appended batches. */
  syncs: number;
  /** Changes (journal lines) appended since open. */
  lines: number;
  /** Snapshots written since the store was constructed (at open and during operation). */
  compactions: number;
  lastCompactionAt?: number;
  /** Why the last compaction during operation failed (the journal stays as it was; retried after more growth). */
  lastCompactionError?: string;
}

interface StoredRecord {
  /** The store's own copy: never handed out, never mutated (a change replaces the record). */
  entry: QueueEntry;
  /** JSON of `entry`: copies handed out are parsed from it, snapshots are built from it. */
  json: string;
  /** Bytes of this entry's put line in a snapshot. */
  lineBytes: number;
}

interface Waiter {
  /** A journal line with its newline, or '' for a barrier that only waits for earlier lines. */
  line: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

type StateCounts = Record<QueueState, number>;

function zeroCounts(): StateCounts {
  return { PENDING: 0, RUNNING: 0, DONE: 0, FAILED_PERMANENT: 0 };
}

const VALID_STATES = new Set<string>(QUEUE_STATES);

/** Why a value cannot be an entry of the store, or undefined when its shape is acceptable. */
function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const entry = value as Record<string, unknown>;
  if (typeof entry.id !== 'string' || entry.id === '') return 'no id';
  if (typeof entry.kind !== 'string' || entry.kind === '') return 'no kind';
  if (typeof entry.state !== 'string' || !VALID_STATES.has(entry.state)) return 'no valid state';
  if (typeof entry.createdAt !== 'number' || !Number.isFinite(entry.createdAt)) return 'no createdAt';
  if (typeof entry.runAfter !== 'number' || !Number.isFinite(entry.runAfter)) return 'no runAfter';
  return undefined;
}

function putLine(json: string): string {
  return `{"op":"put","entry":${json}}\n`;
}

/** Bytes of putLine(json): the JSON plus the 22 ASCII characters around it. */
function putLineBytes(json: string): number {
  return Buffer.byteLength(json) + 22;
}

/** Oldest first: createdAt, then id. */
function older(a: QueueEntry, b: QueueEntry): boolean {
  return a.createdAt !== b.createdAt ? a.createdAt < b.createdAt : a.id < b.id;
}

function dueEarlier(a: QueueEntry, b: QueueEntry): boolean {
  return a.runAfter !== b.runAfter ? a.runAfter < b.runAfter : older(a, b);
}

/** A binary min-heap of records that can also remove any record by id in O(log n). */
class IndexedHeap {
  private readonly items: StoredRecord[] = [];
  private readonly positions = new Map<string, number>();

  constructor(private readonly before: (a: QueueEntry, b: QueueEntry) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): StoredRecord | undefined {
    return this.items[0];
  }

  values(): readonly StoredRecord[] {
    return this.items;
  }

  push(record: StoredRecord): void {
    this.items.push(record);
    this.positions.set(record.entry.id, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): StoredRecord | undefined {
    const top = this.items[0];
    if (top) this.remove(top.entry.id);
    return top;
  }

  remove(id: string): boolean {
    const at = this.positions.get(id);
    if (at === undefined) return false;
    this.positions.delete(id);
    const last = this.items.pop()!;
    if (at < this.items.length) {
      this.items[at] = last;
      this.positions.set(last.entry.id, at);
      this.down(at);
      this.up(at);
    }
    return true;
  }

  private less(i: number, j: number): boolean {
    return this.before(this.items[i]!.entry, this.items[j]!.entry);
  }

  private swap(i: number, j: number): void {
    const a = this.items[i]!;
    const b = this.items[j]!;
    this.items[i] = b;
    this.items[j] = a;
    this.positions.set(b.entry.id, i);
    this.positions.set(a.entry.id, j);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.less(right, left) ? right : left;
      if (!this.less(child, i)) return;
      this.swap(child, i);
      i = child;
    }
  }
}

/**
 * The PENDING entries of one kind. Invariant: `due` holds exactly those with runAfter ≤ watermark
 * (ordered oldest first, so a claim takes its top), `waiting` the others (ordered by runAfter, so a
 * claim with a later `now` moves the ones that became due); `byRunAfter` holds all of them for nextDue.
 */
class KindIndex {
  readonly counts = zeroCounts();
  readonly due = new IndexedHeap(older);
  readonly waiting = new IndexedHeap(dueEarlier);
  readonly byRunAfter = new IndexedHeap(dueEarlier);
  watermark = Number.NEGATIVE_INFINITY;

  addPending(record: StoredRecord): void {
    this.byRunAfter.push(record);
    if (record.entry.runAfter <= this.watermark) this.due.push(record);
    else this.waiting.push(record);
  }

  removePending(id: string): void {
    this.byRunAfter.remove(id);
    if (!this.due.remove(id)) this.waiting.remove(id);
  }

  /** Makes `due` hold exactly the entries due at `now`; returns the oldest of them. */
  oldestDue(now: number): StoredRecord | undefined {
    if (now >= this.watermark) {
      for (let next = this.waiting.peek(); next && next.entry.runAfter <= now; next = this.waiting.peek()) {
        this.waiting.pop();
        this.due.push(next);
      }
    } else {
      // A clock that went back (or a caller asking about the past): rare, so a linear pass is fine.
      for (const record of [...this.due.values()]) {
        if (record.entry.runAfter > now) {
          this.due.remove(record.entry.id);
          this.waiting.push(record);
        }
      }
    }
    this.watermark = now;
    return this.due.peek();
  }
}

/**
 * The embedded QueueStore: an in-memory index over an append-only journal (`<dir>/journal.jsonl`, one
 * JSON line per change: `{"op":"put","entry":{...}}` or `{"op":"del","ids":[...]}`).
 *
 * - Changes are applied to the index at once (in call order) and appended to the journal in the same
 *   order; appends are group-committed: whatever arrives while a write + fdatasync is in flight goes
 *   into the next batch, and each promise resolves only after the fdatasync that covers its line. As
 *   the journal is only ever appended to in index order, every crash leaves a prefix of the changes.
 * - `open()` streams the journal, ignores (and truncates away) an incomplete last line, skips corrupt
 *   lines with a warning (`openWarnings`), then rewrites the journal as a snapshot of the live entries
 *   (temp file, fsync, rename, fsync of the directory). The same compaction runs during operation once
 *   the journal is past `compactAfterBytes` and 4× the live data, in the writer's turn, so it never
 *   races an append.
 * - A failed write or fdatasync leaves the journal in an unknown state: the store then refuses every
 *   further change (reads keep answering from memory) until it is reopened.
 *
 * Single writer: one process per directory.
 */
export class FileQueueStore implements QueueStore {
  /** Problems found while reading the journal at the last `open()` (corrupt lines skipped, an incomplete last line dropped). */
  openWarnings: string[] = [];

  private readonly journalPath: string;
  private readonly tempPath: string;
  private readonly compactAfterBytes: number;
  private readonly now: () => number;

  private phase: 'new' | 'opening' | 'open' | 'closing' | 'closed' = 'new';
  private handle: FileHandle | undefined;
  private failure: Error | undefined;

  private readonly records = new Map<string, StoredRecord>();
  private readonly kinds = new Map<string, KindIndex>();
  private readonly stateCounts = zeroCounts();
  private liveBytes = 0;
  private journalBytes = 0;
  /** No compaction during operation before the journal reaches this size (after a failed attempt). */
  private compactRetryAt = 0;

  private pending: Waiter[] = [];
  /** The writer loop while it runs. */
  private pumping: Promise<void> | undefined;
  private counters = { writes: 0, syncs: 0, lines: 0, compactions: 0 };
  private lastCompactionAt: number | undefined;
  private lastCompactionError: string | undefined;

  constructor(
    private readonly dir: string,
    options: FileQueueStoreOptions = {},
  ) {
    this.journalPath = path.join(dir, JOURNAL);
    this.tempPath = path.join(dir, JOURNAL_TEMP);
    this.compactAfterBytes = options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES;
    this.now = options.now ?? Date.now;
  }

  async open(): Promise<void> {
    if (this.phase !== 'new') throw new Error(`FileQueueStore ${this.dir}: open() may be called once per instance`);
    this.phase = 'opening';
    try {
      const made = await mkdir(this.dir, { recursive: true, mode: 0o700 });
      if (made !== undefined) {
        // Make the new directories' entries durable, from the queue directory up to the one that existed.
        for (let created = this.dir; ; created = path.dirname(created)) {
          await syncDirectory(path.dirname(created));
          if (path.resolve(created) === path.resolve(made) || path.dirname(created) === created) break;
        }
      }
      await rm(this.tempPath, { force: true, recursive: true });
      const existed = await this.readJournal();
      if (!existed) {
        // A new journal: make its directory entry durable before the first datasync counts on it.
        const created = await open(this.journalPath, 'a', 0o600);
        await created.close();
        await syncDirectory(this.dir);
      }
      this.handle = await open(this.journalPath, 'a', 0o600);
      this.journalBytes = (await this.handle.stat()).size;
      if (this.phase !== 'opening') throw new Error(`FileQueueStore ${this.dir} was closed while opening`);
      this.phase = 'open';
    } catch (error) {
      this.phase = 'closed';
      await this.handle?.close().catch(() => undefined);
      this.handle = undefined;
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.phase === 'closed' || this.phase === 'closing') return;
    if (this.phase !== 'open') {
      this.phase = 'closed';
      return;
    }
    this.phase = 'closing';
    try {
      if (!this.failure) await this.enqueue('').catch(() => undefined);
      await this.pumping;
    } finally {
      this.phase = 'closed';
      const handle = this.handle;
      this.handle = undefined;
      await handle?.close();
    }
  }

  async add(entry: QueueEntry): Promise<void> {
    this.assertWritable();
    const record = this.toRecord(entry);
    if (this.records.has(record.entry.id)) throw new Error(`queue entry ${record.entry.id} exists already`);
    this.apply(record.entry.id, record);
    return this.enqueue(putLine(record.json));
  }

  async update(entry: QueueEntry): Promise<void> {
    this.assertWritable();
    const record = this.toRecord(entry);
    if (!this.records.has(record.entry.id)) throw new Error(`no queue entry ${record.entry.id}`);
    this.apply(record.entry.id, record);
    return this.enqueue(putLine(record.json));
  }

  async remove(ids: readonly string[]): Promise<void> {
    this.assertWritable();
    const known = [...new Set(ids)].filter((id) => this.records.has(id));
    for (const id of known) this.apply(id, undefined);
    // Nothing to write still waits for earlier lines: a remove that raced another one must not resolve before it.
    return this.enqueue(known.length > 0 ? `${JSON.stringify({ op: 'del', ids: known })}\n` : '');
  }

  async get(id: string): Promise<QueueEntry | undefined> {
    this.assertReadable();
    const record = this.records.get(id);
    return record ? (JSON.parse(record.json) as QueueEntry) : undefined;
  }

  async list(filter: QueueFilter = {}): Promise<QueueEntry[]> {
    this.assertReadable();
    const { state, kind, sessionId, limit } = filter;
    const matches: QueueEntry[] = [];
    for (const { entry } of this.records.values()) {
      if (state !== undefined && entry.state !== state) continue;
      if (kind !== undefined && entry.kind !== kind) continue;
      if (sessionId !== undefined && entry.sessionId !== sessionId) continue;
      matches.push(entry);
    }
    matches.sort((a, b) => (older(a, b) ? -1 : older(b, a) ? 1 : 0));
    const selected = limit !== undefined ? matches.slice(0, Math.max(0, limit)) : matches;
    return selected.map((entry) => JSON.parse(this.records.get(entry.id)!.json) as QueueEntry);
  }

  async claim(kinds: readonly string[], now: number): Promise<QueueEntry | undefined> {
    this.assertWritable();
    let best: StoredRecord | undefined;
    for (const kind of new Set(kinds)) {
      const candidate = this.kinds.get(kind)?.oldestDue(now);
      if (candidate && (!best || older(candidate.entry, best.entry))) best = candidate;
    }
    if (!best) return undefined;
    // Chosen and changed in one synchronous step: a concurrent claim sees the entry RUNNING already.
    const current = JSON.parse(best.json) as QueueEntry;
    const attempts = (typeof current.attempts === 'number' ? current.attempts : 0) + 1;
    const claimed: QueueEntry = {
      ...current,
      state: 'RUNNING',
      attempts,
      startedAt: now,
      updatedAt: now,
      history: [...(Array.isArray(current.history) ? current.history : []), { at: now, event: 'started', detail: `attempt ${attempts}` }],
    };
    const json = JSON.stringify(claimed);
    this.apply(claimed.id, { entry: claimed, json, lineBytes: putLineBytes(json) });
    await this.enqueue(putLine(json));
    return JSON.parse(json) as QueueEntry;
  }

  async counts(): Promise<{ byState: Record<QueueState, number>; byKind: Record<string, Record<QueueState, number>> }> {
    this.assertReadable();
    const byKind: Record<string, Record<QueueState, number>> = {};
    for (const [kind, index] of this.kinds) byKind[kind] = { ...index.counts };
    return { byState: { ...this.stateCounts }, byKind };
  }

  async nextDue(kinds: readonly string[]): Promise<number | undefined> {
    this.assertReadable();
    let earliest: number | undefined;
    for (const kind of kinds) {
      const top = this.kinds.get(kind)?.byRunAfter.peek();
      if (top && (earliest === undefined || top.entry.runAfter < earliest)) earliest = top.entry.runAfter;
    }
    return earliest;
  }

  stats(): FileQueueStoreStats {
    return {
      entries: this.records.size,
      journalBytes: this.journalBytes,
      liveBytes: this.liveBytes,
      ...this.counters,
      ...(this.lastCompactionAt !== undefined ? { lastCompactionAt: this.lastCompactionAt } : {}),
      ...(this.lastCompactionError !== undefined ? { lastCompactionError: this.lastCompactionError } : {}),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // The index

  /** A private, JSON-normalised copy of a caller's entry, checked. */
  private toRecord(entry: QueueEntry): StoredRecord {
    const json = JSON.stringify(entry);
    const copy: unknown = json === undefined ? undefined : JSON.parse(json);
    const problem = shapeProblem(copy);
    if (problem) throw new TypeError(`not a queue entry: ${problem}`);
    // JSON.stringify(JSON.parse(json)) === json: the stored JSON is exactly what a reopen rebuilds.
    return { entry: copy as QueueEntry, json: json!, lineBytes: putLineBytes(json!) };
  }

  /** Replaces (or, with undefined, removes) the record of `id`, keeping counts and kind indexes in step. */
  private apply(id: string, record: StoredRecord | undefined): void {
    const previous = this.records.get(id);
    if (previous) {
      const { entry } = previous;
      const index = this.kinds.get(entry.kind)!;
      this.stateCounts[entry.state]--;
      index.counts[entry.state]--;
      if (entry.state === 'PENDING') index.removePending(id);
      this.liveBytes -= previous.lineBytes;
    }
    if (record) {
      const { entry } = record;
      let index = this.kinds.get(entry.kind);
      if (!index) {
        index = new KindIndex();
        this.kinds.set(entry.kind, index);
      }
      this.stateCounts[entry.state]++;
      index.counts[entry.state]++;
      if (entry.state === 'PENDING') index.addPending(record);
      this.liveBytes += record.lineBytes;
      this.records.set(id, record);
    } else {
      this.records.delete(id);
    }
  }

  private assertReadable(): void {
    if (this.phase === 'open') return;
    if (this.phase === 'closed' || this.phase === 'closing') throw new Error(`FileQueueStore ${this.dir} is closed`);
    throw new Error(`FileQueueStore ${this.dir} is not open`);
  }

  private assertWritable(): void {
    this.assertReadable();
    if (this.failure) throw this.failure;
  }

  // ---------------------------------------------------------------------------------------------
  // Appending (group commit) and compaction during operation

  private enqueue(line: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ line, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.pumping) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.pending.length > 0) this.kick();
    });
  }

  private async pump(): Promise<void> {
    // Let callers in the same synchronous run join the first batch.
    await Promise.resolve();
    while (this.pending.length > 0) {
      if (this.failure) {
        this.rejectAll(this.pending.splice(0), this.failure);
        return;
      }
      if (this.compactionDue()) {
        await this.compactDuringOperation();
        continue;
      }
      const batch = this.pending;
      this.pending = [];
      try {
        const lines = batch.filter((waiter) => waiter.line !== '');
        if (lines.length > 0) {
          this.journalBytes += await writeLines(
            this.handle!,
            lines.map((waiter) => waiter.line),
          );
          await this.handle!.datasync();
          this.counters.writes++;
          this.counters.syncs++;
          this.counters.lines += lines.length;
        }
      } catch (error) {
        this.fail(error, batch);
        continue;
      }
      for (const waiter of batch) waiter.resolve();
    }
  }

  private compactionDue(): boolean {
    return this.journalBytes > this.compactAfterBytes && this.journalBytes > COMPACT_RATIO * this.liveBytes && this.journalBytes >= this.compactRetryAt;
  }

  /**
   * Runs in the writer's turn. The snapshot is the index as it is now, which already holds the
   * changes still waiting to be appended: once the snapshot is in place they are durable too, so
   * their promises resolve then. Changes arriving meanwhile wait and go to the new journal.
   */
  private async compactDuringOperation(): Promise<void> {
    const covered = this.pending.length;
    const jsons = Array.from(this.records.values(), (record) => record.json);
    let bytes: number;
    try {
      bytes = await this.writeSnapshot(jsons);
      await rename(this.tempPath, this.journalPath);
    } catch (error) {
      await rm(this.tempPath, { force: true }).catch(() => undefined);
      // The old journal is untouched and still the one appended to; try again after as much growth again.
      this.lastCompactionError = error instanceof Error ? error.message : String(error);
      this.compactRetryAt = this.journalBytes + this.compactAfterBytes;
      return;
    }
    try {
      await syncDirectory(this.dir);
      const previous = this.handle!;
      this.handle = await open(this.journalPath, 'a', 0o600);
      await previous.close().catch(() => undefined);
    } catch (error) {
      this.fail(error, []);
      return;
    }
    this.journalBytes = bytes;
    this.compactRetryAt = 0;
    this.lastCompactionError = undefined;
    this.noteCompaction();
    for (const waiter of this.pending.splice(0, covered)) waiter.resolve();
  }

  private fail(error: unknown, batch: Waiter[]): void {
    const message = error instanceof Error ? error.message : String(error);
    this.failure ??= new Error(`queue journal ${this.journalPath} failed (${message}); the queue refuses changes until it is reopened`, {
      cause: error,
    });
    this.rejectAll(batch, this.failure);
    this.rejectAll(this.pending.splice(0), this.failure);
  }

  private rejectAll(waiters: Waiter[], error: Error): void {
    for (const waiter of waiters) waiter.reject(error);
  }

  private noteCompaction(): void {
    this.counters.compactions++;
    this.lastCompactionAt = this.now();
  }

  /** Writes the put lines of `jsons` to the temp file and fsyncs it; returns its size. */
  private async writeSnapshot(jsons: readonly string[]): Promise<number> {
    const handle = await open(this.tempPath, 'w', 0o600);
    try {
      const bytes = await writeLines(handle, jsons.map(putLine));
      await handle.sync();
      return bytes;
    } finally {
      await handle.close();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Reading the journal at open

  /** Rebuilds the index from the journal and compacts it; false when there is no journal yet. */
  private async readJournal(): Promise<boolean> {
    this.openWarnings = [];
    let size: number;
    try {
      size = (await stat(this.journalPath)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }

    const entries = new Map<string, QueueEntry>();
    let lineCount = 0;
    let redundant = false;
    const skip = (lineNo: number, why: string) => {
      redundant = true;
      this.openWarnings.push(`${JOURNAL} line ${lineNo}: ${why}; skipped`);
    };
    const handleLine = (text: string, lineNo: number) => {
      lineCount++;
      if (text.trim() === '') {
        redundant = true;
        return;
      }
      let change: unknown;
      try {
        change = JSON.parse(text);
      } catch {
        skip(lineNo, 'not valid JSON');
        return;
      }
      const op = (change as { op?: unknown } | null)?.op;
      if (op === 'put') {
        const entry = (change as { entry?: unknown }).entry;
        const problem = shapeProblem(entry);
        if (problem) return skip(lineNo, `entry with ${problem}`);
        const { id } = entry as QueueEntry;
        if (entries.has(id)) redundant = true;
        entries.set(id, entry as QueueEntry);
      } else if (op === 'del') {
        const ids = (change as { ids?: unknown }).ids;
        if (!Array.isArray(ids)) return skip(lineNo, 'del without ids');
        redundant = true;
        for (const id of ids) if (typeof id === 'string') entries.delete(id);
      } else {
        skip(lineNo, 'unknown operation');
      }
    };

    // Split on newline bytes (not characters): the offset of the last complete line is exact.
    let complete = 0;
    let lineNo = 0;
    let partial: Buffer[] = [];
    let partialBytes = 0;
    if (size > 0) {
      const stream = createReadStream(this.journalPath, { highWaterMark: 1024 * 1024, start: 0, end: size - 1 });
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        let start = 0;
        for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
          let line = chunk.subarray(start, nl);
          if (partialBytes > 0) {
            line = Buffer.concat([...partial, line]);
            partial = [];
            partialBytes = 0;
          }
          complete += line.length + 1;
          handleLine(line.toString('utf8'), ++lineNo);
          start = nl + 1;
        }
        if (start < chunk.length) {
          partial.push(chunk.subarray(start));
          partialBytes += chunk.length - start;
        }
      }
    }

    if (complete < size) {
      // A write cut short by a crash: its change was never acknowledged. Cut it off so that the next
      // append starts on a line of its own.
      redundant = true;
      this.openWarnings.push(`${JOURNAL}: ignored an incomplete last line (${size - complete} bytes) and truncated the journal`);
      const handle = await open(this.journalPath, 'r+');
      try {
        await handle.truncate(complete);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }

    for (const [id, entry] of entries) {
      const json = JSON.stringify(entry);
      this.apply(id, { entry, json, lineBytes: putLineBytes(json) });
    }
    if (redundant || lineCount !== entries.size) {
      const jsons = Array.from(this.records.values(), (record) => record.json);
      try {
        await this.writeSnapshot(jsons);
      } catch (error) {
        // The journal as read (and truncated) is still valid: keep appending to it.
        await rm(this.tempPath, { force: true }).catch(() => undefined);
        this.openWarnings.push(`${JOURNAL}: could not compact (${error instanceof Error ? error.message : String(error)})`);
        return true;
      }
      await rename(this.tempPath, this.journalPath);
      await syncDirectory(this.dir);
      this.noteCompaction();
    }
    return true;
  }
}

/** Writes the lines in chunks of at most WRITE_CHUNK_BYTES (each write completed in full); returns the bytes written. */
async function writeLines(handle: FileHandle, lines: readonly string[]): Promise<number> {
  let total = 0;
  let chunk: string[] = [];
  let chunkLength = 0;
  const flush = async () => {
    const buffer = Buffer.from(chunk.join(''), 'utf8');
    chunk = [];
    chunkLength = 0;
    for (let offset = 0; offset < buffer.length; ) {
      const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset);
      offset += bytesWritten;
    }
    total += buffer.length;
  };
  for (const line of lines) {
    chunk.push(line);
    chunkLength += line.length;
    if (chunkLength >= WRITE_CHUNK_BYTES) await flush();
  }
  if (chunkLength > 0) await flush();
  return total;
}
