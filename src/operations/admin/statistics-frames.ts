import { WEBSERVICES, type WebserviceName } from '../../core/webservices.js';
import type { FrameCounters } from '../../storage/statistics-store.js';

/** Reference `Admin_AggregationServerState`: the length of one time frame. */
export const AGGREGATIONS = ['minute', 'hour', 'day', 'month', 'year'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** What happened in one web service during one time frame (the cluster's shared store keeps the same fields). */
export type FrameTotals = FrameCounters;

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

/** How long a frame of `aggregation` is kept after it ended (Infinity: for good). */
export function maxAgeMs(aggregation: Aggregation, retentionDays: number): number {
  return Math.min(MAX_AGE_MS[aggregation], RETAINED.has(aggregation) ? retentionDays * DAY : Number.POSITIVE_INFINITY);
}

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

/** Adds the totals of another count of the same frame (e.g. a batch that could not be pushed yet). */
function mergeInto(totals: FrameTotals, other: FrameTotals): void {
  if (other.jobs === 0) return;
  totals.minDurationMs = totals.jobs === 0 ? other.minDurationMs : Math.min(totals.minDurationMs, other.minDurationMs);
  totals.maxDurationMs = Math.max(totals.maxDurationMs, other.maxDurationMs);
  totals.jobs += other.jobs;
  totals.errors += other.errors;
  totals.durationMs += other.durationMs;
  totals.bytesIn += other.bytesIn;
  totals.bytesOut += other.bytesOut;
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

  /** Adds a frame's totals to the one with the same start (creating it). */
  merge(webservice: WebserviceName, aggregation: Aggregation, start: number, totals: FrameTotals): void {
    const frames = this.frames(webservice, aggregation);
    const at = frameStart(start, aggregation);
    let mine = frames.get(at);
    if (!mine) frames.set(at, (mine = emptyTotals()));
    mergeInto(mine, totals);
  }

  /** Every frame held, of every web service and aggregation. */
  *entries(): Generator<{ webservice: WebserviceName; aggregation: Aggregation; start: number; totals: FrameTotals }> {
    for (const [webservice, byAggregation] of this.series) {
      for (const [aggregation, frames] of byAggregation) {
        for (const [start, totals] of frames) yield { webservice, aggregation, start, totals };
      }
    }
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
        const maxAge = maxAgeMs(aggregation, retentionDays);
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
