import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, json, login } from '../helpers/client.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.js';

type Json = Record<string, unknown>;

/**
 * Node roles on one real redis-server: an `all` node, an `api` node started with the engines switched
 * on (its role keeps them off) and a `worker` node, whose only socket answers health and metrics.
 */
describe('cluster node roles (in-process nodes, real redis-server)', () => {
  let redis: RedisServer;
  let all: TestServer;
  let api: TestServer;
  let worker: TestServer;

  const env = (id: string, role: string): Record<string, string> => ({
    QUIRE_CLUSTER__MODE: 'cluster',
    QUIRE_CLUSTER__REDIS__URL: redis.url,
    QUIRE_CLUSTER__NODE__ID: id,
    QUIRE_CLUSTER__NODE__ROLE: role,
    QUIRE_CLUSTER__NODE__HEARTBEAT_INTERVAL: '0.2',
  });

  beforeAll(async () => {
    redis = await startRedisServer({ appendonly: false });
    all = await startTestServer({ env: env('all-1', 'all') });
    api = await startTestServer({ env: env('api-1', 'api'), engines: true });
    worker = await startTestServer({ env: env('worker-1', 'worker') });
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await all?.stop();
    await redis?.stop();
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
});
