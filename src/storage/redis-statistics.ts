import type { CounterFrame, FrameCounters, SharedStatisticsStore } from './statistics-store.js';
import { execMulti, redisCall, type RedisClient } from './redis/connection.js';

/**
 * The cluster's statistics counters in Redis. Each frame is a hash `stats:<webservice>:<aggregation>:<start>`
 * of the FrameCounters fields, which expires when the frame leaves the retention; `stats:<webservice>:<aggregation>`
 * is the sorted set of the frames' starts (trimmed as frames leave). A node pushes its batch in one
 * script call, so two nodes adding to one frame at once both count (HINCRBY, not read-modify-write).
 */
export class RedisStatisticsStore implements SharedStatisticsStore {
  constructor(private readonly redis: RedisClient) {}

  async add(frames: readonly CounterFrame[]): Promise<void> {
    if (frames.length === 0) return;
    const keys: string[] = [];
    const args: string[] = [];
    for (const frame of frames) {
      keys.push(frameKey(frame.webservice, frame.aggregation, frame.start), seriesKey(frame.webservice, frame.aggregation));
      const c = frame.counters;
      args.push(String(frame.start), String(c.jobs), String(c.errors), String(c.durationMs), String(c.minDurationMs), String(c.maxDurationMs));
      args.push(String(c.bytesIn), String(c.bytesOut), frame.expiresAt === undefined ? '' : String(frame.expiresAt), frame.trimBefore === undefined ? '' : String(frame.trimBefore));
    }
    await redisCall(() => this.redis.eval(ADD, keys.length, ...keys, ...args));
  }

  async read(webservices: readonly string[], aggregation: string, minStart: number | undefined, maxStart: number | undefined): Promise<Map<string, Array<[number, FrameCounters]>>> {
    const index = this.redis.pipeline();
    for (const webservice of webservices) index.zrangebyscore(seriesKey(webservice, aggregation), minStart ?? '-inf', maxStart ?? '+inf');
    const starts = (await execMulti(index)) as string[][];
    const frames = this.redis.pipeline();
    webservices.forEach((webservice, i) => {
      for (const start of starts[i]!) frames.hgetall(frameKey(webservice, aggregation, Number(start)));
    });
    const values = (await execMulti(frames)) as Array<Record<string, string>>;
    const result = new Map<string, Array<[number, FrameCounters]>>();
    let next = 0;
    webservices.forEach((webservice, i) => {
      const rows: Array<[number, FrameCounters]> = [];
      for (const start of starts[i]!) {
        const counters = toCounters(values[next++]!);
        // Expired (left the retention) but not trimmed from the index yet.
        if (counters) rows.push([Number(start), counters]);
      }
      result.set(webservice, rows);
    });
    return result;
  }
}

function seriesKey(webservice: string, aggregation: string): string {
  return `stats:${webservice}:${aggregation}`;
}

function frameKey(webservice: string, aggregation: string, start: number): string {
  return `${seriesKey(webservice, aggregation)}:${start}`;
}

const FIELDS = ['jobs', 'errors', 'durationMs', 'minDurationMs', 'maxDurationMs', 'bytesIn', 'bytesOut'] as const;

function toCounters(hash: Record<string, string>): FrameCounters | undefined {
  if (hash.jobs === undefined) return undefined;
  const counters = {} as FrameCounters;
  for (const field of FIELDS) {
    const value = Number(hash[field] ?? 0);
    counters[field] = Number.isFinite(value) ? value : 0;
  }
  return counters;
}

/**
 * KEYS: per frame its hash and its series' index; ARGV: per frame start, jobs, errors, durationMs, min, max,
 * bytesIn, bytesOut, expiresAt ('' = never), trimBefore ('' = nothing). Durations are fractional (HINCRBYFLOAT).
 */
const ADD = `for i = 1, #KEYS / 2 do
  local frame, series = KEYS[2 * i - 1], KEYS[2 * i]
  local o = (i - 1) * 10
  local min, max = tonumber(ARGV[o + 5]), tonumber(ARGV[o + 6])
  if tonumber(redis.call('HGET', frame, 'jobs') or '0') == 0 then
    redis.call('HSET', frame, 'minDurationMs', ARGV[o + 5], 'maxDurationMs', ARGV[o + 6])
  else
    if min < tonumber(redis.call('HGET', frame, 'minDurationMs') or ARGV[o + 5]) then redis.call('HSET', frame, 'minDurationMs', ARGV[o + 5]) end
    if max > tonumber(redis.call('HGET', frame, 'maxDurationMs') or ARGV[o + 6]) then redis.call('HSET', frame, 'maxDurationMs', ARGV[o + 6]) end
  end
  redis.call('HINCRBY', frame, 'jobs', ARGV[o + 2])
  redis.call('HINCRBY', frame, 'errors', ARGV[o + 3])
  redis.call('HINCRBYFLOAT', frame, 'durationMs', ARGV[o + 4])
  redis.call('HINCRBY', frame, 'bytesIn', ARGV[o + 7])
  redis.call('HINCRBY', frame, 'bytesOut', ARGV[o + 8])
  if ARGV[o + 9] ~= '' then redis.call('PEXPIREAT', frame, ARGV[o + 9]) end
  redis.call('ZADD', series, ARGV[o + 1], ARGV[o + 1])
  if ARGV[o + 10] ~= '' then redis.call('ZREMRANGEBYSCORE', series, '-inf', '(' .. ARGV[o + 10]) end
end
return #KEYS / 2`;
