import { describe, expect, it } from 'vitest';
import { bearer } from '../../helpers/client.js';
import { uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import type { Job } from '../../helpers/jobs.js';
import { numberedPdf } from '../../helpers/toolbox.js';

/**
 * `queue.jobWorkers` bounds the asynchronous web-service jobs that run at once (embedded queue):
 * with 1, three slow jobs submitted together run one after the other. Seen from outside only: the
 * job list polled while they run never shows two `running`, and the jobs' own [startedAt,
 * finishedAt] intervals do not overlap.
 */
describe('queue.jobWorkers: 1', () => {
  const { server, session } = useTestServer({ env: { QUIRE_QUEUE__JOB_WORKERS: '1' } });

  async function jobs(): Promise<Job[]> {
    const response = await fetch(`${server.rest}/jobs`, { headers: bearer(session.token) });
    const body = (await response.json()) as Job[];
    expect(response.status).toBe(200);
    return body;
  }

  it('runs three slow asynchronous toolbox jobs one at a time', async () => {
    // Slow enough that a second worker, if there were one, would start while the first still runs.
    const pdf = await numberedPdf(60);
    const rotations = Array.from({ length: 3 }, () => ({ rotate: { pages: '*', degrees: 90 } }));
    const documents = await Promise.all([1, 2, 3].map((n) => uploadFile(server.rest, session.token, pdf, `slow-${n}.pdf`)));
    const accepted = await Promise.all(
      documents.map(async ({ documentId }) => {
        const response = await fetch(`${server.rest}/toolbox/${documentId}?async=true`, {
          method: 'POST',
          headers: { ...bearer(session.token), 'content-type': 'application/json' },
          body: JSON.stringify({ toolbox: rotations }),
        });
        const job = (await response.json()) as Job;
        expect(response.status).toBe(202);
        return job.jobId;
      }),
    );

    let mostRunning = 0;
    let sawRunning = 0;
    let ours: Job[] = [];
    for (;;) {
      ours = (await jobs()).filter((job) => accepted.includes(job.jobId));
      const running = ours.filter((job) => job.state === 'running').length;
      mostRunning = Math.max(mostRunning, running);
      if (running > 0) sawRunning++;
      if (ours.every((job) => job.state === 'succeeded' || job.state === 'failed')) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    expect(ours.map((job) => job.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    // The polling did see jobs running (else "never two" would say nothing).
    expect(sawRunning).toBeGreaterThan(0);
    expect(mostRunning).toBe(1);
    const intervals = ours.map((job) => [Date.parse(job.startedAt!), Date.parse(job.finishedAt!)] as const).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < intervals.length; i++) expect(intervals[i]![0], `job ${i + 1} started before job ${i} finished`).toBeGreaterThanOrEqual(intervals[i - 1]![1]);
  }, 60_000);
});
