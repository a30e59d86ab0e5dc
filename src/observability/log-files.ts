import { appendFileSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import pino, { type DestinationStream } from 'pino';

/** Daily log files in `<dataDir>/logs`: `quire-YYYY-MM-DD.log` per UTC day, kept for `retentionDays`. */
export interface LogFilesOptions {
  dir: string;
  /** Days of files kept, today included: 1 keeps only today's file. */
  retentionDays: number;
  /** The clock (epoch milliseconds); tests move it across midnight. */
  now?: () => number;
}

/** One day's file as it is on disk now. */
export interface LogFileInfo {
  /** yyyy-MM-dd (UTC) */
  date: string;
  path: string;
  size: number;
}

const DAY_MS = 86_400_000;
const FILE_NAME = /^quire-(\d{4}-\d{2}-\d{2})\.log$/;
/** Log lines can hold user names, paths and addresses: only the server's own account reads them. */
const FILE_MODE = 0o600;

type FileStream = ReturnType<typeof pino.destination>;

/** yyyy-MM-dd of the UTC day of an instant. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Whether the text is a real calendar date written yyyy-MM-dd (2024-02-30 is not). */
export function isLogDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && utcDate(ms) === text;
}

/**
 * The server's daily log files. Lines go through pino's own file destination (SonicBoom) in
 * synchronous mode, pino's default for files: a line is on disk when the logging call returns, so
 * the log endpoint always reads complete lines and a crash loses nothing. Every write checks the
 * clock against the next UTC midnight and moves to the new day's file first, so no line lands in
 * the wrong day or is lost at the switch. Retention runs at open and once a day.
 */
export class LogFiles {
  private readonly now: () => number;
  private nextDayAt = 0;
  private stream: FileStream | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(private readonly options: LogFilesOptions) {
    this.now = options.now ?? Date.now;
  }

  static async open(options: LogFilesOptions): Promise<LogFiles> {
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const files = new LogFiles(options);
    await files.prune();
    files.currentStream();
    files.schedulePrune();
    return files;
  }

  /** Path of the file of a day (which may not exist). */
  pathOf(date: string): string {
    return path.join(this.options.dir, `quire-${date}.log`);
  }

  /** The pino destination that appends to the current day's file. */
  destination(): DestinationStream & { flushSync(): void } {
    return {
      write: (line: string) => this.write(line),
      flushSync: () => this.stream?.flushSync(),
    };
  }

  /**
   * The file of a day (default: today) with its current size, or undefined when there is none.
   * Today's file is switched to first, so it exists even before the day's first line.
   */
  async file(date?: string): Promise<LogFileInfo | undefined> {
    if (!this.closed) this.currentStream();
    const day = date ?? utcDate(this.now());
    // The date becomes part of a path: anything but a real date names no file.
    if (!isLogDate(day)) return undefined;
    const file = this.pathOf(day);
    try {
      const info = await stat(file);
      return info.isFile() ? { date: day, path: file, size: info.size } : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** The days' files that exist between two dates (inclusive, yyyy-MM-dd), oldest first. */
  async files(start: string, end: string): Promise<LogFileInfo[]> {
    const dates = (await this.dates()).filter((date) => date >= start && date <= end);
    const found = await Promise.all(dates.map((date) => this.file(date)));
    return found.filter((info): info is LogFileInfo => info !== undefined);
  }

  /** Deletes the files of days before the retention window. */
  async prune(): Promise<void> {
    const oldestKept = utcDate(this.now() - (this.options.retentionDays - 1) * DAY_MS);
    const expired = (await this.dates()).filter((date) => date < oldestKept);
    await Promise.all(expired.map((date) => rm(this.pathOf(date), { force: true })));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.pruneTimer);
    const stream = this.stream;
    this.stream = undefined;
    if (stream) await endStream(stream);
  }

  private async dates(): Promise<string[]> {
    const names = await readdir(this.options.dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    return names.flatMap((name) => FILE_NAME.exec(name)?.[1] ?? []).sort();
  }

  private write(line: string): void {
    if (this.closed) {
      // A restart or shutdown still logs a line or two after close: append them directly. Logging
      // must never throw into its caller, so a folder that is gone by then (tests) drops the line.
      try {
        appendFileSync(this.pathOf(utcDate(this.now())), line, { mode: FILE_MODE });
      } catch {
        // Nowhere left to write it.
      }
      return;
    }
    this.currentStream().write(line);
  }

  /** The stream of the current day, switching files when the clock has passed midnight. */
  private currentStream(): FileStream {
    const now = this.now();
    if (this.stream && now < this.nextDayAt) return this.stream;
    const previous = this.stream;
    const day = utcDate(now);
    this.nextDayAt = Date.parse(`${day}T00:00:00Z`) + DAY_MS;
    this.stream = pino.destination({ dest: this.pathOf(day), sync: true, append: true, mkdir: true, mode: FILE_MODE });
    // A failing disk must not take the server down with an unhandled 'error': say so where an operator looks.
    this.stream.on('error', (error: Error) => process.stderr.write(`quire: cannot write the log file: ${error.message}\n`));
    // Synchronous mode leaves nothing buffered: ending the old file loses no line.
    if (previous) void endStream(previous);
    return this.stream;
  }

  /** Retention once a day, shortly after UTC midnight; the timer never keeps the process alive. */
  private schedulePrune(): void {
    const now = this.now();
    const delay = Math.max(1000, Date.parse(`${utcDate(now)}T00:00:00Z`) + DAY_MS - now + 1000);
    this.pruneTimer = setTimeout(() => {
      void this.prune()
        .catch(() => undefined)
        .finally(() => {
          if (!this.closed) this.schedulePrune();
        });
    }, delay);
    this.pruneTimer.unref();
  }
}

function endStream(stream: FileStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
    stream.end();
  });
}
