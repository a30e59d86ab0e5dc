import path from 'node:path';
import type { BaseLogger } from 'pino';
import type { Config } from '../../config/load.js';
import { isWebservice, type WebserviceName } from '../../core/webservices.js';
import type { OperationEvent, OperationEvents } from '../../observability/operation-events.js';
import { loadStatisticsFile, saveStatisticsFile } from './statistics-file.js';
import { FrameTable, type Aggregation, type CountedCall, type FrameTotals } from './statistics-frames.js';

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

/** The frames a statistics query answers, per requested web service. */
export type StatisticFrames = Map<WebserviceName, Array<[number, FrameTotals]>>;

/** What the admin/statistic route reads: this class on a single server, ClusterStatistics (cluster-statistics.ts) in a cluster. */
export interface StatisticsService {
  read(query: StatisticsQuery): StatisticFrames | Promise<StatisticFrames>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The call an operation event counts as, or undefined for events the statistics leave out (non-web-service routes, 202 acceptances). */
export function countedCall(event: OperationEvent): CountedCall | undefined {
  if (!isWebservice(event.webservice) || event.accepted) return undefined;
  return {
    webservice: event.webservice,
    startedAt: event.startedAt,
    ok: event.ok,
    durationMs: Number.isFinite(event.durationMs) ? Math.max(0, event.durationMs) : 0,
    bytesIn: event.bytesIn,
    bytesOut: event.bytesOut,
  };
}

/** What both kinds of statistics share: counting the operation events, flushing on an interval, closing. */
export abstract class CountingStatistics implements StatisticsService {
  private unsubscribe: () => void = () => undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  abstract read(query: StatisticsQuery): StatisticFrames | Promise<StatisticFrames>;
  abstract flush(): Promise<void>;
  protected abstract count(call: CountedCall): void;

  protected startCounting(events: OperationEvents, flushIntervalMs: number): void {
    this.unsubscribe = events.on((event) => {
      const call = countedCall(event);
      if (call) this.count(call);
    });
    this.timer = setInterval(() => void this.flush(), flushIntervalMs);
    this.timer.unref();
  }

  /** Stops counting and flushes a last time. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe();
    await this.flush();
  }
}

/**
 * Counts the web-service operations (reference `Webservice`: converter, toolbox, ...) that the HTTP
 * layer answered: calls, failures (status 400 and up), durations and bytes per time frame.
 * `realtime` lives in memory since this instance started; `persistent` is loaded from
 * `<dataDir>/statistics/persistent.json` at open, written back every `statistics.flushInterval`
 * when it changed and at close, and loses frames past the retention.
 */
export class Statistics extends CountingStatistics {
  private readonly realtime = new FrameTable();
  private readonly persistent = new FrameTable();
  private readonly file: string;
  private readonly now: () => number;
  private dirty = false;
  /** The write in progress; flushes run one after the other. */
  private flushing: Promise<void> = Promise.resolve();

  private constructor(private readonly deps: StatisticsDeps) {
    super();
    this.file = path.join(deps.dataDir, 'statistics', 'persistent.json');
    this.now = deps.now ?? Date.now;
  }

  static async open(deps: StatisticsDeps): Promise<Statistics> {
    const statistics = new Statistics(deps);
    // Loaded before counting starts: restoring a frame replaces it.
    await statistics.load();
    statistics.startCounting(deps.events, deps.config.statistics.flushIntervalMs);
    return statistics;
  }

  /** The frames of the query, per requested web service (an empty list when nothing ran). */
  override read(query: StatisticsQuery): StatisticFrames {
    const table = query.source === 'realtime' ? this.realtime : this.persistent;
    return table.query(query.webservices, query.aggregation, query.from, query.to);
  }

  /** Writes the persistent statistics now if they changed (also prunes both tables). */
  override flush(): Promise<void> {
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

  protected count(call: CountedCall): void {
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
