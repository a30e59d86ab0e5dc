import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toDlqEntry } from '../../../src/http/schemas/admin-dlq.js';
import { verifyWebhookSignature } from '../../../src/operations/jobs/webhook-signature.js';
import { bearer, expectError, login } from '../../helpers/client.js';
import { eventually, openSession, uploadFile, type TestSession } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';
import { numberedPdf } from '../../helpers/toolbox.js';

interface DlqEntry {
  id: string;
  kind: string;
  state: string;
  createdAt: string;
  failedAt: string;
  attempts: number;
  maxAttempts: number;
  lastError: string;
  history: { at: string; event: string; detail?: string }[];
  summary: { url?: string; event?: string; subject?: string; webservice?: string; documentId?: string };
}

interface Delivery {
  url: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
}

/** A webhook receiver on 127.0.0.1 (on `port` when given) that records what arrives and answers 204. */
async function startReceiver(port = 0): Promise<{ port: number; deliveries: Delivery[]; close(): Promise<void> }> {
  const deliveries: Delivery[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ url: request.url ?? '', headers: request.headers, raw: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    deliveries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function closedPort(): Promise<number> {
  const receiver = await startReceiver();
  await receiver.close();
  return receiver.port;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('the replay queue (admin/dlq/failed)', () => {
  const { server } = useTestServer({
    env: { QUIRE_NETWORK__ALLOW_INTERNAL: 'true', QUIRE_WEBHOOKS__MAX_ATTEMPTS: '2', QUIRE_WEBHOOKS__RETRY_DELAY: '0.02' },
    session: false,
  });
  let admin: string;
  let user: TestSession;
  let documentId: string;
  let archive: string;

  beforeAll(async () => {
    admin = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
    user = await openSession(server.rest);
    documentId = (await uploadFile(server.rest, user.token, await numberedPdf(2), 'two.pdf')).documentId;
    archive = path.join(server.dataDir, 'queue', 'failed-archive.jsonl');
  });

  function list(query = '', token: string | null = admin): Promise<Response> {
    return fetch(`${server.rest}/admin/dlq/failed${query}`, { headers: token ? bearer(token) : {} });
  }

  async function entries(): Promise<DlqEntry[]> {
    const response = await list();
    expect(response.status).toBe(200);
    return (await response.json()) as DlqEntry[];
  }

  function call(method: string, pathAndQuery: string, token: string | null = admin): Promise<Response> {
    return fetch(`${server.rest}/admin/dlq/failed${pathAndQuery}`, { method, headers: token ? bearer(token) : {} });
  }

  /** An asynchronous toolbox call whose webhook goes to `callbackUrl`; its job id. */
  async function asyncCallWithWebhook(callbackUrl: string): Promise<string> {
    const response = await fetch(`${server.rest}/toolbox/${documentId}`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json', prefer: 'respond-async', 'x-quire-callback-url': callbackUrl },
      body: JSON.stringify({ toolbox: [{ rotate: { pages: '1', degrees: 90 } }] }),
    });
    expect(response.status).toBe(202);
    return response.headers.get('location')!.split('/').pop()!;
  }

  /** The failed delivery about `jobId`, once the queue has used up its attempts. */
  async function failedDelivery(jobId: string): Promise<DlqEntry> {
    return eventually(
      async () => {
        const found = (await entries()).find((entry) => entry.summary.subject === jobId);
        if (!found) throw new Error(`no failed delivery for job ${jobId} yet`);
        return found;
      },
      30_000,
      50,
    );
  }

  async function failedDeliveryTo(port: number): Promise<DlqEntry> {
    return failedDelivery(await asyncCallWithWebhook(`http://127.0.0.1:${port}/hook`));
  }

  it('lists a webhook delivery that used up its attempts, without query string or body', async () => {
    const port = await closedPort();
    const jobId = await asyncCallWithWebhook(`http://127.0.0.1:${port}/hook?token=receiver-secret`);
    const entry = await failedDelivery(jobId);
    expect(entry).toMatchObject({
      kind: 'webhook',
      state: 'FAILED_PERMANENT',
      attempts: 2,
      maxAttempts: 2,
      lastError: `connection refused to 127.0.0.1:${port}`,
      summary: { url: `http://127.0.0.1:${port}/hook`, event: 'job.completed', subject: jobId },
    });
    expect(entry.id).toMatch(/^[0-9a-f]{32}$/);
    expect(entry.createdAt).toMatch(ISO);
    expect(entry.failedAt).toMatch(ISO);
    expect(Date.parse(entry.failedAt)).toBeGreaterThanOrEqual(Date.parse(entry.createdAt));
    expect(entry.history.map((e) => e.event)).toEqual(['enqueued', 'started', 'retry scheduled', 'started', 'failed permanently']);
    expect(entry.history.every((e) => ISO.test(e.at))).toBe(true);

    const response = await list();
    expect(response.headers.get('content-type')).toBe('application/json');
    const text = await response.text();
    expect(text).not.toContain('receiver-secret');
    expect(text).not.toContain('documentFile');
  });

  it('is for administrators only', async () => {
    await expectError(await list('', user.token), 403, -67);
    await expectError(await list('', null), 401, -61);
    await expectError(await call('DELETE', '?olderThanMillis=0', user.token), 403, -67);
    await expectError(await call('DELETE', `/${'0'.repeat(32)}`, user.token), 403, -67);
    await expectError(await call('POST', `/${'0'.repeat(32)}/requeue`, user.token), 403, -67);
    await expectError(await call('POST', `/${'0'.repeat(32)}/requeue`, null), 401, -61);
  });

  it('checks limit (1..10000) and honours it', async () => {
    for (const bad of ['0', '10001', '-1', 'many']) await expectError(await list(`?limit=${bad}`), 400, -14);
    const port = await closedPort();
    await failedDeliveryTo(port);
    const all = await entries();
    expect(all.length).toBeGreaterThanOrEqual(2);
    const response = await list('?limit=1');
    expect(response.status).toBe(200);
    expect(((await response.json()) as DlqEntry[]).map((e) => e.id)).toEqual([all[0]!.id]);
  });

  it('requeues an entry: delivered once the receiver runs, and gone from the list', async () => {
    const port = await closedPort();
    const entry = await failedDeliveryTo(port);
    const receiver = await startReceiver(port);
    try {
      const response = await call('POST', `/${entry.id}/requeue?reason=${encodeURIComponent('receiver fixed')}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('');
      const delivery = await eventually(
        () => {
          const found = receiver.deliveries.find((d) => d.headers['x-quire-delivery'] === entry.id);
          if (!found) throw new Error('not delivered yet');
          return found;
        },
        10_000,
        20,
      );
      expect(delivery.url).toBe('/hook');
      expect(delivery.headers['x-quire-event']).toBe('job.completed');
      const secret = readFileSync(path.join(server.dataDir, 'keys', 'webhook-secret'), 'utf8').trim();
      expect(verifyWebhookSignature(secret, delivery.headers, delivery.raw)).toBe(true);
      await eventually(async () => expect((await entries()).map((e) => e.id)).not.toContain(entry.id), 5000, 20);
      // Delivered once, and not listed again.
      expect(receiver.deliveries.filter((d) => d.headers['x-quire-delivery'] === entry.id)).toHaveLength(1);
    } finally {
      await receiver.close();
    }
    await expectError(await call('POST', `/${entry.id}/requeue`), 404, -142);
  });

  it('records the default reason of a requeue in the history', async () => {
    const port = await closedPort();
    const entry = await failedDeliveryTo(port);
    expect((await call('POST', `/${entry.id}/requeue`)).status).toBe(200);
    // Still no receiver: it fails again after 2 fresh attempts, with the requeue in its history.
    const again = await eventually(
      async () => {
        const found = (await entries()).find((e) => e.id === entry.id && e.history.some((h) => h.event === 'requeued'));
        if (!found) throw new Error('not failed again yet');
        return found;
      },
      10_000,
      20,
    );
    expect(again.attempts).toBe(2);
    expect(again.history.find((h) => h.event === 'requeued')?.detail).toBe('manual admin requeue');
    expect(again.history.map((h) => h.event).slice(-5)).toEqual(['requeued', 'started', 'retry scheduled', 'started', 'failed permanently']);
    expect(again.history.map((h) => h.event).filter((e) => e === 'failed permanently')).toHaveLength(2);
  });

  it('deletes one entry; unknown ids are 404 -142', async () => {
    const port = await closedPort();
    const entry = await failedDeliveryTo(port);
    const response = await call('DELETE', `/${entry.id}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    expect((await entries()).map((e) => e.id)).not.toContain(entry.id);
    const gone = await expectError(await call('DELETE', `/${entry.id}`), 404, -142);
    expect(gone.errorMessage).toBe(`The replay queue has no failed entry with id "${entry.id}".`);
    await expectError(await call('DELETE', '/not-an-id'), 404, -142);
    await expectError(await call('POST', `/${'a'.repeat(32)}/requeue`), 404, -142);
  });

  it('purges with archive: old enough entries go to failed-archive.jsonl first', async () => {
    const port = await closedPort();
    await failedDeliveryTo(port);
    const before = await entries();
    expect(before.length).toBeGreaterThanOrEqual(1);

    // Nothing failed a day ago: the default age removes nothing.
    let response = await call('DELETE', '');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ removed: 0 });
    expect(await entries()).toHaveLength(before.length);

    const archivedBefore = existsSync(archive) ? readFileSync(archive, 'utf8').split('\n').filter(Boolean).length : 0;
    response = await call('DELETE', '?olderThanMillis=0&archiveBeforeDelete=true');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ removed: before.length });
    expect(await entries()).toEqual([]);
    const lines = readFileSync(archive, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; state: string; archivedAt: number });
    expect(lines).toHaveLength(archivedBefore + before.length);
    expect(
      lines
        .slice(archivedBefore)
        .map((line) => line.id)
        .sort(),
    ).toEqual(before.map((e) => e.id).sort());
    expect(lines.every((line) => line.state === 'FAILED_PERMANENT' && typeof line.archivedAt === 'number')).toBe(true);
  });

  it('purges without archive: the archive file does not grow', async () => {
    const port = await closedPort();
    const entry = await failedDeliveryTo(port);
    const size = existsSync(archive) ? statSync(archive).size : 0;
    const response = await call('DELETE', '?olderThanMillis=0&archiveBeforeDelete=false');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ removed: 1 });
    expect(await entries()).toEqual([]);
    expect(existsSync(archive) ? statSync(archive).size : 0).toBe(size);
    if (existsSync(archive)) expect(readFileSync(archive, 'utf8')).not.toContain(entry.id);
  });

  it('checks the purge and requeue parameters', async () => {
    await expectError(await call('DELETE', '?olderThanMillis=-5'), 400, -14);
    await expectError(await call('DELETE', '?olderThanMillis=soon'), 400, -14);
    await expectError(await call('DELETE', '?archiveBeforeDelete=perhaps'), 400, -14);
  });
});

describe('DLQ_Entry of a job', () => {
  it('summarises a job by web service and document, never its call or result', () => {
    const entry = toDlqEntry({
      id: 'b'.repeat(32),
      kind: 'job',
      state: 'FAILED_PERMANENT',
      payload: {
        webservice: 'toolbox',
        call: { method: 'POST', url: '/x', headers: { authorization: 'Bearer secret-token' }, body: { password: 'pw' } },
        documentId: 'c'.repeat(32),
      },
      sessionId: 'd'.repeat(32),
      attempts: 3,
      maxAttempts: 3,
      createdAt: Date.UTC(2025, 0, 1),
      updatedAt: Date.UTC(2025, 0, 2),
      failedAt: Date.UTC(2025, 0, 2),
      runAfter: 0,
      lastError: 'HTTP 503',
      progress: 0,
      history: [{ at: Date.UTC(2025, 0, 1), event: 'enqueued' }],
    });
    expect(entry).toEqual({
      id: 'b'.repeat(32),
      kind: 'job',
      state: 'FAILED_PERMANENT',
      createdAt: '2025-01-01T00:00:00.000Z',
      failedAt: '2025-01-02T00:00:00.000Z',
      attempts: 3,
      maxAttempts: 3,
      lastError: 'HTTP 503',
      history: [{ at: '2025-01-01T00:00:00.000Z', event: 'enqueued' }],
      summary: { webservice: 'toolbox', documentId: 'c'.repeat(32) },
    });
    expect(JSON.stringify(entry)).not.toMatch(/secret-token|"pw"/);
  });
});
