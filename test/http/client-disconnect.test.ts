import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/client.js';
import { downloadToFile } from '../helpers/converter.js';
import { locationId, openSession, postDocument, sha256, type TestSession } from '../helpers/documents.js';
import { becomesQuiet, waitForChild, waitUntilGone } from '../helpers/child-processes.js';
import { useTestServer } from '../helpers/fixture.js';
import { buildPdf, documentObjects } from '../helpers/hostile-pdf.js';
import type { Job } from '../helpers/jobs.js';

// A synchronous web-service call whose client disconnects before the answer: its tool is killed at once
// instead of running for nobody, and the stored document stays as it was. The server runs in this
// process, so its tools are children of process.pid (read from /proc).

const MB = 1024 * 1024;
const PAGES = 200_000;
/** How long the cancelled call may take to end its qpdf: rotating 200,000 pages runs ~10 s. */
const BOUND_MS = 2_000;

const { server } = useTestServer({ env: { QUIRE_DOCUMENTS__TOOL_TIMEOUT: '120' }, session: false });
let pdf: Buffer;

beforeAll(async () => {
  pdf = buildPdf(documentObjects({ pages: PAGES }));
});

/** Uploads without GET info (no background inspection to tell apart from the call's own qpdf). */
async function upload(session: TestSession): Promise<string> {
  const outcome = await postDocument(server.rest, session.token, pdf, 'big.pdf');
  expect(outcome.response?.status).toBe(303);
  return locationId(outcome.response!.headers);
}

describe('a synchronous web-service call whose client disconnects', () => {
  it('toolbox: kills its qpdf, leaves no child running and the document unchanged', async () => {
    const session = await openSession(server.rest);
    const id = await upload(session);
    const client = new AbortController();
    const call = fetch(`${server.rest}/toolbox/${id}`, {
      method: 'POST',
      headers: { ...session.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ toolbox: [{ rotate: { pages: '1-', degrees: 90 } }] }),
      redirect: 'manual',
      signal: client.signal,
    }).catch((error: unknown) => error);
    // The call's qpdf has loaded the document: seconds of work left.
    const running = await waitForChild('qpdf', (child) => child.peakBytes > 200 * MB, 30_000);
    expect(running).toBeDefined();
    client.abort();
    expect(await call).toBeInstanceOf(Error);
    expect(await waitUntilGone(running!.pid, BOUND_MS)).toBe(true);
    expect(await becomesQuiet('qpdf', 1_000, 1_000 + BOUND_MS)).toBe(true);

    // The document is as uploaded: same bytes, and the independent tools read every page unrotated.
    const file = await downloadToFile(server.rest, session.token, id);
    expect(sha256(readFileSync(file))).toBe(sha256(pdf));
    expect(execFileSync('qpdf', ['--show-npages', file], { encoding: 'utf8' }).trim()).toBe(String(PAGES));
    expect(execFileSync('pdfinfo', ['-f', '1', '-l', '1', file], { encoding: 'utf8' })).toMatch(/Page\s+1 rot:\s+0/);
    // Nothing left in the call's scratch: the toolbox removes its working copy as it unwinds.
    const tmp = path.join(server.dataDir, 'tmp');
    for (let i = 0; i < 200 && readdirSync(tmp).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(readdirSync(tmp)).toEqual([]);
    // The call released the document.
    const described = await fetch(`${server.rest}/documents/${id}/info`, { headers: session.headers });
    expect(((await described.json()) as { isFileLocked: boolean }).isFileLocked).toBe(false);
  });

  it('converter: a PostScript that never ends stops its Ghostscript at once instead of after the time limit', async () => {
    const session = await openSession(server.rest);
    const endless = Buffer.from('%!PS-Adobe-3.0\n%%Pages: 1\n{ } loop\nshowpage\n', 'latin1');
    const outcome = await postDocument(server.rest, session.token, endless, 'endless.ps');
    expect(outcome.response?.status).toBe(303);
    const id = locationId(outcome.response!.headers);
    const client = new AbortController();
    const call = fetch(`${server.rest}/converter/${id}`, {
      method: 'POST',
      headers: { ...session.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ converter: {} }),
      redirect: 'manual',
      signal: client.signal,
    }).catch((error: unknown) => error);
    const running = await waitForChild('gs', () => true, 30_000);
    expect(running).toBeDefined();
    client.abort();
    expect(await call).toBeInstanceOf(Error);
    expect(await waitUntilGone(running!.pid, BOUND_MS)).toBe(true);
    const file = await downloadToFile(server.rest, session.token, id, 'ps');
    expect(readFileSync(file).equals(endless)).toBe(true);
  });

  it('does not disturb asynchronous jobs (replayed in-process, no client to lose)', async () => {
    const session = await openSession(server.rest);
    const small = buildPdf(documentObjects({ pages: 3 }));
    const outcome = await postDocument(server.rest, session.token, small, 'small.pdf');
    const id = locationId(outcome.response!.headers);
    const accepted = await fetch(`${server.rest}/toolbox/${id}?async=true`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ toolbox: [{ rotate: { pages: '1-', degrees: 90 } }] }),
      redirect: 'manual',
    });
    expect(accepted.status).toBe(202);
    let job = (await accepted.json()) as Job;
    while (job.state === 'queued' || job.state === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      job = (await (await fetch(`${server.rest}/jobs/${job.jobId}`, { headers: bearer(session.token) })).json()) as Job;
    }
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    const file = await downloadToFile(server.rest, session.token, id);
    expect(execFileSync('pdfinfo', ['-f', '1', '-l', '3', file], { encoding: 'utf8' })).toMatch(/Page\s+3 rot:\s+90/);
  });
});
