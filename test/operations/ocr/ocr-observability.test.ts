import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { basic, bearer, login } from '../../helpers/client.js';
import { postWebService } from '../../helpers/converter.js';
import { useTestServer } from '../../helpers/fixture.js';
import { scratchDir } from '../../helpers/pdf-tools.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';
import { imagePdf, scanPage, textPdf } from './scans.js';

/**
 * The OCR pool as the administrator sees it (issue 16 "Also"): admin/server/status counts the
 * Tesseract pool under the ocr web service, and the Prometheus metrics carry the tesseract engine's
 * pool and job series as they do LibreOffice's, moved by a real call (one job per page).
 */

const { server, session, upload } = useTestServer();
const scratch = scratchDir('ocr-observability');
afterAll(() => scratch.remove());
const admin = () => ({ authorization: basic('admin', ADMIN_PASSWORD) });

async function metrics(): Promise<string> {
  const response = await fetch(`${server.rest}/`, { headers: admin() });
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of the `name` sample that has `labels` (among others), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const have = Object.fromEntries([...line.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => have[key] === value)) return Number(line.split(' ').at(-1));
  }
  return 0;
}

describe('ocr pool in admin/server/status and the metrics', () => {
  it('status shows the Tesseract pool under ocr; a 2-page call adds 2 tesseract jobs to the metrics', async () => {
    const line = { text: 'Pool and metrics check', x: 20, y: 100, size: 16 };
    const source = await textPdf(scratch.file('source.pdf'), [[line], [line]]);
    const pngs = [await scanPage(source, 1, 300, scratch.file('p1.png')), await scanPage(source, 2, 300, scratch.file('p2.png'))];
    const input = await imagePdf(scratch.file('scan.pdf'), pngs);

    const before = await metrics();
    expect(sample(before, 'quire_engine_pool_size', { engine: 'tesseract' })).toBe(availableParallelism());
    const uploaded = await upload(readFileSync(input), 'scan.pdf');
    expect((await postWebService(`${server.rest}/ocr/${uploaded.documentId}`, session.token, { ocr: {} })).status).toBe(303);
    const after = await metrics();
    const jobs = (text: string) => sample(text, 'quire_engine_jobs_total', { engine: 'tesseract', result: 'ok' });
    expect(jobs(after) - jobs(before)).toBe(2);
    expect(sample(after, 'quire_engine_job_duration_seconds_count', { engine: 'tesseract', outcome: 'ok' })).toBeGreaterThanOrEqual(2);

    const token = (await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token;
    const response = await fetch(`${server.rest}/admin/server/status`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    const status = (await response.json()) as {
      webservices: Record<string, { executables: Record<string, { status: string }>; state: { instances: Record<string, number>; jobs: { numberOfJobs: number } } }>;
    };
    const ocr = status.webservices.ocr!;
    expect(ocr.executables.tesseract!.status).toBe('ok');
    expect(ocr.state.instances.maxPoolSize).toBe(availableParallelism());
    expect(ocr.state.instances.maxUsedPoolSize).toBeGreaterThanOrEqual(1);
    expect(ocr.state.jobs.numberOfJobs).toBe(1);
  });
});
