import path from 'node:path';
import type { BaseLogger } from 'pino';
import type { Config } from '../../config/load.js';
import { isWebservice, type WebserviceName } from '../../core/webservices.js';
import type { OperationEvent, OperationEvents } from '../../observability/operation-events.js';
import { loadStatisticsFile, saveStatisticsFile } from './statistics-file.js';
import { FrameTable, type Aggregation, type FrameTotals } from './statistics-frames.js';

/** Reference `Admin_DataSourceServerState`. */
export const DATA_SOURCES = ['realtime', 'persistent'] as const;
export type DataSource = (typeof DATA_SOURCES)[number];

export interface StatisticsDeps {
  config: Pick<Config, 'statistics'>;
  events: OperationEvents;
  dataDir: string;
  logger: Pick<BaseLogger, 'warn'>;
  /** The clock for pruning and `savedAt` (tests inject one); events bring their own start time. */
  now?: () => number;
}

export interface StatisticsQuery {
  source: DataSource;
  aggregation: Aggregation;
  webservices: readonly WebserviceName[];
  /** Epoch ms; frames that end before it are left out. */
  from?: number;
  /** Epoch ms; frames that start after it are left out. */
  to?: number;
}

/**
 * Counts the web-service operations (reference `Webservice`: converter, toolbox, ...) that the HTTP
 * layer answered: calls, failures (status 400 and up), durations and bytes per time frame.
 * `realtime` lives in memory since this instance started; `persistent` is loaded from
 * `<dataDir>/statistics/persistent.json` at open, written back every `statistics.flushInterval`
 * when it changed and at close, and loses frames past the retention.
 */
export class Statistics {
  private readonly realtime = new FrameTable();
  private readonly persistent = new FrameTable();
  private readonly file: string;
  private readonly now: () => number;
  private unsubscribe: () => void = () => undefined;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  /** The write in progress; flushes run one after the other. */
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(private readonly deps: StatisticsDeps) {
    this.file = path.join(deps.dataDir, 'statistics', 'persistent.json');
    this.now = deps.now ?? Date.now;
  }

  static async open(deps: StatisticsDeps): Promise<Statistics> {
    const statistics = new Statistics(deps);
    // Loaded before counting starts: restoring a frame replaces it.
    await statistics.load();
    statistics.unsubscribe = deps.events.on((event) => statistics.count(event));
    statistics.timer = setInterval(() => void statistics.flush(), deps.config.statistics.flushIntervalMs);
    statistics.timer.unref();
    return statistics;
  }

  /** The frames of the query, per requested web service (an empty list when nothing ran). */
  read(query: StatisticsQuery): Map<WebserviceName, Array<[number, FrameTotals]>> {
    const table = query.source === 'realtime' ? this.realtime : this.persistent;
    return table.query(query.webservices, query.aggregation, query.from, query.to);
  }

  /** Writes the persistent statistics now if they changed (also prunes both tables). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const now = this.now();
      const { retentionDays } = this.deps.config.statistics;
      this.realtime.prune(now, retentionDays);
      if (this.persistent.prune(now, retentionDays) > 0) this.dirty = true;
      if (!this.dirty) return;
      this.dirty = false;
      try {
        await saveStatisticsFile(this.file, this.persistent, now);
      } catch (error) {
        this.dirty = true; // try again at the next flush
        this.deps.logger.warn({ err: error, file: this.file }, 'statistics: writing the persistent statistics failed');
      }
    });
    return this.flushing;
  }

  /** Stops counting and writes the persistent statistics a last time. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe();
    await this.flush();
  }

  private count(event: OperationEvent): void {
    if (!isWebservice(event.webservice) || event.accepted) return;
    const call = {
      webservice: event.webservice,
      startedAt: event.startedAt,
      ok: event.ok,
      durationMs: Number.isFinite(event.durationMs) ? Math.max(0, event.durationMs) : 0,
      bytesIn: event.bytesIn,
      bytesOut: event.bytesOut,
    };
    this.realtime.add(call);
    this.persistent.add(call);
    this.dirty = true;
  }

  private async load(): Promise<void> {
    try {
      await loadStatisticsFile(this.file, this.persistent);
    } catch (error) {
      // Counting goes on from zero rather than keeping the server from starting.
      this.deps.logger.warn({ err: error, file: this.file }, 'statistics: the persistent statistics could not be read; starting empty');
    }
    this.persistent.prune(this.now(), this.deps.config.statistics.retentionDays);
  }
}
