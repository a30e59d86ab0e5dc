import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QuireError } from '../../../src/core/errors.js';
import { OperationEvents, type OperationEvent } from '../../../src/observability/operation-events.js';
import { parseStatisticTime } from '../../../src/operations/admin/statistics-dates.js';
import { frameEnd, frameStart } from '../../../src/operations/admin/statistics-frames.js';
import { Statistics } from '../../../src/operations/admin/statistics.js';

const T0 = Date.UTC(2024, 4, 31, 23, 59, 30); // 2024-05-31T23:59:30Z: the next minute is a new hour, day and month

function event(overrides: Partial<OperationEvent> = {}): OperationEvent {
  return {
    webservice: 'toolbox',
    route: '/webPDF/rest/toolbox/:documentId',
    method: 'POST',
    statusCode: 303,
    ok: true,
    startedAt: T0,
    durationMs: 100,
    bytesIn: 10,
    bytesOut: 0,
    ...overrides,
  };
}

interface Harness {
  statistics: Statistics;
  events: OperationEvents;
  clock: { now: number };
  warnings: string[];
}

describe('Statistics (aggregation)', () => {
  let dataDir: string;
  const open: Harness[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-stats-unit-'));
  });
  afterEach(async () => {
    for (const harness of open.splice(0)) await harness.statistics.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(options: { retentionDays?: number; flushIntervalMs?: number; now?: number } = {}): Promise<Harness> {
    const events = new OperationEvents();
    const clock = { now: options.now ?? T0 };
    const warnings: string[] = [];
    const statistics = await Statistics.open({
      config: { statistics: { flushIntervalMs: options.flushIntervalMs ?? 3_600_000, retentionDays: options.retentionDays ?? 400 } },
      events,
      dataDir,
      logger: { warn: (_object: unknown, message?: string) => void warnings.push(String(message)) },
      now: () => clock.now,
    });
    const harness = { statistics, events, clock, warnings };
    open.push(harness);
    return harness;
  }

  it('counts calls, failures and durations per frame of each aggregation', async () => {
    const { statistics, events } = await start();
    events.emit(event({ durationMs: 100 }));
    events.emit(event({ durationMs: 40.4, ok: false, statusCode: 400, errorCode: -14 }));
    events.emit(event({ startedAt: T0 + 60_000, durationMs: 7 })); // next minute, hour, day and month
    events.emit(event({ webservice: 'converter', durationMs: 5 }));

    const minutes = statistics.read({ source: 'realtime', aggregation: 'minute', webservices: ['toolbox'] }).get('toolbox')!;
    expect(minutes.map(([start]) => new Date(start).toISOString())).toEqual(['2024-05-31T23:59:00.000Z', '2024-06-01T00:00:00.000Z']);
    expect(minutes[0]![1]).toEqual({ jobs: 2, errors: 1, durationMs: 140.4, minDurationMs: 40.4, maxDurationMs: 100, bytesIn: 20, bytesOut: 0 });
    expect(minutes[1]![1]).toMatchObject({ jobs: 1, errors: 0, durationMs: 7 });

    const months = statistics.read({ source: 'persistent', aggregation: 'month', webservices: ['toolbox', 'converter', 'ocr'] });
    expect(months.get('toolbox')!.map(([start, t]) => [new Date(start).toISOString(), t.jobs])).toEqual([
      ['2024-05-01T00:00:00.000Z', 2],
      ['2024-06-01T00:00:00.000Z', 1],
    ]);
    expect(months.get('converter')!.map(([, t]) => t.jobs)).toEqual([1]);
    expect(months.get('ocr')).toEqual([]);
    const years = statistics.read({ source: 'realtime', aggregation: 'year', webservices: ['toolbox'] }).get('toolbox')!;
    expect(years).toHaveLength(1);
    expect(years[0]![1]).toMatchObject({ jobs: 3, errors: 1 });
  });

  it('ignores everything that is not a web service', async () => {
    const { statistics, events } = await start();
    for (const webservice of ['documents', 'admin', 'authentication', 'root', 'toolboxes']) events.emit(event({ webservice }));
    const all = statistics.read({ source: 'realtime', aggregation: 'year', webservices: ['toolbox', 'converter'] });
    expect([...all.values()].flat()).toEqual([]);
  });

  it('selects the frames that overlap [from, to]', async () => {
    const { statistics, events } = await start();
    for (let minute = 0; minute < 5; minute++) events.emit(event({ startedAt: T0 + minute * 60_000 }));
    const starts = (from?: number, to?: number) =>
      statistics
        .read({ source: 'realtime', aggregation: 'minute', webservices: ['toolbox'], from, to })
        .get('toolbox')!
        .map(([s]) => (s - frameStart(T0, 'minute')) / 60_000);
    expect(starts()).toEqual([0, 1, 2, 3, 4]);
    // from inside minute 1 still includes minute 1; to exactly at the start of minute 3 includes it.
    expect(starts(T0 + 60_000, frameStart(T0, 'minute') + 3 * 60_000)).toEqual([1, 2, 3]);
    expect(starts(T0 + 10 * 60_000)).toEqual([]);
    // A month frame overlaps a range inside it (what the clients ask: yesterday..now per month).
    const month = statistics.read({ source: 'realtime', aggregation: 'month', webservices: ['toolbox'], from: T0 - 1000, to: T0 }).get('toolbox')!;
    expect(month).toHaveLength(1);
  });

  it('keeps persistent frames across a close and open, realtime ones not', async () => {
    const first = await start();
    first.events.emit(event());
    first.events.emit(event({ ok: false, statusCode: 500 }));
    await first.statistics.close();
    const file = path.join(dataDir, 'statistics', 'persistent.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { columns: string[]; frames: Record<string, Record<string, number[][]>> };
    expect(saved.columns[0]).toBe('start');
    expect(saved.frames.toolbox!.day).toEqual([[frameStart(T0, 'day'), 2, 1, 200, 100, 100, 20, 0]]);

    const second = await start();
    expect(
      second.statistics
        .read({ source: 'persistent', aggregation: 'day', webservices: ['toolbox'] })
        .get('toolbox')!
        .map(([, t]) => [t.jobs, t.errors]),
    ).toEqual([[2, 1]]);
    expect(second.statistics.read({ source: 'realtime', aggregation: 'day', webservices: ['toolbox'] }).get('toolbox')).toEqual([]);
    second.events.emit(event());
    await second.statistics.flush();
    const third = JSON.parse(readFileSync(file, 'utf8')) as { frames: Record<string, Record<string, number[][]>> };
    expect(third.frames.toolbox!.day![0]![1]).toBe(3);
    // No temp files are left behind by the atomic writes.
    expect(readdirSync(path.dirname(file))).toEqual(['persistent.json']);
  });

  it('flushes on its interval', async () => {
    const { events } = await start({ flushIntervalMs: 50 });
    events.emit(event());
    const file = path.join(dataDir, 'statistics', 'persistent.json');
    await expect.poll(() => existsSync(file), { timeout: 2000 }).toBe(true);
  });

  it('prunes minute frames after two days and day frames after the retention, keeps months', async () => {
    const { statistics, events, clock } = await start({ retentionDays: 3 });
    events.emit(event());
    const count = (aggregation: 'minute' | 'hour' | 'day' | 'month') => statistics.read({ source: 'persistent', aggregation, webservices: ['toolbox'] }).get('toolbox')!.length;
    clock.now = T0 + 2 * 86_400_000 + 60_000;
    await statistics.flush();
    expect([count('minute'), count('hour'), count('day'), count('month')]).toEqual([0, 1, 1, 1]);
    clock.now = frameEnd(frameStart(T0, 'day'), 'day') + 3 * 86_400_000;
    await statistics.flush();
    expect([count('minute'), count('hour'), count('day'), count('month')]).toEqual([0, 0, 0, 1]);
    expect(statistics.read({ source: 'realtime', aggregation: 'day', webservices: ['toolbox'] }).get('toolbox')).toEqual([]);
  });

  it('starts empty and keeps the damaged file aside when it cannot read it', async () => {
    mkdirSync(path.join(dataDir, 'statistics'));
    writeFileSync(path.join(dataDir, 'statistics', 'persistent.json'), '{"version": 1, "frames": ');
    const { statistics, warnings } = await start();
    expect(warnings.join()).toMatch(/could not be read/);
    expect(statistics.read({ source: 'persistent', aggregation: 'year', webservices: ['toolbox'] }).get('toolbox')).toEqual([]);
    expect(readdirSync(path.join(dataDir, 'statistics')).some((name) => name.startsWith('persistent.json.damaged-'))).toBe(true);
  });

  it('skips rows and names it does not know when loading', async () => {
    mkdirSync(path.join(dataDir, 'statistics'));
    const start0 = frameStart(T0, 'day');
    writeFileSync(
      path.join(dataDir, 'statistics', 'persistent.json'),
      JSON.stringify({
        version: 1,
        columns: [],
        frames: {
          toolbox: {
            day: [
              [start0, 4, 1, 50, 5, 20, 0, 0],
              [start0, 'x', 0, 0, 0, 0, 0, 0],
              [start0, -1, 0, 0, 0, 0, 0, 0],
            ],
            week: [[start0, 1, 0, 0, 0, 0, 0, 0]],
          },
          documents: { day: [[start0, 9, 0, 0, 0, 0, 0, 0]] },
        },
      }),
    );
    const { statistics } = await start();
    const days = statistics.read({ source: 'persistent', aggregation: 'day', webservices: ['toolbox'] }).get('toolbox')!;
    expect(days.map(([, t]) => t.jobs)).toEqual([4]);
  });
});

describe('parseStatisticTime', () => {
  const at = Date.UTC(2022, 0, 20, 12, 30, 0);
  it.each([
    ['2022-01-20T12:30:00.000Z', at],
    ['2022-01-20T12:30:00,000Z', at],
    ['2022-01-20T12:30:00Z', at],
    ['2022-01-20T13:30:00+01:00', at],
    ['2022-01-20T13:30:00 01:00', at], // the + of an unencoded query
    ['2022-01-20T10:00:00-02:30', at],
    ['2022-01-20T12:30:00.5Z', at + 500],
  ])('reads %s', (value, expected) => {
    expect(parseStatisticTime(value, 'start')).toBe(expected);
  });

  it('treats an empty value as no bound', () => {
    expect(parseStatisticTime('', 'start')).toBeUndefined();
    expect(parseStatisticTime(undefined, 'end')).toBeUndefined();
  });

  it.each(['2022-01-20', '2022-01-20T12:30:00', 'yesterday', '2022-02-30T00:00:00Z', '2022-01-20T25:00:00Z', '2022-01-20T12:30:00+24:00'])('refuses %s with -14', (value) => {
    let error: unknown;
    try {
      parseStatisticTime(value, 'end');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(QuireError);
    expect((error as QuireError).errorCode).toBe(-14);
    expect((error as QuireError).message).toContain('end');
  });
});
