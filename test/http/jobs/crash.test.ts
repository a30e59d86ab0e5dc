import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer } from '../../helpers/client.js';
import { downloadToFile } from '../../helpers/converter.js';
import { eventually, openSession, uploadFile } from '../../helpers/documents.js';
import { killAll, startQuire } from '../../helpers/process.js';
import { numberedPdf } from '../../helpers/toolbox.js';
import type { Job } from '../../helpers/jobs.js';

const JOBS = 20;
const PAGES = 100;

/** pdfinfo's per-page rotation. */
function rotations(pdf: string): number[] {
  const out = execFileSync('pdfinfo', ['-f', '1', '-l', String(PAGES), pdf], { encoding: 'utf8' });
  return [...out.matchAll(/^Page\s+\d+\s+rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-jobs-crash-'));

afterAll(async () => {
  await killAll();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('async jobs across a crash', () => {
  it('completes every accepted job after a SIGKILL while most are queued, each document changed exactly once', async () => {
    const env = { QUIRE_QUEUE__JOB_WORKERS: '1' };
    const first = await startQuire({ dataDir, env });
    const session = await openSession(first.rest);
    const pdf = await numberedPdf(PAGES);
    const documents = await Promise.all(Array.from({ length: JOBS }, (_, i) => uploadFile(first.rest, session.token, pdf, `doc-${i}.pdf`)));

    // Each job turns every page by 90° once, then rewrites the file a few more times (360° turns) so that it takes a moment.
    // Run twice, a job would leave its pages at 180°.
    const toolbox = [{ rotate: { pages: '*', degrees: 90 } }, ...Array.from({ length: 3 }, () => ({ rotate: { pages: '*', degrees: 360 } }))];
    const accepted = await Promise.all(
      documents.map(async (document) => {
        const response = await fetch(`${first.rest}/toolbox/${document.documentId}?async=true`, {
          method: 'POST',
          headers: { ...bearer(session.token), 'content-type': 'application/json' },
          body: JSON.stringify({ toolbox }),
        });
        expect(response.status).toBe(202);
        return { documentId: document.documentId, location: response.headers.get('location')! };
      }),
    );
    // Killed once a few jobs are done and the next one has just started (its claim on disk a moment
    // later): the queue then holds finished, running and waiting jobs.
    const before = await eventually(
      async () => {
        const jobs = (await (await fetch(`${first.rest}/jobs`, { headers: session.headers })).json()) as Job[];
        if (jobs.filter((job) => job.state === 'succeeded').length < 2) throw new Error('fewer than 2 jobs done');
        if (!jobs.some((job) => job.state === 'running')) throw new Error('no job running');
        return jobs;
      },
      30_000,
      10,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await first.stop('SIGKILL');
    const unfinished = before.filter((job) => job.state === 'queued' || job.state === 'running').length;
    expect(unfinished, 'most jobs were still waiting when the server died').toBeGreaterThanOrEqual(JOBS / 2);

    // Same data dir, same session: sessions, tokens' key and the queue are files.
    const second = await startQuire({ dataDir, env });
    const finished = await Promise.all(
      accepted.map(({ location }) =>
        eventually(
          async () => {
            const response = await fetch(`${second.url}${location}`, { headers: session.headers });
            expect(response.status).toBe(200);
            const job = (await response.json()) as Job;
            if (job.state !== 'succeeded' && job.state !== 'failed') throw new Error(`job still ${job.state}`);
            return job;
          },
          60_000,
          100,
        ),
      ),
    );
    for (const job of finished) {
      // A job interrupted after its document changed is failed clearly, never run twice; every other one succeeded.
      if (job.state === 'failed') expect(job.error?.errorMessage).toMatch(/interrupted by a server stop after it may have changed the document/);
    }
    expect(finished.filter((job) => job.state === 'succeeded').length).toBeGreaterThanOrEqual(JOBS - 1);
    // The job that ran at the moment of the kill was recovered: run again (second attempt) or failed as changed.
    expect(finished.some((job) => job.attempts >= 2 || job.state === 'failed')).toBe(true);
    for (const { documentId } of accepted) {
      expect(rotations(await downloadToFile(second.rest, session.token, documentId)), documentId).toEqual(Array(PAGES).fill(90));
    }
    await second.stop();
  }, 120_000);
});
