import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearer } from '../../helpers/client.js';
import { downloadToFile } from '../../helpers/converter.js';
import { eventually, info, openSession, uploadFile, type ErrorBody } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf } from '../../helpers/toolbox.js';
import type { Job } from '../../helpers/jobs.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-async-toolbox-'));

/** /Rotate of every page as poppler reports it (pdfinfo's per-page "rot:" lines). */
function rotations(pdf: string, password?: string): number[] {
  const out = execFileSync('pdfinfo', [...(password ? ['-upw', password] : []), '-f', '1', '-l', '999', pdf], { encoding: 'utf8' });
  return [...out.matchAll(/^Page\s+\d+\s+rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
}

const rotate = (options: Record<string, unknown> = {}) => ({ rotate: { pages: '*', degrees: 90, ...options } });

describe('asynchronous toolbox calls and the job resource', () => {
  // One job at a time, so that a second job stays queued behind a slow first one.
  const { server, session } = useTestServer({ env: { QUIRE_QUEUE__JOB_WORKERS: '1' } });

  const post = async (url: string, body: unknown, headers: Record<string, string> = {}, token = session.token) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      redirect: 'manual',
    });
    return { status: response.status, headers: response.headers, body: (await response.json().catch(() => undefined)) as unknown };
  };
  const getJob = async (location: string, token = session.token) => {
    const response = await fetch(`${server.url}${location}`, { headers: bearer(token) });
    return { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as Job & ErrorBody };
  };
  const finished = (location: string) =>
    eventually(
      async () => {
        const job = (await getJob(location)).body;
        if (job.state !== 'succeeded' && job.state !== 'failed') throw new Error(`job still ${job.state}`);
        return job;
      },
      30_000,
      50,
    );
  const jobCount = async () => ((await (await fetch(`${server.rest}/jobs`, { headers: session.headers })).json()) as Job[]).length;

  it('runs a rotation with ?async=true: 202 with Location and the job, polled until it succeeded with the DocumentFile', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(3), 'three.pdf');
    const accepted = await post(`${server.rest}/toolbox/${uploaded.documentId}?async=true`, { toolbox: [rotate()] });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('content-type')).toBe('application/json');
    const location = accepted.headers.get('location')!;
    expect(location).toMatch(/^\/webPDF\/rest\/jobs\/[0-9a-f]{32}$/);
    // ?async=true is no RFC 7240 preference: nothing to report as applied.
    expect(accepted.headers.get('preference-applied')).toBeNull();
    const job = accepted.body as Job;
    expect(job).toMatchObject({ jobId: location.split('/').pop(), state: 'queued', progress: 0, webservice: 'toolbox', documentId: uploaded.documentId, attempts: 0 });
    expect(Date.parse(job.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    const done = await finished(location);
    expect(done).toMatchObject({ state: 'succeeded', progress: 100, attempts: 1, result: { documentId: uploaded.documentId, mimeType: 'application/pdf' } });
    expect(done.error).toBeUndefined();
    expect(Date.parse(done.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(done.startedAt!));
    expect(done.result).toEqual(await info(server.rest, session.token, uploaded.documentId));
    expect(rotations(await downloadToFile(server.rest, session.token, uploaded.documentId))).toEqual([90, 90, 90]);
  });

  it('takes Prefer: respond-async among other preferences and answers Preference-Applied', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'two.pdf');
    const accepted = await post(`${server.rest}/toolbox/${uploaded.documentId}`, { toolbox: [rotate({ pages: '2', degrees: 180 })] }, { prefer: 'return=minimal, RESPOND-ASYNC; foo="a,b", wait=10' });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    expect(await finished(accepted.headers.get('location')!)).toMatchObject({ state: 'succeeded' });
    expect(rotations(await downloadToFile(server.rest, session.token, uploaded.documentId))).toEqual([0, 180]);
  });

  it('runs toolbox/new asynchronously: the result is the new document', async () => {
    const value = (await numberedPdf(2)).toString('base64');
    const merge = { merge: { mode: 'atTheEnd', page: 1, outlineName: '', removeStaticXFA: false, resetMetadata: false, sourceIsZip: false, data: { format: 'pdf', value } } };
    const accepted = await post(`${server.rest}/toolbox/new?name=fresh.pdf&async=true`, { toolbox: [merge] });
    expect(accepted.status).toBe(202);
    const job = accepted.body as Job;
    expect(job.documentId).toBeUndefined();
    const done = await finished(accepted.headers.get('location')!);
    expect(done).toMatchObject({ state: 'succeeded', result: { fileName: 'fresh', fileExtension: 'pdf' } });
    expect(await info(server.rest, session.token, done.result!.documentId)).toMatchObject({ fileName: 'fresh' });
    expect(rotations(await downloadToFile(server.rest, session.token, done.result!.documentId))).toEqual([0, 0]);
  });

  it('refuses a bad parameter synchronously with 400, before any job exists', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'two.pdf');
    const before = await jobCount();
    const bad = await post(`${server.rest}/toolbox/${uploaded.documentId}?async=true`, { toolbox: [rotate({ pageGroup: 'prime' })] });
    expect(bad).toMatchObject({ status: 400, body: { errorCode: -14 } });
    expect((bad.body as ErrorBody).errorMessage).toMatch(/pageGroup/);
    const missing = await post(`${server.rest}/toolbox/${'0'.repeat(32)}`, { toolbox: [rotate()] }, { prefer: 'respond-async' });
    expect(missing).toMatchObject({ status: 404, body: { errorCode: -70 } });
    const badSwitch = await post(`${server.rest}/toolbox/${uploaded.documentId}?async=maybe`, { toolbox: [rotate()] });
    expect(badSwitch).toMatchObject({ status: 400, body: { errorCode: -14 } });
    const lonelyWebhook = await post(`${server.rest}/toolbox/${uploaded.documentId}`, { toolbox: [rotate()] }, { 'x-quire-callback-url': 'http://127.0.0.1:1/hook' });
    expect(lonelyWebhook).toMatchObject({ status: 400, body: { errorCode: -14 } });
    expect(await jobCount()).toBe(before);
    expect(rotations(await downloadToFile(server.rest, session.token, uploaded.documentId))).toEqual([0, 0]);
  });

  it("reports an operation error inside the job as the failed job's error (wrong password: -5008), the document unchanged", async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(2));
    execFileSync('qpdf', ['--encrypt', 'pw', 'owner', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    const accepted = await post(`${server.rest}/toolbox/${locked.documentId}?async=true`, { toolbox: [rotate()], password: { open: 'wrong' } });
    expect(accepted.status).toBe(202);
    const done = await finished(accepted.headers.get('location')!);
    expect(done).toMatchObject({ state: 'failed', attempts: 1, error: { errorCode: -5008 } });
    expect(done.result).toBeUndefined();
    expect(rotations(await downloadToFile(server.rest, session.token, locked.documentId), 'pw')).toEqual([0, 0]);
  });

  it('keeps jobs to their session: another session and unknown ids get 404 (-141)', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(1), 'one.pdf');
    const accepted = await post(`${server.rest}/toolbox/${uploaded.documentId}?async=true`, { toolbox: [rotate()] });
    const location = accepted.headers.get('location')!;
    await finished(location);
    const other = await openSession(server.rest);
    const foreign = await getJob(location, other.token);
    expect(foreign).toMatchObject({ status: 404, contentType: 'application/json', body: { errorCode: -141 } });
    const cancel = await fetch(`${server.url}${location}`, { method: 'DELETE', headers: other.headers });
    expect(cancel.status).toBe(404);
    expect((await (await fetch(`${server.rest}/jobs`, { headers: other.headers })).json()) as Job[]).toEqual([]);
    expect((await getJob(`/webPDF/rest/jobs/${'f'.repeat(32)}`)).body).toMatchObject({ errorCode: -141 });
    expect((await getJob('/webPDF/rest/jobs/not-an-id')).status).toBe(404);
    expect((await fetch(`${server.url}${location}`)).status).toBe(401);
  });

  it("lists the session's jobs newest first, with a limit", async () => {
    const listed = (await (await fetch(`${server.rest}/jobs?limit=2`, { headers: session.headers })).json()) as Job[];
    expect(listed).toHaveLength(2);
    const all = (await (await fetch(`${server.rest}/jobs`, { headers: session.headers })).json()) as Job[];
    expect(all.length).toBeGreaterThan(2);
    expect(all.slice(0, 2)).toEqual(listed);
    const created = all.map((job) => Date.parse(job.createdAt));
    expect([...created].sort((a, b) => b - a)).toEqual(created);
  });

  it('cancels a queued job (200, then 404); a running or finished one answers 409 (-145)', async () => {
    // A slow first job (many rewrites of a long document) keeps the only job worker busy.
    const slow = await uploadFile(server.rest, session.token, await numberedPdf(400), 'slow.pdf');
    const target = await uploadFile(server.rest, session.token, await numberedPdf(2), 'target.pdf');
    const first = await post(`${server.rest}/toolbox/${slow.documentId}?async=true`, { toolbox: Array.from({ length: 12 }, () => rotate()) });
    const second = await post(`${server.rest}/toolbox/${target.documentId}?async=true`, { toolbox: [rotate()] });
    const queued = second.headers.get('location')!;
    expect((await getJob(queued)).body.state).toBe('queued');
    const cancelled = await fetch(`${server.url}${queued}`, { method: 'DELETE', headers: session.headers });
    expect(cancelled.status).toBe(200);
    expect((await getJob(queued)).body).toMatchObject({ errorCode: -141 });

    const running = first.headers.get('location')!;
    await eventually(async () => expect((await getJob(running)).body.state).toBe('running'), 5000, 20);
    const refused = await fetch(`${server.url}${running}`, { method: 'DELETE', headers: session.headers });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ errorCode: -145 });
    expect(await finished(running)).toMatchObject({ state: 'succeeded' });
    const again = await fetch(`${server.url}${running}`, { method: 'DELETE', headers: session.headers });
    expect(again.status).toBe(409);
    // The cancelled call never ran.
    expect(rotations(await downloadToFile(server.rest, session.token, target.documentId))).toEqual([0, 0]);
    expect(rotations(await downloadToFile(server.rest, session.token, slow.documentId)).slice(0, 2)).toEqual([0, 0]);
  });

  it('refuses ?async=true on routes that are no web-service operation (-144) and ignores Prefer there (RFC 7240)', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(1), 'one.pdf');
    const asyncInfo = await fetch(`${server.rest}/documents/${uploaded.documentId}/info?async=true`, { headers: session.headers });
    expect(asyncInfo.status).toBe(400);
    expect(await asyncInfo.json()).toMatchObject({ errorCode: -144 });
    const preferred = await fetch(`${server.rest}/documents/${uploaded.documentId}/info`, { headers: { ...session.headers, prefer: 'respond-async' } });
    expect(preferred.status).toBe(200);
    expect(preferred.headers.get('preference-applied')).toBeNull();
  });

  it('refuses the internal session header from the network, even with a valid token', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(1), 'one.pdf');
    for (const headers of [{ 'x-quire-internal-session': `${session.id}:guess` }, { ...session.headers, 'x-quire-internal-session': `${session.id}:guess` }]) {
      const response = await fetch(`${server.rest}/documents/${uploaded.documentId}/info`, { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ errorCode: -62 });
    }
  });
});
