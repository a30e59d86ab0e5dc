import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '../../src/core/errors.js';
import { login } from '../helpers/client.js';
import { locationId, postDocument, realPdf, type ErrorBody } from '../helpers/documents.js';
import type { Job } from '../helpers/jobs.js';
import { ADMIN_PASSWORD } from '../helpers/server.js';
import { inParallel, rotateNow, storedRotations, submitRotation, waitFinished, type Answer } from './helpers/async-jobs.js';
import { startBuiltCluster, type BuiltCluster } from './helpers/built-nodes.js';

/** Clients calling at once while Redis goes away and comes back. */
const CLIENTS = 4;
/** How long Redis stays down (the clients keep calling). */
const DOWN_MS = 3000;

type Kind = 'upload' | 'async' | 'sync';
interface Call extends Answer<Partial<Job> & ErrorBody> {
  kind: Kind;
  node: number;
  documentId?: string;
  /** Sent while Redis was down (after its shutdown, before it answered PING again). */
  whileDown: boolean;
}

/**
 * Issue 20: redis-server (AOF) is shut down while two built nodes take uploads, asynchronous jobs and
 * synchronous toolbox calls, and started again on the same port and directory a few seconds later.
 * While it is down every call that needs it answers 503 with the error structure (-91, Content-Type
 * exactly application/json); no node crashes; once it is back the nodes reconnect by themselves,
 * every job that was accepted (202) completes, each document is rotated exactly once where a call
 * succeeded and not at all where it failed.
 */
describe('redis-server restarted under load (real redis-server and two built nodes)', () => {
  let cluster: BuiltCluster;
  let raw: Redis;

  beforeAll(async () => {
    cluster = await startBuiltCluster(2, { QUIRE_CLUSTER__QUEUE__LOCK_DURATION: '3', QUIRE_QUEUE__JOB_WORKERS: '2' });
    raw = new Redis(cluster.redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    raw.on('error', () => undefined); // Redis goes away on purpose
  }, 180_000);

  afterAll(async () => {
    raw?.disconnect();
    await cluster?.stop();
  });

  it('answers 503 (-91, JSON) while Redis is down, never crashes, reconnects, and loses no accepted job', async () => {
    const rests = cluster.nodes.map((node) => node.rest);
    const { token } = await login(rests[0]!, { name: 'admin', password: ADMIN_PASSWORD });
    const pdf = await realPdf(1);
    const calls: Call[] = [];
    let down = false;
    let stopped = false;
    let serial = 0;

    const record = (kind: Kind, node: number, whileDown: boolean, answer: Answer<Partial<Job> & ErrorBody>, documentId?: string) => {
      const call: Call = { ...answer, kind, node, whileDown, ...(documentId === undefined ? {} : { documentId }) };
      calls.push(call);
      return call;
    };
    // Each client: upload a document, then rotate it asynchronously (even turns) or synchronously (odd ones).
    const client = async () => {
      while (!stopped) {
        const i = serial++;
        const node = i % rests.length;
        const whileDown = down;
        const upload = await postDocument(rests[node]!, token, pdf, `load-${i}.pdf`);
        const response = upload.response;
        const uploaded = record('upload', node, whileDown, {
          status: response?.status ?? 0,
          contentType: (response?.headers['content-type'] as string | undefined) ?? null,
          ...(response && response.status !== 303 ? { body: JSON.parse(response.body.toString('utf8')) as ErrorBody } : {}),
          ...(upload.error ? { failure: upload.error.message } : {}),
        });
        if (uploaded.status !== 303) continue;
        const documentId = locationId(response!.headers);
        const rotating = down;
        if (i % 2 === 0) record('async', node, rotating, await submitRotation(rests[node]!, token, documentId), documentId);
        else record('sync', node, rotating, await rotateNow(rests[node]!, token, documentId), documentId);
      }
    };

    const load = Array.from({ length: CLIENTS }, () => client());
    const until = async (condition: () => boolean) => {
      while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await until(() => calls.filter((c) => c.kind !== 'upload' && c.status < 400).length >= 10);

    // A clean stop (SHUTDOWN: the AOF is written and fsynced), a pause under load, then the same server again.
    down = true;
    await raw.shutdown().catch(() => undefined);
    await until(() => !cluster.redis.running);
    const downAt = calls.length;
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    await cluster.redis.restart();
    down = false;
    const upAt = calls.length;
    // Load goes on until both nodes have answered calls again after the restart (they reconnected by themselves).
    await until(() => rests.every((_, node) => calls.slice(upAt).some((c) => c.node === node && c.kind === 'upload' && c.status === 303)));
    stopped = true;
    await Promise.all(load);

    // While Redis was down: the nodes answered, with 503 and the error structure of STORE_UNAVAILABLE.
    const duringOutage = calls.slice(downAt, upAt);
    expect(duringOutage.length).toBeGreaterThan(0);
    expect(duringOutage.filter((c) => c.status === 503).length).toBeGreaterThan(0);
    // Every call of the whole run succeeded or answered exactly that (no 500, no 401, no dropped connection).
    const ok = (c: Call) => (c.kind === 'upload' || c.kind === 'sync' ? c.status === 303 : c.status === 202);
    const unclear = calls.filter((c) => !ok(c) && !(c.status === 503 && c.contentType === 'application/json' && c.body?.errorCode === Errors.STORE_UNAVAILABLE.errorCode));
    if (unclear.length > 0)
      for (const node of cluster.nodes)
        console.info(
          node.stdout
            .split('\n')
            .filter((line) => line.includes('"level":50') && !line.includes('StoreUnavailableError') && !line.includes('worker failed'))
            .join('\n')
            .slice(0, 8000),
        );
    expect(unclear.map(({ kind, node, status, contentType, body, failure, whileDown }) => ({ kind, node, status, contentType, body, failure, whileDown }))).toEqual([]);
    for (const c of calls.filter((call) => call.status === 503)) {
      expect(c.body).toEqual({ errorCode: Errors.STORE_UNAVAILABLE.errorCode, errorMessage: expect.stringContaining('Redis') as string, stackTrace: expect.any(String) as string });
    }
    // Each refused call is logged as a warning (the outage itself once, by the connection), not as a server fault.
    const logLines = cluster.nodes.flatMap((node) => node.stdout.split('\n'));
    expect(logLines.some((line) => line.includes('"level":40') && line.includes('request refused: Redis unavailable'))).toBe(true);
    expect(logLines.filter((line) => line.includes('"level":50') && line.includes('request failed') && line.includes('StoreUnavailableError'))).toEqual([]);

    // No node crashed; each is healthy again.
    for (const node of cluster.nodes) {
      expect(node.running).toBe(true);
      const health = await fetch(`${node.url}/webPDF/health`);
      await health.arrayBuffer();
      expect(health.status).toBe(200);
    }

    // Every accepted job completes (none lost with the restart), bounded.
    const accepted = calls.filter((c) => c.kind === 'async' && c.status === 202).map((c) => ({ ...c, jobId: c.body!.jobId! }));
    expect(accepted.length).toBeGreaterThan(0);
    const jobs = await waitFinished(
      rests[0]!,
      token,
      accepted.map((c) => c.jobId),
      30_000,
    );
    const notSucceeded = accepted.map((c) => jobs.get(c.jobId)!).filter((job) => job.state !== 'succeeded');
    const summary = notSucceeded.map((job) => ({ id: job.jobId, state: job.state, error: job.error, attempts: job.attempts }));
    expect(summary, JSON.stringify(summary)).toEqual([]);

    // Each document turned exactly once where its call succeeded (or its job was accepted), and not at all where it failed.
    const rotated = calls.filter((c) => c.documentId !== undefined);
    const rotations = await inParallel(rotated, 6, (c) => storedRotations(rests[0]!, token, c.documentId!));
    const wrong = rotated.flatMap((c, i) => (rotations[i]![0] === (ok(c) ? 90 : 0) ? [] : [{ kind: c.kind, status: c.status, whileDown: c.whileDown, rotations: rotations[i] }]));
    expect(wrong).toEqual([]);

    const count = (kind: Kind, which: (c: Call) => boolean) => calls.filter((c) => c.kind === kind && which(c)).length;
    console.info(
      `calls: ${calls.length}; during the outage ${duringOutage.length} (503: ${duringOutage.filter((c) => c.status === 503).length}); ` +
        `uploads ${count('upload', ok)} ok / ${count('upload', (c) => !ok(c))} 503; async ${accepted.length} accepted / ${count('async', (c) => !ok(c))} 503; ` +
        `sync ${count('sync', ok)} ok / ${count('sync', (c) => !ok(c))} 503`,
    );
  }, 120_000);
});
