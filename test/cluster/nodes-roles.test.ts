import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { basic, bearer, json, login, uploadDocument } from '../helpers/client.js';
import { downloadToFile } from '../helpers/converter.js';
import { eventually, info, realPdf, replacementHoldingLock } from '../helpers/documents.js';
import { objectDict, pageRefs, qpdfObjects } from '../helpers/pdf-tools.js';
import { runToolbox } from '../helpers/toolbox.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.js';

type Json = Record<string, unknown>;

/**
 * Node roles on one real redis-server and one data dir: an `all` node, an `api` node started with the
 * engines switched on (its role keeps them off) and a `worker` node, whose only socket answers health
 * and metrics, and which runs what the api node forwards.
 */
describe('cluster node roles (in-process nodes, real redis-server)', () => {
  let redis: RedisServer;
  let all: TestServer;
  let api: TestServer;
  let worker: TestServer;
  let dataDir: string;

  const env = (id: string, role: string): Record<string, string> => ({
    QUIRE_CLUSTER__MODE: 'cluster',
    QUIRE_CLUSTER__REDIS__URL: redis.url,
    QUIRE_CLUSTER__NODE__ID: id,
    QUIRE_CLUSTER__NODE__ROLE: role,
    QUIRE_CLUSTER__NODE__HEARTBEAT_INTERVAL: '0.2',
  });

  beforeAll(async () => {
    redis = await startRedisServer({ appendonly: false });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-roles-'));
    all = await startTestServer({ dataDir, env: env('all-1', 'all') });
    api = await startTestServer({ dataDir, env: env('api-1', 'api'), engines: true });
    worker = await startTestServer({ dataDir, env: env('worker-1', 'worker') });
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await all?.stop();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function members(): Promise<Json[]> {
    const { token } = await login(all.rest, { name: 'admin', password: ADMIN_PASSWORD });
    return (await json(await fetch(`${all.rest}/admin/cluster/status`, { headers: bearer(token) }))).nodes as Json[];
  }

  it('lists each member with its role', async () => {
    expect((await members()).map((n) => [n.name, (n.member as Json).role, n.state])).toEqual([
      ['all-1', 'all', 'up'],
      ['api-1', 'api', 'up'],
      ['worker-1', 'worker', 'up'],
    ]);
  });

  it('an api node starts no warm engine, whatever the engine settings say', async () => {
    expect(api.config.engines.libreoffice.enabled).toBe(true);
    await vi.waitFor(
      async () => {
        const engines = ((await members()).find((n) => n.name === 'api-1')!.member as Json).engines as Json;
        expect(engines).toMatchObject({ libreoffice: 'disabled', chromium: 'disabled' });
      },
      { timeout: 20_000, interval: 100 },
    );
    // It serves the API all the same.
    const anonymous = await fetch(`${api.rest}/authentication/user/login/`, { method: 'POST' });
    expect(anonymous.status).toBe(200);
  });

  it('a worker answers health and metrics only; every other path is 404 with the error structure', async () => {
    const health = await fetch(`${worker.url}/webPDF/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: expect.stringMatching(/^(UP|DEGRADED)$/) });
    // Metrics reach the application (which asks for credentials unless metrics.public): not the worker's 404.
    const metrics = await fetch(`${worker.url}/webPDF/metrics`);
    expect(metrics.status).toBe(401);
    for (const [method, path] of [
      ['POST', '/webPDF/rest/authentication/user/login/'],
      ['GET', '/webPDF/rest/documents/list'],
      ['POST', '/webPDF/health'],
    ]) {
      const response = await fetch(`${worker.url}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toMatchObject({ errorCode: -80, errorMessage: expect.stringContaining('worker') });
    }
  });

  it('a synchronous call on the api node runs on a worker and answers as if it had run there', async () => {
    // The all node is stopped: the worker is the only queue consumer left.
    await all.stop();
    const { token } = await login(api.rest);
    const documentId = (await uploadDocument(api.rest, token, await realPdf(2), 'forwarded.pdf')).documentId as string;
    const outcome = await runToolbox(api.rest, token, documentId, [{ rotate: { pages: '1', degrees: 90 } }]);
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    expect(outcome.location).toBe(`/webPDF/rest/documents/${documentId}/info`);
    // qpdf reads the stored result: page 1 turned, page 2 not.
    const file = await downloadToFile(api.rest, token, documentId);
    const objects = qpdfObjects(file);
    expect(pageRefs(file).map((ref) => objectDict(objects, ref)?.['/Rotate'] ?? 0)).toEqual([90, 0]);

    // It ran on the worker: the worker counted the toolbox operation it ran (the api node counts the call it answered).
    const toolboxJobs = async (server: TestServer) => {
      const { token: admin } = JSON.parse(
        (await server.app.inject({ method: 'POST', url: '/webPDF/rest/authentication/user/login/', headers: { authorization: basic('admin', ADMIN_PASSWORD) } })).body,
      ) as { token: string };
      const status = JSON.parse((await server.app.inject({ url: '/webPDF/rest/admin/server/status', headers: bearer(admin) })).body) as {
        webservices: Record<string, { state: { jobs: { numberOfJobs: number } } }>;
      };
      return status.webservices.toolbox!.state.jobs.numberOfJobs;
    };
    expect(await toolboxJobs(worker)).toBe(1);

    // A failure on the worker comes back as the call's error structure.
    const failed = await runToolbox(api.rest, token, documentId, [{ rotate: { pages: '7', degrees: 90 } }]);
    expect(failed.status).toBe(400);
    expect(failed.error?.errorCode).toEqual(expect.any(Number));
  });

  it('a forwarded synchronous call on a document in use answers 409 at once, as on one node (an asynchronous job would wait for it)', async () => {
    const { token } = await login(api.rest);
    const documentId = (await uploadDocument(api.rest, token, await realPdf(2), 'in-use.pdf')).documentId as string;
    // A content replacement holds the document's lock while its body arrives; the body waits for the
    // gate, which opens when the forwarded call has answered or after 5 s (a call that waited for the
    // lock would then run, and answer 303).
    const holder = replacementHoldingLock(api.rest, token, documentId, await realPdf(3));
    const fallback = setTimeout(() => holder.release(), 5_000);
    try {
      await eventually(async () => expect((await info(api.rest, token, documentId)).isFileLocked).toBe(true), 10_000, 20);
      const refused = await runToolbox(api.rest, token, documentId, [{ rotate: { pages: '1', degrees: 90 } }]);
      expect(refused.status).toBe(409);
      expect(refused.error?.errorCode).toBe(-75);
    } finally {
      clearTimeout(fallback);
      holder.release();
    }
    expect((await holder.done).response?.status).toBe(303);
  });
});
