import { readdirSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumEngine, type HtmlJob } from '../../../src/engines/chromium/index.js';
import { PoolError } from '../../../src/engines/pool/pool-errors.js';
import { browserGroups, htmlJob, pdfText, processesUnder, tempDir, testServer, waitFor, type TestServer } from './helpers.js';
import { rejectionOf } from '../../helpers/rejection.js';

/**
 * The pool's rules with real failures of a real browser (see worker-pool.ts): a job past its time
 * limit kills the browser and fails with `timeout`; a browser that dies under a job is replaced and
 * the job retried once, a second death fails it with `poisoned`; an idle browser that dies is replaced.
 */

const dir = tempDir();
const engine = new ChromiumEngine({ size: 1, tempDir: dir, jobTimeoutMs: 15_000, queueTimeoutMs: 15_000, healthIntervalMs: 0 });
let server: TestServer;
/** Decides what happens to each request for /slow: the test sets it per case. */
let onSlow: (response: ServerResponse) => void = (response) => response.end();
const seenGroups = new Set<number>();

beforeAll(async () => {
  server = await testServer((request, response) => {
    if (request.url !== '/slow') return false;
    onSlow(response);
    return true;
  });
  await engine.start();
});

afterAll(async () => {
  await engine.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function currentGroup(): number {
  const [group] = browserGroups(dir);
  if (group === undefined) throw new Error('no browser running');
  seenGroups.add(group);
  return group;
}

function slowJob(marker: string): HtmlJob {
  return htmlJob(dir, `<p>${marker}</p><img src="${server.url('/slow')}">`, { network: { allowRemote: true, policy: { allowInternal: true } } });
}

const poolFailure = (promise: Promise<unknown>): Promise<PoolError> => rejectionOf(promise, PoolError);

async function convertsNormally(): Promise<void> {
  const job = htmlJob(dir, '<p>STILL-WORKS</p>');
  await engine.convert(job);
  expect(pdfText(job.outputPath)).toContain('STILL-WORKS');
}

describe('ChromiumEngine under the WorkerPool', () => {
  it('kills a hung job at its time limit and serves the next job on a fresh browser', async () => {
    const hung = currentGroup();
    const before = engine.stats();
    const started = Date.now();
    const error = await poolFailure(engine.convert(htmlJob(dir, '<script>while (true) {}</script>', { javascript: true }), { timeoutMs: 2_000, key: 'hung-doc' }));
    const elapsed = Date.now() - started;
    expect(error.kind).toBe('timeout');
    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeLessThan(3_000);
    await convertsNormally();
    expect(currentGroup()).not.toBe(hung);
    const after = engine.stats();
    expect(after.timeouts).toBe(before.timeouts + 1);
    expect(after.restarts).toBe(before.restarts + 1);
  });

  it('retries a job whose browser is killed under it once, on a fresh browser', async () => {
    const before = engine.stats();
    let attempts = 0;
    onSlow = (response) => {
      attempts++;
      // First attempt: the browser dies while the page waits for this image. Second: it arrives.
      if (attempts === 1) process.kill(-currentGroup(), 'SIGKILL');
      else response.end();
    };
    const job = slowJob('SURVIVOR');
    expect(await engine.convert(job)).toEqual({ blocked: [], failed: [] });
    expect(attempts).toBe(2);
    expect(pdfText(job.outputPath)).toContain('SURVIVOR');
    const after = engine.stats();
    expect(after.crashes).toBe(before.crashes + 1);
    expect(after.restarts).toBe(before.restarts + 1);
    expect(after.completed).toBe(before.completed + 1);
    await convertsNormally();
  });

  it('refuses a job that kills the browser twice, and its key from then on', async () => {
    const before = engine.stats();
    onSlow = () => process.kill(-currentGroup(), 'SIGKILL');
    const error = await poolFailure(engine.convert(slowJob('DOOMED'), { key: 'doomed-doc' }));
    expect(error.kind).toBe('poisoned');
    expect(engine.stats().crashes).toBe(before.crashes + 2);

    const again = await poolFailure(engine.convert(slowJob('DOOMED'), { key: 'doomed-doc' }));
    expect(again.kind).toBe('poisoned');
    expect(engine.stats().crashes).toBe(before.crashes + 2); // refused without touching a browser
    onSlow = (response) => response.end();
    await convertsNormally();
  });

  it('replaces a browser killed while idle', async () => {
    await waitFor(() => engine.stats().ready === 1 && engine.stats().starting === 0);
    const before = engine.stats();
    process.kill(-currentGroup(), 'SIGKILL');
    await waitFor(() => engine.stats().restarts === before.restarts + 1 && engine.stats().ready === 1);
    expect(await engine.healthy()).toBe(true);
    await convertsNormally();
  });

  it('recycles browsers after maxJobsPerWorker jobs and on recycleAll', async () => {
    const own = tempDir();
    const recycling = new ChromiumEngine({ size: 1, tempDir: own, maxJobsPerWorker: 2, healthIntervalMs: 0 });
    const reasons: string[] = [];
    recycling.pool.on('restart', ({ reason }) => reasons.push(reason));
    await recycling.start();
    try {
      // The old browser keeps serving until its replacement is up, so a third job may still run on it.
      for (let i = 0; i < 3; i++) await recycling.convert(htmlJob(own, `<p>${i}</p>`));
      await waitFor(() => reasons.length === 1);
      recycling.recycleAll('fonts changed');
      await waitFor(() => reasons.length === 2);
      expect(reasons).toEqual(['recycled after 2 jobs', 'fonts changed']);
      await recycling.convert(htmlJob(own, '<p>after</p>'));
    } finally {
      await recycling.close();
      await waitFor(() => processesUnder(own).length === 0, 3_000);
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('leaves no browser process and no profile behind after close()', async () => {
    const other = new ChromiumEngine({ size: 2, tempDir: dir, healthIntervalMs: 0 });
    await other.start();
    expect(browserGroups(dir).length).toBe(3);
    for (const group of browserGroups(dir)) seenGroups.add(group);
    await other.close();
    await engine.close();
    expect(await engine.healthy()).toBe(false);
    expect((await poolFailure(engine.convert(htmlJob(dir, '<p>late</p>')))).kind).toBe('unavailable');
    await waitFor(() => processesUnder(dir).length === 0, 3_000);
    // Nothing of any browser this file started survives in its process group either.
    const alive = readdirSync('/proc').filter((name) => /^\d+$/.test(name) && seenGroups.has(Number(name)));
    expect(alive).toEqual([]);
    expect(readdirSync(dir).filter((name) => name.startsWith('quire-chromium-'))).toEqual([]);
  });
});
