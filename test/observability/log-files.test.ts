import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLogDate, LogFiles } from '../../src/observability/log-files.js';
import { createLogger } from '../../src/observability/logger.js';

describe('LogFiles', () => {
  let dir: string;
  let clock: number;
  const now = () => clock;
  const at = (iso: string) => {
    clock = Date.parse(iso);
  };
  const lines = (date: string) =>
    readFileSync(path.join(dir, `quire-${date}.log`), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string });

  beforeEach(() => {
    dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'quire-logs-')), 'logs');
    at('2024-03-10T12:00:00Z');
  });

  afterEach(() => {
    rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  it("creates today's file at open, private to the server", async () => {
    const files = await LogFiles.open({ dir, retentionDays: 30, now });
    const today = await files.file();
    expect(today).toEqual({ date: '2024-03-10', path: path.join(dir, 'quire-2024-03-10.log'), size: 0 });
    expect(statSync(today!.path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    await files.close();
  });

  it("switches to the next day's file at UTC midnight without losing or misplacing a line", async () => {
    const files = await LogFiles.open({ dir, retentionDays: 30, now });
    const logger = createLogger('info', files.destination());
    at('2024-03-10T23:59:59.990Z');
    for (let i = 0; i < 500; i++) logger.info(`before ${i}`);
    at('2024-03-11T00:00:00.000Z');
    for (let i = 0; i < 500; i++) logger.info(`after ${i}`);
    await files.close();

    const before = lines('2024-03-10').map((line) => line.msg);
    const after = lines('2024-03-11').map((line) => line.msg);
    expect(before).toEqual(Array.from({ length: 500 }, (_, i) => `before ${i}`));
    expect(after).toEqual(Array.from({ length: 500 }, (_, i) => `after ${i}`));
  });

  it("answers the file of a day with its size, and today's even before its first line", async () => {
    const files = await LogFiles.open({ dir, retentionDays: 30, now });
    const logger = createLogger('info', files.destination());
    logger.info('one line');
    const first = await files.file('2024-03-10');
    expect(first?.size).toBe(readFileSync(first!.path).length);
    expect(first!.size).toBeGreaterThan(0);

    at('2024-03-11T08:00:00Z');
    expect((await files.file())?.date).toBe('2024-03-11');
    expect((await files.file())?.size).toBe(0);
    expect(await files.file('2024-03-09')).toBeUndefined();
    await files.close();
  });

  it('lists the days of a date range that have files, oldest first', async () => {
    const files = await LogFiles.open({ dir, retentionDays: 30, now });
    for (const day of ['2024-03-08', '2024-03-01', '2024-03-05']) writeFileSync(files.pathOf(day), `${day}\n`);
    writeFileSync(path.join(dir, 'unrelated.txt'), 'x');
    expect((await files.files('2024-03-02', '2024-03-10')).map((f) => f.date)).toEqual(['2024-03-05', '2024-03-08', '2024-03-10']);
    expect((await files.files('2024-03-01', '2024-03-01')).map((f) => [f.date, f.size])).toEqual([['2024-03-01', 11]]);
    expect(await files.files('2024-02-01', '2024-02-28')).toEqual([]);
    await files.close();
  });

  it('deletes files older than retentionDays at open and at each daily prune', async () => {
    mkdirSync(dir, { recursive: true });
    for (const day of ['2024-03-06', '2024-03-07', '2024-03-08', '2024-03-09']) writeFileSync(path.join(dir, `quire-${day}.log`), 'x\n');
    writeFileSync(path.join(dir, 'notes.txt'), 'kept');
    // 3 days: today (the 10th), the 9th and the 8th.
    const files = await LogFiles.open({ dir, retentionDays: 3, now });
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'quire-2024-03-08.log', 'quire-2024-03-09.log', 'quire-2024-03-10.log']);

    at('2024-03-11T00:00:01Z');
    await files.prune();
    expect(existsSync(path.join(dir, 'quire-2024-03-08.log'))).toBe(false);
    expect(existsSync(path.join(dir, 'quire-2024-03-09.log'))).toBe(true);
    expect(existsSync(path.join(dir, 'notes.txt'))).toBe(true);
    await files.close();
  });

  it('still writes the lines logged after close (a restart logs while it closes the old instance)', async () => {
    const files = await LogFiles.open({ dir, retentionDays: 30, now });
    const logger = createLogger('info', files.destination());
    logger.info('open');
    await files.close();
    logger.warn('after close');
    expect(lines('2024-03-10').map((line) => line.msg)).toEqual(['open', 'after close']);
  });

  it('knows a real yyyy-MM-dd date', () => {
    expect(isLogDate('2024-02-29')).toBe(true);
    expect(isLogDate('2023-02-29')).toBe(false);
    expect(isLogDate('2024-13-01')).toBe(false);
    expect(isLogDate('2024-1-01')).toBe(false);
    expect(isLogDate('../../etc')).toBe(false);
  });
});
