import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, login } from '../../helpers/client.js';
import { downloadToFile } from '../../helpers/converter.js';
import { eventually, info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import type { Job } from '../../helpers/jobs.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';
import { numberedPdf } from '../../helpers/toolbox.js';

/**
 * Async web-service jobs in cluster mode, end to end on one node: the call is accepted as a BullMQ job
 * carrying typed operation data (no recorded HTTP request, no token), run through the web service's
 * route by the node's worker, committed once under the job's commit record, and polled as in embedded
 * mode. Outputs are checked with pdfinfo; what is in Redis with a plain client.
 */
const PREFIX = 'cj:';
let redis: RedisServer;
let raw: Redis;
const env: Record<string, string> = {
  QUIRE_CLUSTER__MODE: 'cluster',
  QUIRE_CLUSTER__REDIS__KEY_PREFIX: PREFIX,
  // Webhooks to a local receiver, two quick attempts: a delivery to a closed port lands in the replay queue at once.
  QUIRE_NETWORK__ALLOW_INTERNAL: 'true',
  QUIRE_WEBHOOKS__MAX_ATTEMPTS: '2',
  QUIRE_WEBHOOKS__RETRY_DELAY: '0.02',
};

beforeAll(async () => {
  redis = await startRedisServer();
  raw = new Redis(redis.url, { maxRetriesPerRequest: null });
  env.QUIRE_CLUSTER__REDIS__URL = redis.url;
});
afterAll(async () => {
  raw?.disconnect();
  await redis?.stop();
});

/** A webhook receiver on 127.0.0.1 (on `port` when given) that records the delivery ids it gets and answers 204. */
async function startReceiver(port = 0): Promise<{ port: number; deliveries: string[]; close(): Promise<void> }> {
  const deliveries: string[] = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      deliveries.push(String(request.headers['x-quire-delivery']));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, deliveries, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** /Rotate of every page as poppler reports it. */
function rotations(pdf: string): number[] {
  const out = execFileSync('pdfinfo', ['-f', '1', '-l', '999', pdf], { encoding: 'utf8' });
  return [...out.matchAll(/^Page\s+\d+\s+rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
}

describe('asynchronous calls in cluster mode (BullMQ on a real redis-server)', () => {
  const { server, session } = useTestServer({ env });

  const post = async (url: string, body: unknown) => {
    const response = await fetch(url, { method: 'POST', headers: { ...bearer(session.token), 'content-type': 'application/json' }, body: JSON.stringify(body), redirect: 'manual' });
    return { status: response.status, location: response.headers.get('location'), body: (await response.json().catch(() => undefined)) as unknown };
  };
  const finished = (location: string) =>
    eventually(
      async () => {
        const job = (await (await fetch(`${server.url}${location}`, { headers: bearer(session.token) })).json()) as Job;
        if (job.state !== 'succeeded' && job.state !== 'failed') throw new Error(`job still ${job.state}`);
        return job;
      },
      30_000,
      50,
    );

  /** quire_operations_total of the toolbox's successful operations, as the metrics (admin token) show it. */
  const toolboxOperations = async (admin: string) => {
    const text = await (await fetch(`${server.url}/webPDF/metrics`, { headers: bearer(admin) })).text();
    return Number(/^quire_operations_total\{webservice="toolbox",result="ok",error_code=""\} (\d+)/m.exec(text)?.[1] ?? 0);
  };

  it('runs a rotation as a BullMQ job with typed operation data, once, and answers the job resource as in embedded mode', async () => {
    const admin = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
    const operationsBefore = await toolboxOperations(admin);
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(3), 'three.pdf');
    const accepted = await post(`${server.rest}/toolbox/${uploaded.documentId}?async=true&Authorization=${session.token}`, { toolbox: [{ rotate: { pages: '*', degrees: 90 } }] });
    expect(accepted.status).toBe(202);
    const jobId = accepted.location!.split('/').pop()!;
    const done = await finished(accepted.location!);
    expect(done).toMatchObject({ jobId, state: 'succeeded', attempts: 1, result: { documentId: uploaded.documentId, mimeType: 'application/pdf' } });
    expect(done.result).toEqual(await info(server.rest, session.token, uploaded.documentId));
    // Applied exactly once: 90, not 180.
    expect(rotations(await downloadToFile(server.rest, session.token, uploaded.documentId))).toEqual([90, 90, 90]);
    // The run counts as one toolbox operation (the 202 that accepted it does not).
    expect(await toolboxOperations(admin)).toBe(operationsBefore + 1);

    // The job as BullMQ keeps it: typed operation data, no recorded request, no token anywhere.
    const stored = await raw.hgetall(`${PREFIX}bull:job:${jobId}`);
    const data = JSON.parse(stored.data!) as { payload: Record<string, unknown>; sessionId: string };
    expect(data.payload).toMatchObject({ webservice: 'toolbox', documentId: uploaded.documentId, operation: { operationId: 'toolbox', params: { documentId: uploaded.documentId } } });
    expect(data.payload.call).toBeUndefined();
    expect(stored.data).not.toContain(session.token);
    // The commit record: committed by the attempt, with the document as its outcome.
    expect(await raw.hgetall(`${PREFIX}queue:commit:${jobId}`)).toMatchObject({ state: 'committed', outcome: uploaded.documentId });
  });

  it('makes a new document with toolbox/new; an operation error is the job result, not a retry', async () => {
    const value = (await numberedPdf(2)).toString('base64');
    const merge = { merge: { mode: 'atTheEnd', page: 1, outlineName: '', removeStaticXFA: false, resetMetadata: false, sourceIsZip: false, data: { format: 'pdf', value } } };
    const accepted = await post(`${server.rest}/toolbox/new?name=fresh.pdf&async=true`, { toolbox: [merge] });
    expect(accepted.status).toBe(202);
    const done = await finished(accepted.location!);
    expect(done).toMatchObject({ state: 'succeeded', result: { fileName: 'fresh', fileExtension: 'pdf' } });
    expect(rotations(await downloadToFile(server.rest, session.token, done.result!.documentId))).toEqual([0, 0]);

    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'two.pdf');
    const beyond = await post(`${server.rest}/toolbox/${uploaded.documentId}?async=true`, { toolbox: [{ rotate: { pages: '7', degrees: 90 } }] });
    const failed = await finished(beyond.location!);
    expect(failed.state).toBe('failed');
    expect(failed.attempts).toBe(1);
    expect(failed.error?.errorCode).toBeLessThan(0);
    expect(rotations(await downloadToFile(server.rest, session.token, uploaded.documentId))).toEqual([0, 0]);
  });

  it('the replay queue is the failed set of BullMQ: a delivery that failed is listed, requeued with a reason (delivered once), purged with an archive', async () => {
    const admin = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
    const receiver = await startReceiver();
    const port = receiver.port;
    await receiver.close(); // nothing listens there now: both attempts fail
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(1), 'one.pdf');
    const response = await fetch(`${server.rest}/toolbox/${uploaded.documentId}?async=true`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json', 'x-quire-callback-url': `http://127.0.0.1:${port}/hook?token=receiver-secret` },
      body: JSON.stringify({ toolbox: [{ rotate: { pages: '*', degrees: 90 } }] }),
    });
    expect(response.status).toBe(202);
    const jobId = response.headers.get('location')!.split('/').pop()!;
    const listFailed = async () =>
      (await (await fetch(`${server.rest}/admin/dlq/failed`, { headers: bearer(admin) })).json()) as {
        id: string;
        kind: string;
        attempts: number;
        summary: Record<string, string>;
        history: { event: string; detail?: string }[];
      }[];
    const entry = await eventually(
      async () => {
        const found = (await listFailed()).find((e) => e.kind === 'webhook' && e.summary.subject === jobId);
        if (!found) throw new Error('no failed delivery yet');
        return found;
      },
      20_000,
      50,
    );
    expect(entry).toMatchObject({ attempts: 2, summary: { url: `http://127.0.0.1:${port}/hook`, event: 'job.completed' } });
    expect(JSON.stringify(entry)).not.toContain('receiver-secret');
    expect(await raw.zscore(`${PREFIX}bull:webhook:failed`, entry.id)).not.toBeNull();

    // The receiver is back: requeued with a reason, the delivery arrives once, with the same delivery id.
    const back = await startReceiver(port);
    try {
      const requeue = await fetch(`${server.rest}/admin/dlq/failed/${entry.id}/requeue?reason=receiver%20repaired`, { method: 'POST', headers: bearer(admin) });
      expect(requeue.status).toBe(200);
      await eventually(() => expect(back.deliveries).toEqual([entry.id]), 20_000, 50);
      expect((await listFailed()).some((e) => e.id === entry.id)).toBe(false);
    } finally {
      await back.close();
    }

    // Another failed delivery, purged with the archive (on the data dir, shared in cluster mode).
    const second = await fetch(`${server.rest}/toolbox/${uploaded.documentId}?async=true`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json', 'x-quire-callback-url': `http://127.0.0.1:${port}/hook` },
      body: JSON.stringify({ toolbox: [{ rotate: { pages: '*', degrees: 90 } }] }),
    });
    const secondJob = second.headers.get('location')!.split('/').pop()!;
    const failed = await eventually(
      async () => {
        const found = (await listFailed()).find((e) => e.summary.subject === secondJob);
        if (!found) throw new Error('no failed delivery yet');
        return found;
      },
      20_000,
      50,
    );
    const purge = await fetch(`${server.rest}/admin/dlq/failed?olderThanMillis=0&archiveBeforeDelete=true`, { method: 'DELETE', headers: bearer(admin) });
    expect(await purge.json()).toEqual({ removed: 1 });
    const archived = readFileSync(path.join(server.dataDir, 'queue', 'failed-archive.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string });
    expect(archived.map((e) => e.id)).toEqual([failed.id]);
    expect(await raw.exists(`${PREFIX}bull:webhook:${failed.id}`)).toBe(0);
    // Both jobs rotated the page once each.
    expect(rotations(await downloadToFile(server.rest, session.token, uploaded.documentId))).toEqual([180]);
  });
});
