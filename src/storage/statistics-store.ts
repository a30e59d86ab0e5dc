/**
 * The cluster's shared statistics counters (admin/statistic `persistent`): one set of frames that every
 * node adds its calls to, read whole by any node. The embedded server keeps its frames in memory and a
 * file (operations/admin/statistics-file.ts) and needs none of this; RedisStatisticsStore implements it.
 */

/** What happened in one web service during one time frame. */
export interface FrameCounters {
  jobs: number;
  errors: number;
  /** Sum of the calls' durations. */
  durationMs: number;
  minDurationMs: number;
  maxDurationMs: number;
  bytesIn: number;
  bytesOut: number;
}

/** One frame's counts to add (a node's batch since its last push). */
export interface CounterFrame {
  webservice: string;
  aggregation: string;
  start: number;
  counters: FrameCounters;
  /** Epoch ms when the frame leaves the retention; undefined = kept for good. */
  expiresAt: number | undefined;
  /** Frames of this series that start before it are past the retention (undefined = none are). */
  trimBefore: number | undefined;
}

export interface SharedStatisticsStore {
  /** Adds the counters to the shared frames: sums add up, minimum and maximum combine; all frames at once. */
  add(frames: readonly CounterFrame[]): Promise<void>;
  /** Frames of each web service and aggregation with `minStart <= start <= maxStart` (either end open when undefined), oldest first. */
  read(webservices: readonly string[], aggregation: string, minStart: number | undefined, maxStart: number | undefined): Promise<Map<string, Array<[number, FrameCounters]>>>;
}
