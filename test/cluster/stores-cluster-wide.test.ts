import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, bearer, expectError, login } from '../helpers/client.js';
import { eventually, info, list, parseError, postDocument, replacementHoldingLock, uploadFile } from '../helpers/documents.js';
import { ALICE_AND_ROOT_YAML, type TestServer } from '../helpers/server.js';
import { numberedPdf, runToolbox, toolboxOk } from '../helpers/toolbox.js';
import { startTwoApps, type TwoApps } from './helpers/two-apps.js';

/**
 * What two cluster nodes count together (docs/cluster.md, "What is shared"): the statistics, the login
 * throttle, the documents' locks as `isFileLocked` shows them, and a session's usage against its limits.
 * Two applications in this process on one real redis-server and one data dir.
 */
let apps: TwoApps;
let a: TestServer;
let b: TestServer;

const MAX_FAILURES = 3;
const MAX_FILES = 3;

beforeAll(async () => {
  apps = await startTwoApps({
    keyPrefix: 'cluster-wide:',
    yaml: ALICE_AND_ROOT_YAML,
    env: {
      QUIRE_SECURITY__LOGIN__MAX_FAILURES: String(MAX_FAILURES),
      QUIRE_SECURITY__LOGIN__LOCKOUT: '60',
      QUIRE_LIMITS__ANONYMOUS__MAX_FILES: String(MAX_FILES),
    },
  });
  ({ a, b } = apps);
}, 120_000);
afterAll(async () => {
  await apps?.stop();
});

const ROTATE = [{ rotate: { pages: '1', degrees: 90 } }];

type StatisticData = Record<string, Record<string, { numberOfJobs: number; numberOfErrors: number }>>;

async function toolboxTotals(server: TestServer, adminToken: string, source: 'persistent' | 'realtime'): Promise<{ jobs: number; errors: number }> {
  const response = await fetch(`${server.rest}/admin/statistic/${source}/day?webservice=toolbox`, { headers: { ...bearer(adminToken), accept: 'application/json' } });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const frames = Object.values((JSON.parse(text) as { data: StatisticData }).data.toolbox ?? {});
  return { jobs: frames.reduce((sum, f) => sum + f.numberOfJobs, 0), errors: frames.reduce((sum, f) => sum + f.numberOfErrors, 0) };
}

/** A login with Basic credentials sent from `localAddress` (a loopback address of its own: the throttle counts per client address). */
function loginFrom(localAddress: string, server: TestServer, name: string, password: string): Promise<{ status: number; text: string; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: basic(name, password), 'content-type': 'application/json' };
    const req = httpRequest(`${server.rest}/authentication/user/login/`, { method: 'POST', localAddress, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), retryAfter: res.headers['retry-after'] as string | undefined }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

describe('two cluster nodes count together', () => {
  // First in the file: the later tests run toolbox calls of their own.
  it('answers admin/statistic persistent with the calls of both nodes, from either; realtime stays per node', async () => {
    const admin = (await login(a.rest, { name: 'root', password: 'toor' })).token;
    const { token } = await login(a.rest);
    const document = await uploadFile(a.rest, token, await numberedPdf(2), 'counted.pdf');
    await toolboxOk(a.rest, token, document.documentId, ROTATE);
    await toolboxOk(a.rest, token, document.documentId, ROTATE);
    // B's calls fail fast (no such document): they count as calls and errors all the same, and spare
    // the test a node's first rotation (seconds on this machine).
    for (let i = 0; i < 2; i++) expect((await runToolbox(b.rest, token, '0'.repeat(32), ROTATE)).status).toBe(404);
    // A call counts once its response went out, and a node pushes its counts before it answers a query:
    // asking B, then A, then B again sees all four from each (`eventually` only for that last moment).
    for (const server of [b, a, b]) {
      await eventually(async () => expect(await toolboxTotals(server, admin, 'persistent')).toEqual({ jobs: 4, errors: 2 }), 10_000, 50);
    }
    expect(await toolboxTotals(a, admin, 'realtime')).toEqual({ jobs: 2, errors: 0 });
    expect(await toolboxTotals(b, admin, 'realtime')).toEqual({ jobs: 2, errors: 2 });
    // The counters are in Redis: no node writes the data dir's statistics file, which the nodes used to overwrite.
    expect(existsSync(path.join(apps.dataDir, 'statistics', 'persistent.json'))).toBe(false);
  });

  it('throttles an address that failed logins on A and on B as one client', async () => {
    const from = '127.0.0.2';
    const servers = [a, b, a];
    for (const [i, server] of servers.entries()) {
      const answer = await loginFrom(from, server, 'alice', `wrong-${i}`);
      expect(answer.status, answer.text).toBe(401);
    }
    // Each node saw fewer than MAX_FAILURES failures (B only one): only the cluster's count locks the address.
    expect(servers.length).toBe(MAX_FAILURES);
    for (const server of [b, a]) {
      const refused = await loginFrom(from, server, 'alice', 'wonderland');
      expect(refused.status, refused.text).toBe(429);
      expect((JSON.parse(refused.text) as { errorCode: number }).errorCode).toBe(-150);
      expect(Number(refused.retryAfter)).toBeGreaterThan(50);
    }
    // Another address is not locked, and the user is not.
    const other = await loginFrom('127.0.0.3', b, 'alice', 'wonderland');
    expect(other.status, other.text).toBe(200);
  });

  it('shows isFileLocked on B while an operation on A holds the document, and refuses B a write meanwhile', async () => {
    const { token } = await login(a.rest);
    const document = await uploadFile(a.rest, token, await numberedPdf(2), 'locked.pdf');
    expect((await info(b.rest, token, document.documentId)).isFileLocked).toBe(false);
    // A content replacement on A holds the document's lock while its body arrives.
    const holder = replacementHoldingLock(a.rest, token, document.documentId, await numberedPdf(3));
    try {
      await eventually(async () => expect((await info(b.rest, token, document.documentId)).isFileLocked).toBe(true), 10_000, 20);
      expect((await list(b.rest, token)).find((d) => d.documentId === document.documentId)?.isFileLocked).toBe(true);
      const refused = await runToolbox(b.rest, token, document.documentId, ROTATE);
      expect(refused.status).toBe(409);
      expect(refused.error?.errorCode).toBe(-75);
    } finally {
      holder.release();
    }
    const outcome = await holder.done;
    expect(outcome.response?.status, outcome.response?.body.toString()).toBe(303);
    expect((await info(b.rest, token, document.documentId)).isFileLocked).toBe(false);
    expect((await list(b.rest, token)).find((d) => d.documentId === document.documentId)?.isFileLocked).toBe(false);
    // The replacement A stored, as pdfinfo reads it from B.
    const response = await fetch(`${b.rest}/documents/${document.documentId}`, { headers: bearer(token) });
    const file = path.join(apps.dataDir, `replaced-${document.documentId}.pdf`);
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/Pages:\s+3/);
  });

  it('lists in admin/session/table on B the session opened on A, with the documents it stored on A', async () => {
    const alice = await login(a.rest, { name: 'alice', password: 'wonderland' });
    const stored = await numberedPdf(2);
    await uploadFile(a.rest, alice.token, stored, 'on-a.pdf');
    const admin = (await login(b.rest, { name: 'root', password: 'toor' })).token;
    const response = await fetch(`${b.rest}/admin/session/table`, { headers: { ...bearer(admin), accept: 'application/json' } });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const table = JSON.parse(text) as { sessionList: { userName: string; fileCount: number; fileSize: number; sessionState: string }[]; sessionCount: number };
    // alice's sessions (an earlier test logged her in too): the one of this test holds the document.
    expect(table.sessionList.filter((s) => s.userName === 'alice')).toContainEqual(expect.objectContaining({ fileCount: 1, fileSize: stored.length, sessionState: 'ok' }));
    expect(table.sessionCount).toBeGreaterThanOrEqual(2);
  });

  it("counts a session's documents on A and B against one maxFiles limit", async () => {
    const { token } = await login(a.rest);
    const pdf = await numberedPdf(1);
    const first = await uploadFile(a.rest, token, pdf, 'one.pdf');
    await uploadFile(a.rest, token, pdf, 'two.pdf');
    await uploadFile(b.rest, token, pdf, 'three.pdf');
    expect(MAX_FILES).toBe(3);
    for (const server of [a, b]) {
      const refused = await postDocument(server.rest, token, pdf, 'four.pdf');
      expect(refused.response?.status).toBe(409);
      expect(parseError(refused.response!.body).errorCode).toBe(-72);
    }
    // A delete on B frees the slot for A.
    expect(await fetch(`${b.rest}/documents/${first.documentId}`, { method: 'DELETE', headers: bearer(token) }).then(async (r) => (await r.text(), r.status))).toBe(200);
    await uploadFile(a.rest, token, pdf, 'four.pdf');
    expect(await list(b.rest, token)).toHaveLength(MAX_FILES);
    await expectError(await fetch(`${b.rest}/documents/${first.documentId}/info`, { headers: bearer(token) }), 404);
  });
});
