import { WEBSERVICES, type WebserviceName } from '../../core/webservices.js';

/** Reference `Admin_AggregationServerState`: the length of one time frame. */
export const AGGREGATIONS = ['minute', 'hour', 'day', 'month', 'year'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** What happened in one web service during one time frame. */
export interface FrameTotals {
  jobs: number;
  errors: number;
  /** Sum of the calls' durations. */
  durationMs: number;
  minDurationMs: number;
  maxDurationMs: number;
  bytesIn: number;
  bytesOut: number;
}

/** One finished call, as the statistics count it. */
export interface CountedCall {
  webservice: WebserviceName;
  startedAt: number;
  ok: boolean;
  durationMs: number;
  bytesIn: number;
  bytesOut: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The longest a frame of each aggregation is kept, whatever the retention says: this is what bounds
 * the memory (at most 2,880 minute, 2,232 hour frames per web service). Day frames follow the
 * retention alone; month and year frames are few and always kept.
 */
const MAX_AGE_MS: Readonly<Record<Aggregation, number>> = {
  minute: 2 * DAY,
  hour: 93 * DAY,
  day: Number.POSITIVE_INFINITY,
  month: Number.POSITIVE_INFINITY,
  year: Number.POSITIVE_INFINITY,
};
/** The aggregations the retention applies to (the configuration: "minute-to-day buckets"). */
const RETAINED: ReadonlySet<Aggregation> = new Set(['minute', 'hour', 'day']);

/** Start of the UTC time frame that contains `at`. */
export function frameStart(at: number, aggregation: Aggregation): number {
  const date = new Date(at);
  switch (aggregation) {
    case 'minute':
      return Math.floor(at / MINUTE) * MINUTE;
    case 'hour':
      return Math.floor(at / HOUR) * HOUR;
    case 'day':
      return Math.floor(at / DAY) * DAY;
    case 'month':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    case 'year':
      return Date.UTC(date.getUTCFullYear(), 0, 1);
  }
}

/** Start of the frame after the one starting at `start`. */
export function frameEnd(start: number, aggregation: Aggregation): number {
  const date = new Date(start);
  switch (aggregation) {
    case 'minute':
      return start + MINUTE;
    case 'hour':
      return start + HOUR;
    case 'day':
      return start + DAY;
    case 'month':
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    case 'year':
      return Date.UTC(date.getUTCFullYear() + 1, 0, 1);
  }
}

export function emptyTotals(): FrameTotals {
  return { jobs: 0, errors: 0, durationMs: 0, minDurationMs: 0, maxDurationMs: 0, bytesIn: 0, bytesOut: 0 };
}

function addTo(totals: FrameTotals, call: CountedCall): void {
  totals.minDurationMs = totals.jobs === 0 ? call.durationMs : Math.min(totals.minDurationMs, call.durationMs);
  totals.maxDurationMs = Math.max(totals.maxDurationMs, call.durationMs);
  totals.jobs += 1;
  if (!call.ok) totals.errors += 1;
  totals.durationMs += call.durationMs;
  totals.bytesIn += call.bytesIn;
  totals.bytesOut += call.bytesOut;
}

/** Frames of one web service and aggregation, by frame start (epoch ms). */
export type Series = Map<number, FrameTotals>;

/**
 * The totals of every web service per minute, hour, day, month and year. One call updates one frame
 * of each aggregation, so reading an aggregation never has to add frames up.
 */
export class FrameTable {
  private readonly series = new Map<WebserviceName, Map<Aggregation, Series>>();

  constructor() {
    for (const webservice of WEBSERVICES) {
      this.series.set(webservice, new Map(AGGREGATIONS.map((aggregation) => [aggregation, new Map()])));
    }
  }

  /** The frames of one web service and aggregation (live: the table keeps updating it). */
  frames(webservice: WebserviceName, aggregation: Aggregation): Series {
    return this.series.get(webservice)!.get(aggregation)!;
  }

  add(call: CountedCall): void {
    for (const aggregation of AGGREGATIONS) {
      const frames = this.frames(call.webservice, aggregation);
      const start = frameStart(call.startedAt, aggregation);
      let totals = frames.get(start);
      if (!totals) frames.set(start, (totals = emptyTotals()));
      addTo(totals, call);
    }
  }

  /** Puts a frame read from disk in place (replacing one with the same start). */
  restore(webservice: WebserviceName, aggregation: Aggregation, start: number, totals: FrameTotals): void {
    this.frames(webservice, aggregation).set(frameStart(start, aggregation), totals);
  }

  /**
   * The frames of `aggregation` that overlap [from, to] (either end open when undefined), oldest
   * first, for each of the web services.
   */
  query(webservices: readonly WebserviceName[], aggregation: Aggregation, from?: number, to?: number): Map<WebserviceName, Array<[number, FrameTotals]>> {
    const result = new Map<WebserviceName, Array<[number, FrameTotals]>>();
    for (const webservice of webservices) {
      const rows: Array<[number, FrameTotals]> = [];
      for (const [start, totals] of this.frames(webservice, aggregation)) {
        if (to !== undefined && start > to) continue;
        if (from !== undefined && frameEnd(start, aggregation) <= from) continue;
        rows.push([start, { ...totals }]);
      }
      result.set(
        webservice,
        rows.sort((a, b) => a[0] - b[0]),
      );
    }
    return result;
  }

  /** Drops the frames that ended before their aggregation's horizon; returns how many went. */
  prune(now: number, retentionDays: number): number {
    let dropped = 0;
    for (const byAggregation of this.series.values()) {
      for (const [aggregation, frames] of byAggregation) {
        const maxAge = Math.min(MAX_AGE_MS[aggregation], RETAINED.has(aggregation) ? retentionDays * DAY : Number.POSITIVE_INFINITY);
        if (maxAge === Number.POSITIVE_INFINITY) continue;
        const horizon = now - maxAge;
        for (const start of frames.keys()) {
          if (frameEnd(start, aggregation) <= horizon) {
            frames.delete(start);
            dropped++;
          }
        }
      }
    }
    return dropped;
  }
}
