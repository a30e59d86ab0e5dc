import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, expectError, login } from '../helpers/client.js';
import { info, list, uploadFile } from '../helpers/documents.js';
import { numberedPdf, runToolbox } from '../helpers/toolbox.js';
import type { RedisServer } from '../helpers/redis-server.js';
import type { TestServer } from '../helpers/server.js';
import { startTwoApps, type TwoApps } from './helpers/two-apps.js';

/**
 * Two Quire applications in this process on one Redis and one data dir, in cluster mode: any node
 * serves any session. (test/cluster/nodes*.test.ts runs built nodes behind haproxy; this file checks
 * the stores through two real HTTP servers without the process start.)
 */
let apps: TwoApps;
let redis: RedisServer;
let dataDir: string;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  apps = await startTwoApps({ keyPrefix: 'two-apps:' });
  ({ redis, dataDir, a, b } = apps);
}, 120_000);
afterAll(async () => {
  await apps?.stop();
});

const refresh = (server: TestServer, token: string) =>
  fetch(`${server.rest}/authentication/user/refresh/`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ createRefreshToken: true }),
  });

/** Page rotations of a PDF as pdfinfo (not the server) reads them. */
function rotations(file: string, pages: number): number[] {
  const text = execFileSync('pdfinfo', ['-f', '1', '-l', String(pages), file], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return [...text.matchAll(/^Page\s+\d+ rot:\s+(\d+)$/gm)].map((m) => Number(m[1]));
}

async function downloadTo(server: TestServer, token: string, documentId: string): Promise<string> {
  const response = await fetch(`${server.rest}/documents/${documentId}`, { headers: bearer(token) });
  expect(response.status).toBe(200);
  const file = path.join(dataDir, `download-${documentId}-${Date.now()}.pdf`);
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return file;
}

describe('two Quire apps on one Redis and one data dir', () => {
  it('serves a session logged in on A: upload on B, download on A', async () => {
    const { token } = await login(a.rest);
    const pdf = await numberedPdf(3);
    const uploaded = await uploadFile(b.rest, token, pdf, 'three.pdf');
    expect((await list(a.rest, token)).map((d) => d.documentId)).toEqual([uploaded.documentId]);
    const file = await downloadTo(a, token, uploaded.documentId);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/Pages:\s+3/);
  });

  it('refresh on B invalidates the old tokens on A', async () => {
    const first = await login(a.rest);
    const response = await refresh(b, first.refreshToken);
    expect(response.status).toBe(200);
    const second = (await response.json()) as typeof first;
    await expectError(await fetch(`${a.rest}/documents/list`, { headers: bearer(first.token) }), 401, -60);
    await expectError(await refresh(a, first.refreshToken), 401, -60);
    expect((await fetch(`${a.rest}/documents/list`, { headers: bearer(second.token) })).status).toBe(200);
  });

  it('renews once when the same refresh token reaches A and B at the same time', async () => {
    const first = await login(a.rest);
    const answers = await Promise.all([refresh(a, first.refreshToken), refresh(b, first.refreshToken)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
    const refused = answers.find((r) => r.status === 401)!;
    expect(((await refused.json()) as { errorCode: number }).errorCode).toBe(-60);
  });

  it('logout on A ends the session and deletes its documents for B too', async () => {
    const { token } = await login(b.rest);
    const uploaded = await uploadFile(b.rest, token, await numberedPdf(1), 'one.pdf');
    expect((await info(a.rest, token, uploaded.documentId)).documentId).toBe(uploaded.documentId);
    expect((await fetch(`${a.rest}/authentication/user/logout`, { headers: bearer(token) })).status).toBe(200);
    await expectError(await fetch(`${b.rest}/documents/${uploaded.documentId}/info`, { headers: bearer(token) }), 401, -60);
    const { token: other } = await login(b.rest);
    expect(await list(b.rest, other)).toEqual([]);
  });

  it('lets exactly one of two concurrent toolbox calls from A and B on one document win; the other gets 409 and nothing is lost', async () => {
    const { token } = await login(a.rest);
    // Enough pages that a rotation takes a while: both calls are in flight at once.
    const uploaded = await uploadFile(a.rest, token, await numberedPdf(200), 'long.pdf');
    const rotate = [{ rotate: { pages: '1-200', degrees: 90 } }];
    const outcomes = await Promise.all([runToolbox(a.rest, token, uploaded.documentId, rotate), runToolbox(b.rest, token, uploaded.documentId, rotate)]);
    expect(outcomes.map((o) => o.status).sort(), JSON.stringify(outcomes.map((o) => o.error))).toEqual([303, 409]);
    const refused = outcomes.find((o) => o.status === 409)!;
    expect(refused.error?.errorCode).toBe(-75);
    const rotated = rotations(await downloadTo(b, token, uploaded.documentId), 200);
    expect(rotated).toHaveLength(200);
    // Rotated exactly once: 90 on every page, never 180 (two writers) nor 0 (a lost update).
    expect(new Set(rotated)).toEqual(new Set([90]));
  });

  it('answers 503 JSON while Redis is down and serves again once it is back', async () => {
    const { token } = await login(a.rest);
    await redis.kill();
    try {
      const response = await fetch(`${b.rest}/documents/list`, { headers: bearer(token) });
      expect(response.headers.get('content-type')).toBe('application/json');
      const error = await expectError(response, 503, -91);
      expect(error.errorMessage).toMatch(/Redis/);
      expect(response.headers.get('retry-after')).toBe('1');
    } finally {
      await redis.restart();
    }
    // The AOF (fsync every second) may have lost the last second: log in again, on either node.
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      const again = await fetch(`${a.rest}/authentication/user/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(() => undefined);
      status = again?.status ?? 0;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});
