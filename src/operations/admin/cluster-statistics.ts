import type { BaseLogger } from 'pino';
import type { Config } from '../../config/load.js';
import type { OperationEvents } from '../../observability/operation-events.js';
import type { CounterFrame, SharedStatisticsStore } from '../../storage/statistics-store.js';
import { CountingStatistics, type StatisticFrames, type StatisticsQuery } from './statistics.js';
import { FrameTable, frameEnd, frameStart, maxAgeMs, type Aggregation, type CountedCall } from './statistics-frames.js';

/**
 * How often a node pushes the calls it counted to the shared store: the hot path only adds to a
 * table in memory, and a busy node makes one Redis call per second for all its calls (an idle one none).
 */
const PUSH_INTERVAL_MS = 1_000;

export interface ClusterStatisticsDeps {
  config: Pick<Config, 'statistics'>;
  events: OperationEvents;
  logger: Pick<BaseLogger, 'warn' | 'info'>;
  /** The cluster's counters (storage/redis-statistics.ts). */
  store: SharedStatisticsStore;
  now?: () => number;
}

/**
 * The statistics of a cluster node (the single server's are Statistics, statistics.ts). `persistent` is
 * the cluster's: every node adds its calls to one set of frames in the shared store (batched, every
 * PUSH_INTERVAL_MS, and before it answers a query, so a node's own calls are always in its answer);
 * the frames leave with the retention. `realtime` stays this node's since it started: a node's
 * uptime is its own, the cluster has none.
 */
export class ClusterStatistics extends CountingStatistics {
  private readonly realtime = new FrameTable();
  /** Counted here, not pushed yet. */
  private pending = new FrameTable();
  private hasPending = false;
  private readonly now: () => number;
  private pushing: Promise<void> = Promise.resolve();
  private lastPrune = 0;
  private failing = false;

  private constructor(private readonly deps: ClusterStatisticsDeps) {
    super();
    this.now = deps.now ?? Date.now;
    this.lastPrune = this.now();
  }

  static open(deps: ClusterStatisticsDeps): ClusterStatistics {
    const statistics = new ClusterStatistics(deps);
    statistics.startCounting(deps.events, PUSH_INTERVAL_MS);
    return statistics;
  }

  protected count(call: CountedCall): void {
    this.realtime.add(call);
    this.pending.add(call);
    this.hasPending = true;
  }

  override async read(query: StatisticsQuery): Promise<StatisticFrames> {
    if (query.source === 'realtime') return this.realtime.query(query.webservices, query.aggregation, query.from, query.to);
    await this.flush();
    const minStart = query.from === undefined ? undefined : frameStart(query.from, query.aggregation);
    const frames = await this.deps.store.read(query.webservices, query.aggregation, minStart, query.to);
    const horizon = this.now() - maxAgeMs(query.aggregation, this.deps.config.statistics.retentionDays);
    const result: StatisticFrames = new Map();
    for (const webservice of query.webservices) {
      const rows = (frames.get(webservice) ?? []).filter(([start]) => frameEnd(start, query.aggregation) > horizon);
      result.set(webservice, rows);
    }
    return result;
  }

  /** Pushes what this node counted since the last push; a failed push (Redis away) is kept for the next one. */
  override flush(): Promise<void> {
    this.pushing = this.pushing.then(async () => {
      const now = this.now();
      if (now - this.lastPrune >= this.deps.config.statistics.flushIntervalMs) {
        this.realtime.prune(now, this.deps.config.statistics.retentionDays);
        this.lastPrune = now;
      }
      if (!this.hasPending) return;
      const batch = this.pending;
      this.pending = new FrameTable();
      this.hasPending = false;
      try {
        await this.deps.store.add(this.framesOf(batch, now));
        if (this.failing) this.deps.logger.info({}, 'statistics: pushing to the cluster store works again');
        this.failing = false;
      } catch (error) {
        for (const { webservice, aggregation, start, totals } of batch.entries()) this.pending.merge(webservice, aggregation, start, totals);
        this.hasPending = true;
        // Once per outage, not every second.
        if (!this.failing) this.deps.logger.warn({ err: error }, 'statistics: pushing to the cluster store failed; the counts are kept for the next push');
        this.failing = true;
      }
    });
    return this.pushing;
  }

  private framesOf(batch: FrameTable, now: number): CounterFrame[] {
    const { retentionDays } = this.deps.config.statistics;
    const frames: CounterFrame[] = [];
    for (const { webservice, aggregation, start, totals } of batch.entries()) {
      const maxAge = maxAgeMs(aggregation, retentionDays);
      const expiresAt = maxAge === Number.POSITIVE_INFINITY ? undefined : frameEnd(start, aggregation) + maxAge;
      // A call that started before the retention (a clock step): nothing to keep.
      if (expiresAt !== undefined && expiresAt <= now) continue;
      frames.push({ webservice, aggregation, start, counters: totals, expiresAt, trimBefore: trimBefore(aggregation, maxAge, now) });
    }
    return frames;
  }
}

/** The start of the oldest frame of `aggregation` still within the retention: the index drops the ones before it. */
function trimBefore(aggregation: Aggregation, maxAge: number, now: number): number | undefined {
  return maxAge === Number.POSITIVE_INFINITY ? undefined : frameStart(now - maxAge, aggregation);
}
