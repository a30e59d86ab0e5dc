import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationEvents, type OperationEvent } from '../../../src/observability/operation-events.js';
import { ClusterStatistics } from '../../../src/operations/admin/cluster-statistics.js';
import { RedisStatisticsStore } from '../../../src/storage/redis-statistics.js';
import { waitForRedis, type RedisClient } from '../../../src/storage/redis/connection.js';
import { redisClients, startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

let server: RedisServer;
const clients = redisClients(() => server);
const opened: ClusterStatistics[] = [];
let prefixes = 0;

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  for (const statistics of opened.splice(0)) await statistics.close().catch(() => undefined);
  await clients.closeAll();
  await server.stop();
});

const NOW = Date.now();

function event(overrides: Partial<OperationEvent> = {}): OperationEvent {
  return { webservice: 'toolbox', route: '/webPDF/rest/toolbox/:documentId', method: 'POST', statusCode: 303, ok: true, startedAt: NOW, durationMs: 100, bytesIn: 10, bytesOut: 5, ...overrides };
}

interface Node {
  statistics: ClusterStatistics;
  events: OperationEvents;
  warnings: string[];
  redis: RedisClient;
}

/** Two nodes of one cluster (one key prefix), each with its connection and its own events. */
async function cluster(): Promise<[Node, Node]> {
  const prefix = `stats-${++prefixes}:`;
  const nodes: Node[] = [];
  for (const name of ['a', 'b']) {
    const events = new OperationEvents();
    const warnings: string[] = [];
    const redis = await clients.open(prefix, name);
    const statistics = ClusterStatistics.open({
      config: { statistics: { flushIntervalMs: 3_600_000, retentionDays: 400 } },
      events,
      logger: { warn: (_o: unknown, message?: string) => void warnings.push(String(message)), info: () => undefined },
      store: new RedisStatisticsStore(redis),
    });
    opened.push(statistics);
    nodes.push({ statistics, events, warnings, redis });
  }
  return nodes as [Node, Node];
}

async function toolbox(node: Node, source: 'persistent' | 'realtime', aggregation: 'minute' | 'day' | 'year' = 'day', from?: number, to?: number) {
  const frames = await node.statistics.read({ source, aggregation, webservices: ['toolbox'], ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) });
  return frames.get('toolbox')!;
}

describe('ClusterStatistics on Redis', () => {
  it("answers persistent with both nodes' calls once each pushed; sums add, minimum and maximum combine; realtime stays per node", async () => {
    const [a, b] = await cluster();
    a.events.emit(event({ durationMs: 100.5 }));
    a.events.emit(event({ durationMs: 40, ok: false, statusCode: 400 }));
    b.events.emit(event({ durationMs: 7.25, bytesIn: 1000 }));
    b.events.emit(event({ webservice: 'converter', durationMs: 5 }));
    b.events.emit(event({ route: '/webPDF/rest/toolbox/:documentId', accepted: true, statusCode: 202 }));
    // B has not pushed yet: A answers its own calls (it pushes before it reads).
    expect((await toolbox(a, 'persistent')).map(([, t]) => t.jobs)).toEqual([2]);
    await b.statistics.flush();
    for (const node of [a, b]) {
      const frames = await toolbox(node, 'persistent');
      expect(frames).toHaveLength(1);
      const [start, totals] = frames[0]!;
      expect(start).toBe(Math.floor(NOW / 86_400_000) * 86_400_000);
      expect(totals).toEqual({ jobs: 3, errors: 1, durationMs: 147.75, minDurationMs: 7.25, maxDurationMs: 100.5, bytesIn: 1020, bytesOut: 15 });
    }
    expect((await toolbox(a, 'realtime')).map(([, t]) => t.jobs)).toEqual([2]);
    expect((await toolbox(b, 'realtime')).map(([, t]) => t.jobs)).toEqual([1]);
    const converter = await b.statistics.read({ source: 'persistent', aggregation: 'year', webservices: ['converter', 'ocr'] });
    expect(converter.get('converter')!.map(([, t]) => t.jobs)).toEqual([1]);
    expect(converter.get('ocr')).toEqual([]);
  });

  it('answers the frames that overlap [from, to], oldest first, and keeps minute frames no longer than two days', async () => {
    const [a, b] = await cluster();
    const minute = Math.floor(NOW / 60_000) * 60_000;
    a.events.emit(event({ startedAt: minute - 120_000 }));
    b.events.emit(event({ startedAt: minute - 60_000 + 30_000 }));
    a.events.emit(event({ startedAt: minute }));
    b.events.emit(event({ startedAt: NOW - 3 * 86_400_000 }));
    await b.statistics.flush();
    const all = await toolbox(a, 'persistent', 'minute');
    expect(all.map(([start]) => start)).toEqual([minute - 120_000, minute - 60_000, minute]);
    // From inside the middle frame to the start of the last: both overlap.
    expect((await toolbox(a, 'persistent', 'minute', minute - 30_000, minute)).map(([start]) => start)).toEqual([minute - 60_000, minute]);
    // The call of three days ago is in its day frame, not in a minute frame.
    expect((await toolbox(b, 'persistent', 'day')).reduce((sum, [, t]) => sum + t.jobs, 0)).toBe(4);
    expect((await toolbox(b, 'persistent', 'minute')).length).toBe(3);
  });

  it('keeps the counts of a push that failed while Redis was down and pushes them once when it is back', async () => {
    const [a, b] = await cluster();
    // Nothing pushed before the crash: what the AOF kept of the last second does not matter here.
    a.events.emit(event());
    await server.kill();
    try {
      a.events.emit(event());
      a.events.emit(event());
      await a.statistics.flush();
      await a.statistics.flush();
      expect(a.warnings.filter((w) => w.includes('failed'))).toHaveLength(1);
    } finally {
      await server.restart();
    }
    // Each node's client reconnects on its own: B's may come back after A's (CI run 31 read on B too early).
    await Promise.all([a, b].map((node) => waitForRedis(node.redis, 20_000)));
    await a.statistics.flush();
    expect(a.warnings.filter((w) => w.includes('failed'))).toHaveLength(1);
    expect((await toolbox(b, 'persistent')).map(([, t]) => t.jobs)).toEqual([3]);
  });
});
