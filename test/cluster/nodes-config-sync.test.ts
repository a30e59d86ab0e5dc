import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { basic, bearer, json, login } from '../helpers/client.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.js';

type Json = Record<string, unknown>;

const FIRST_YAML = `# node one's file: the cluster's configuration
users:
  - name: admin
    password: ${ADMIN_PASSWORD}
    roles: [admin]
`;
const OLDER_YAML = `# an older file the second node still has
users:
  - name: admin
    password: ${ADMIN_PASSWORD}
    roles: [admin]
  - name: mallory
    password: mallory-old-pw
`;

/**
 * Two in-process Quire servers in cluster mode on one real redis-server, each with its own data dir
 * and configuration file: the second adopts the first one's file at start, and an administration
 * write on one is applied by the other (its file and the live keys).
 */
describe('cluster configuration sync (two in-process nodes, real redis-server)', () => {
  let redis: RedisServer;
  let one: TestServer;
  let two: TestServer;

  const env = (id: string): Record<string, string> => ({
    QUIRE_CLUSTER__MODE: 'cluster',
    QUIRE_CLUSTER__REDIS__URL: redis.url,
    QUIRE_CLUSTER__NODE__ID: id,
  });

  beforeAll(async () => {
    redis = await startRedisServer({ appendonly: false });
    one = await startTestServer({ yaml: FIRST_YAML, env: env('one') });
    two = await startTestServer({ yaml: OLDER_YAML, env: env('two') });
  }, 60_000);
  afterAll(async () => {
    await two?.stop();
    await one?.stop();
    await redis?.stop();
  });

  const loginStatus = async (server: TestServer, name: string, password: string): Promise<number> => {
    const response = await fetch(`${server.rest}/authentication/user/login/`, { method: 'POST', headers: { authorization: basic(name, password) } });
    await response.arrayBuffer();
    return response.status;
  };

  it('a node that starts later runs on the stored configuration, not on its own older file', async () => {
    expect(readFileSync(path.join(two.dataDir, 'quire.yaml'), 'utf8')).toBe(FIRST_YAML);
    expect(await loginStatus(two, 'mallory', 'mallory-old-pw')).toBe(401);
  });

  it('a user added on one node can log in on the other, whose file has it too', async () => {
    const { token } = await login(one.rest, { name: 'admin', password: ADMIN_PASSWORD });
    const headers = { ...bearer(token), 'content-type': 'application/json', accept: 'application/json' };
    const users = await json(await fetch(`${one.rest}/admin/configuration/user`, { headers }));
    const configuration = structuredClone(users.configuration) as { user: Json[] };
    configuration.user.push({ username: 'bob', password: 'bob-secret-pw', roles: 'user', uniqueId: '' });
    expect(await loginStatus(two, 'bob', 'bob-secret-pw')).toBe(401);

    const result = await json(await fetch(`${one.rest}/admin/configuration/`, { method: 'POST', headers, body: JSON.stringify({ ...users, configurationMode: 'write', configuration }) }));
    expect((result.error as Json).code, JSON.stringify(result)).toBe(0);
    expect((result.error as Json).description).toContain('Published to every node of the cluster.');

    await vi.waitFor(async () => expect(await loginStatus(two, 'bob', 'bob-secret-pw')).toBe(200), { timeout: 10_000, interval: 25 });
    const written = YAML.parse(readFileSync(path.join(two.dataDir, 'quire.yaml'), 'utf8')) as { users: Array<{ name: string }> };
    expect(written.users.map((u) => u.name)).toEqual(['admin', 'bob']);
  });

  it('admin/cluster/status on either node lists both members, up', async () => {
    const { token } = await login(two.rest, { name: 'admin', password: ADMIN_PASSWORD });
    const status = await json(await fetch(`${two.rest}/admin/cluster/status`, { headers: bearer(token) }));
    expect((status.nodes as Json[]).map((n) => [n.name, n.state, n.isCoordinator])).toEqual([
      ['one', 'up', true],
      ['two', 'up', false],
    ]);
    expect(status.settings).toMatchObject({ mode: 'cluster', nodeName: 'two', role: 'member' });
    const settings = await json(await fetch(`${two.rest}/admin/configuration/cluster`, { headers: bearer(token) }));
    expect(settings.configuration).toMatchObject({ mode: 'cluster', nodeName: 'two', role: 'member', name: 'quire:', secretKey: '' });
  });

  it('answers 503 (-91) while Redis is down and lists both members again once it is back', async () => {
    const { token } = await login(one.rest, { name: 'admin', password: ADMIN_PASSWORD });
    await redis.kill();
    const down = await fetch(`${one.rest}/admin/cluster/status`, { headers: bearer(token) });
    expect(down.status).toBe(503);
    expect(down.headers.get('content-type')).toBe('application/json');
    expect(await down.json()).toMatchObject({ errorCode: -91 });

    // Without AOF the restarted Redis is empty: the heartbeats write the members again.
    await redis.restart();
    await vi.waitFor(
      async () => {
        const again = await login(one.rest, { name: 'admin', password: ADMIN_PASSWORD });
        const status = await json(await fetch(`${one.rest}/admin/cluster/status`, { headers: bearer(again.token) }));
        expect((status.nodes as Json[]).map((n) => [n.name, n.state])).toEqual([
          ['one', 'up'],
          ['two', 'up'],
        ]);
      },
      { timeout: 20_000, interval: 200 },
    );
  });
});
