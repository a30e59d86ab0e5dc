import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HeapCompaction } from '../../src/observability/heap-compaction.js';

/** A server whose requests stay open until released, so that "in flight" is under the test's control. */
async function holdingServer() {
  const open: http.ServerResponse[] = [];
  const server = http.createServer((_request, response) => void open.push(response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const request = () => {
    const done = new Promise<void>((resolve) => http.get(url, (r) => r.resume().on('end', resolve)).on('error', () => resolve()));
    return done;
  };
  const release = () => {
    for (const response of open.splice(0)) response.end('ok');
  };
  return { server, request, release, inFlight: () => open.length };
}

const servers: http.Server[] = [];
const compactions: HeapCompaction[] = [];
afterEach(() => {
  for (const c of compactions.splice(0)) c.stop();
  for (const s of servers.splice(0)) s.close();
});

describe('HeapCompaction', () => {
  it('collects once the server is quiet, never while a request is in flight', async () => {
    const calls: string[] = [];
    const held = await holdingServer();
    servers.push(held.server);
    const compaction = new HeapCompaction({ quietMs: 40, collect: () => calls.push('full') });
    compactions.push(compaction);
    compaction.watch(held.server);
    const answered = held.request();
    await vi.waitFor(() => expect(held.inFlight()).toBe(1));
    compaction.compactWhenQuiet();
    // Ten quiet periods with the request open: nothing.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(calls).toEqual([]);
    held.release();
    await answered;
    await vi.waitFor(() => expect(calls).toEqual(['full']), { timeout: 5_000 });
    // Asked once, done once: no growth since, so no more.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls).toEqual(['full']);
  });

  it('runs V8’s own full collection without --expose-gc (in a process of its own, as the server does)', () => {
    // A separate process: the test runner's worker is not where the server runs, and its heap is not ours to judge.
    const script = `
      import { EventEmitter } from 'node:events';
      import { HeapCompaction } from ${JSON.stringify(new URL('../../src/observability/heap-compaction.ts', import.meta.url).href)};
      let garbage = [];
      for (let i = 0; i < 300000; i++) garbage.push({ i, text: 'x' + i });
      const compaction = new HeapCompaction({ quietMs: 20 });
      compaction.watch(new EventEmitter());
      const before = process.memoryUsage().heapUsed;
      garbage = null;
      compaction.compactWhenQuiet();
      setTimeout(() => {
        compaction.stop();
        console.log(JSON.stringify({ before, after: process.memoryUsage().heapUsed, gcGlobal: typeof globalThis.gc }));
      }, 500);
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.status, child.stderr).toBe(0);
    const { before, after, gcGlobal } = JSON.parse(child.stdout.trim().split('\n').pop()!) as { before: number; after: number; gcGlobal: string };
    expect(before).toBeGreaterThan(20 * 1024 * 1024);
    expect(after).toBeLessThan(before / 2);
    // The collector is taken from a fresh context: the server's own code gets no global gc().
    expect(gcGlobal).toBe('undefined');
  });

  it('stops following the servers when stopped', async () => {
    const calls: string[] = [];
    const held = await holdingServer();
    servers.push(held.server);
    const compaction = new HeapCompaction({ quietMs: 20, collect: () => calls.push('full') });
    compaction.watch(held.server);
    expect(held.server.listenerCount('request')).toBe(2);
    compaction.stop();
    expect(held.server.listenerCount('request')).toBe(1);
    compaction.compactWhenQuiet();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(calls).toEqual([]);
  });
});
