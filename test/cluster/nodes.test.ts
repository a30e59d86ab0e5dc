import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { leaseOwner } from '../../src/cluster/leases.js';
import { lockKey } from '../../src/storage/redis-document-locks.js';
import { basic, bearer, json, login, uploadDocument } from '../helpers/client.js';
import { realPdf } from '../helpers/documents.js';
import { runToolbox } from '../helpers/toolbox.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { killAll, spawnQuire, waitHealthy, type QuireProcess } from '../helpers/process.js';
import { ADMIN_PASSWORD } from '../helpers/server.js';
import { startHaproxy, type Haproxy } from './helpers/haproxy.js';

type Json = Record<string, unknown>;
interface NodeStatus {
  name: string;
  state: string;
  isCoordinator: boolean;
  localAddress: string;
  error: { code: number; description: string };
  member: { role: string; version: string; health: string; cpuCount: number; startedAt: number; heartbeatAt: number; lostAt?: number };
}

/** Heartbeat of these nodes: every second, lost after 2 missed (the defaults are 2 s and 3). */
const HEARTBEAT_S = 1;
const MISSED = 2;
/** Generous for a busy machine: a node start (spawn → healthy) may take this long. */
const START_DEADLINE_MS = 60_000;

/**
 * Three real nodes (`node dist/main.js`, as `./quire.sh cluster` starts them) on one real
 * redis-server and one data dir, haproxy in front, everything on 127.0.0.1: membership, a lost
 * member, configuration sync and requests through the load balancer.
 */
describe('cluster of three nodes behind haproxy (real processes)', () => {
  let redis: RedisServer;
  let dataDir: string;
  const nodes: QuireProcess[] = [];
  let proxy: Haproxy | undefined;

  const nodeEnv = (id: string): Record<string, string> => ({
    QUIRE_CLUSTER__MODE: 'cluster',
    QUIRE_CLUSTER__REDIS__URL: redis.url,
    QUIRE_CLUSTER__NODE__ID: id,
    QUIRE_CLUSTER__NODE__HEARTBEAT_INTERVAL: String(HEARTBEAT_S),
    QUIRE_CLUSTER__NODE__MISSED_HEARTBEATS: String(MISSED),
    QUIRE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    QUIRE_LOG__LEVEL: 'warn',
  });

  /** A node as `./quire.sh cluster` starts it; the three run one build (built only when dist/ has none). */
  async function startNode(id: string): Promise<QuireProcess> {
    const node = await spawnQuire({ dataDir, env: nodeEnv(id), build: 'missing' });
    nodes.push(node);
    await waitHealthy(node, START_DEADLINE_MS);
    return node;
  }

  beforeAll(async () => {
    redis = await startRedisServer({ appendonly: false });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-cluster-'));
    // The first node alone (it creates the keys and the generated admin in the shared data dir), then two at once.
    await startNode('node-1');
    // One after the other: `nodes` is in start order, as the status lists the members.
    await startNode('node-2');
    await startNode('node-3');
    proxy = await startHaproxy(nodes.map((n) => n.port));
  }, 300_000);

  afterAll(async () => {
    await proxy?.stop();
    await killAll();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function clusterStatus(node: QuireProcess): Promise<{ nodes: NodeStatus[]; settings: Json; maximumAllowedNodes: number }> {
    const { token } = await login(node.rest, { name: 'admin', password: ADMIN_PASSWORD });
    const response = await fetch(`${node.rest}/admin/cluster/status`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    return (await response.json()) as { nodes: NodeStatus[]; settings: Json; maximumAllowedNodes: number };
  }

  it('lists the three members, up, with role, address, version and health; the first started coordinates', async () => {
    const status = await clusterStatus(nodes[2]!);
    expect(status.nodes.map((n) => [n.name, n.state, n.isCoordinator])).toEqual([
      ['node-1', 'up', true],
      ['node-2', 'up', false],
      ['node-3', 'up', false],
    ]);
    for (const [i, member] of status.nodes.entries()) {
      expect(member.localAddress).toBe(`http://127.0.0.1:${nodes[i]!.port}`);
      expect(member.member).toMatchObject({ role: 'all', health: expect.stringMatching(/^(UP|STARTING|DEGRADED)$/), cpuCount: os.availableParallelism() });
      expect(member.member.version).toMatch(/^\d+\.\d+\.\d+/);
    }
    expect(status.settings).toMatchObject({ mode: 'cluster', nodeName: 'node-3', role: 'member', configuration: { source: 'coordinator' } });
    expect(status.maximumAllowedNodes).toBe(0);
  });

  it('answers through haproxy, in turn over the idle nodes', async () => {
    const answered: string[] = [];
    for (let i = 0; i < 6; i++) {
      // A Basic login per call works on any node; haproxy names the node that answered (X-Quire-Node, as quire.sh sets it).
      const response = await fetch(`${proxy!.url}/webPDF/rest/authentication/user/login/`, { method: 'POST', headers: { authorization: basic('admin', ADMIN_PASSWORD) } });
      expect(response.status).toBe(200);
      expect(((await response.json()) as Json).token).toEqual(expect.any(String));
      answered.push(response.headers.get('x-quire-node') ?? '');
    }
    expect(answered.slice(0, 3).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    expect(answered.slice(3)).toEqual(answered.slice(0, 3));

    // One session, whichever node answers (the sessions are in Redis): each names itself in the cluster status.
    const { token } = await login(`${proxy!.url}/webPDF/rest`, { name: 'admin', password: ADMIN_PASSWORD });
    const named: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${proxy!.url}/webPDF/rest/admin/cluster/status`, { headers: bearer(token) });
      expect(response.status).toBe(200);
      const nodeName = ((await json(response)).settings as Json).nodeName as string;
      expect(response.headers.get('x-quire-node')).toBe(nodeName);
      named.push(nodeName);
    }
    expect(named.sort()).toEqual(['node-1', 'node-2', 'node-3']);
  });

  it('applies a configuration write on node 1 on node 3 within a second', async () => {
    const admin = async (node: QuireProcess) => {
      const { token } = await login(node.rest, { name: 'admin', password: ADMIN_PASSWORD });
      return { ...bearer(token), 'content-type': 'application/json', accept: 'application/json' };
    };
    const [onOne, onThree] = [await admin(nodes[0]!), await admin(nodes[2]!)];
    const usersOn = async (node: QuireProcess, headers: Record<string, string>) =>
      ((await json(await fetch(`${node.rest}/admin/configuration/user`, { headers }))).configuration as { user: Json[] }).user.map((u) => u.username);
    const users = await json(await fetch(`${nodes[0]!.rest}/admin/configuration/user`, { headers: onOne }));
    const configuration = structuredClone(users.configuration) as { user: Json[] };
    configuration.user.push({ username: 'carol', password: 'carol-secret-pw', roles: 'user', uniqueId: '' });
    expect(await usersOn(nodes[2]!, onThree)).not.toContain('carol');

    const response = await fetch(`${nodes[0]!.rest}/admin/configuration/`, { method: 'POST', headers: onOne, body: JSON.stringify({ ...users, configurationMode: 'write', configuration }) });
    const result = await json(response);
    const written = Date.now();
    expect((result.error as Json).code, JSON.stringify(result)).toBe(0);
    // Node 3's running configuration (what its administration reads and its logins check) has carol within a second.
    let seen = false;
    while (!seen && Date.now() - written < 1000) seen = (await usersOn(nodes[2]!, onThree)).includes('carol');
    expect(seen, 'node 3 runs with carol within a second of the write on node 1').toBe(true);
    expect(await loginStatus(nodes[2]!, 'carol', 'carol-secret-pw')).toBe(200);
  });

  it('shows a SIGKILLed node as lost within the heartbeat window and releases its document lock; haproxy keeps answering', async () => {
    const victim = nodes[1]!;
    // node-2 holds a document's lock when it dies (the lease as its RedisDocumentLocks writes it, good for two minutes).
    const { token } = await login(nodes[0]!.rest);
    const documentId = (await uploadDocument(nodes[0]!.rest, token, await realPdf(2), 'held.pdf')).documentId as string;
    const sessionId = (await json(await fetch(`${nodes[0]!.rest}/authentication/user/info`, { headers: bearer(token) }))).uniqueId as string;
    const startedAt = (await clusterStatus(nodes[0]!)).nodes.find((n) => n.name === 'node-2')!.member.startedAt;
    const client = new Redis(redis.url, { keyPrefix: 'quire:' });
    try {
      await client.set(lockKey(sessionId, documentId), `${leaseOwner({ id: 'node-2', startedAt })}:999999`, 'PX', 120_000);
      expect((await runToolbox(nodes[0]!.rest, token, documentId, [{ rotate: { pages: '1', degrees: 90 } }])).error).toMatchObject({ errorCode: -75 });

      await victim.kill();
      const killed = Date.now();
      // The heartbeat expires HEARTBEAT_S × MISSED after the last one: at most that long after the kill, plus a beat of slack.
      const window = HEARTBEAT_S * (MISSED + 1) * 1000 + 1000;
      let node2: NodeStatus | undefined;
      while (Date.now() - killed < window) {
        node2 = (await clusterStatus(nodes[0]!)).nodes.find((n) => n.name === 'node-2');
        if (node2?.state === 'down') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(node2, `node-2 shown down within ${window} ms of SIGKILL`).toMatchObject({ state: 'down', isCoordinator: false });
      expect(node2!.error.description).toMatch(/^lost: no heartbeat since /);

      // The coordinator's sweep records the loss (and releases what node-2 held) within a heartbeat more.
      let lostAt: number | undefined;
      while (Date.now() - killed < window + HEARTBEAT_S * 2000 && lostAt === undefined) {
        lostAt = (await clusterStatus(nodes[0]!)).nodes.find((n) => n.name === 'node-2')?.member.lostAt;
        if (lostAt === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(lostAt).toEqual(expect.any(Number));
      // The lease is gone long before its expiry: the document is free for the other nodes.
      expect(await client.exists(lockKey(sessionId, documentId))).toBe(0);
      expect((await runToolbox(nodes[0]!.rest, token, documentId, [{ rotate: { pages: '1', degrees: 90 } }])).status).toBe(303);
    } finally {
      client.disconnect();
    }

    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${proxy!.url}/webPDF/rest/authentication/user/login/`, { method: 'POST', headers: { authorization: basic('admin', ADMIN_PASSWORD), connection: 'close' } });
      await response.arrayBuffer();
      expect(response.status).toBe(200);
    }
  });
});

async function loginStatus(node: QuireProcess, name: string, password: string): Promise<number> {
  const response = await fetch(`${node.rest}/authentication/user/login/`, { method: 'POST', headers: { authorization: basic(name, password) } });
  await response.arrayBuffer();
  return response.status;
}
