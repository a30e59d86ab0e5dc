import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/client.js';
import { info, openSession, uploadFile } from '../helpers/documents.js';
import { becomesQuiet, waitForChild, waitUntilGone, watchChildren } from '../helpers/child-processes.js';
import { useTestServer } from '../helpers/fixture.js';
import { buildPdf, documentObjects, outlineCyclePdf } from '../helpers/hostile-pdf.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Issue 11, defect 2: GET info on a PDF whose outline items point at each other answered after the
// metadata budget, but the qpdf reading it in the background grew to GBs until documents.toolTimeout
// (30 s), even after the document and the session were deleted.
//
// The servers run in this process, so their tools are children of process.pid (read from /proc).
// Two documents: the outline cycle itself, and a valid PDF of 200,000 pages whose inspection keeps
// qpdf busy for tens of seconds (runs of several seconds and ~0.5 GB each) after GET info answered:
// it stays a slow document whatever the inspector learns about cycles, so stopping background work
// is exercised either way. Its test deletes while a heavy qpdf run is under way, and that very
// process must end long before it would have by itself; then nothing may follow it (an inspection
// is many qpdf runs: "stopped" is a quiet stretch, not one empty look).

const MB = 1024 * 1024;
/** How long stopped background work may take to end its qpdf: a heavy run of the slow document lasts ~5 s more. */
const BOUND_MS = 2_000;
/** No qpdf for this long: longer than the gaps between the runs of one inspection. */
const QUIET_MS = 1_500;

/** A qpdf of the slow document's inspection that has loaded its page tree (and has seconds left to run). */
function heavyQpdf() {
  return waitForChild('qpdf', (child) => child.peakBytes > 150 * MB, 30_000);
}

const { server } = useTestServer({ env: { QUIRE_DOCUMENTS__METADATA_BUDGET: '0.2', QUIRE_DOCUMENTS__TOOL_TIMEOUT: '60' }, session: false });
let slowPdf: Buffer;

beforeAll(async () => {
  slowPdf = buildPdf(documentObjects({ pages: 200_000 }));
});

/** Uploads (the upload's GET info starts the metadata in the background) and asks GET info again. */
async function uploadAndDescribe(target: TestServer, token: string, pdf: Buffer): Promise<string> {
  const uploaded = await uploadFile(target.rest, token, pdf, 'document.pdf');
  // GET info answers within its budget, whatever the background work does.
  expect((await info(target.rest, token, uploaded.documentId)).documentId).toBe(uploaded.documentId);
  return uploaded.documentId;
}

describe('background metadata work of GET info', () => {
  it('stops when the document is deleted (the outline-cycle PDF of issue 11)', async () => {
    const { token } = await openSession(server.rest);
    const id = await uploadAndDescribe(server, token, outlineCyclePdf());
    const deleted = await fetch(`${server.rest}/documents/${id}`, { method: 'DELETE', headers: bearer(token) });
    expect(deleted.status).toBe(200);
    expect(await becomesQuiet('qpdf', QUIET_MS, QUIET_MS + BOUND_MS)).toBe(true);
  });

  it('stops when the session ends (the outline-cycle PDF of issue 11)', async () => {
    const { token } = await openSession(server.rest);
    await uploadAndDescribe(server, token, outlineCyclePdf());
    const logout = await fetch(`${server.rest}/authentication/user/logout/`, { headers: bearer(token) });
    expect(logout.status).toBe(200);
    expect(await becomesQuiet('qpdf', QUIET_MS, QUIET_MS + BOUND_MS)).toBe(true);
  });

  it('kills the running qpdf when the document is deleted (a slow document)', async () => {
    const { token } = await openSession(server.rest);
    const id = await uploadAndDescribe(server, token, slowPdf);
    const running = await heavyQpdf();
    expect(running).toBeDefined();
    const deleted = await fetch(`${server.rest}/documents/${id}`, { method: 'DELETE', headers: bearer(token) });
    expect(deleted.status).toBe(200);
    expect(await waitUntilGone(running!.pid, BOUND_MS)).toBe(true);
    expect(await becomesQuiet('qpdf', QUIET_MS, QUIET_MS + BOUND_MS)).toBe(true);
  });

  it('kills the running qpdf when the session ends (a slow document)', async () => {
    const { token } = await openSession(server.rest);
    await uploadAndDescribe(server, token, slowPdf);
    const running = await heavyQpdf();
    expect(running).toBeDefined();
    const logout = await fetch(`${server.rest}/authentication/user/logout/`, { headers: bearer(token) });
    expect(logout.status).toBe(200);
    expect(await waitUntilGone(running!.pid, BOUND_MS)).toBe(true);
    expect(await becomesQuiet('qpdf', QUIET_MS, QUIET_MS + BOUND_MS)).toBe(true);
  });

  it('kills the running qpdf when the server shuts down', async () => {
    const own = await startTestServer({ env: { QUIRE_DOCUMENTS__METADATA_BUDGET: '0.2', QUIRE_DOCUMENTS__TOOL_TIMEOUT: '60' } });
    let running: Awaited<ReturnType<typeof heavyQpdf>>;
    try {
      const { token } = await openSession(own.rest);
      await uploadAndDescribe(own, token, slowPdf);
      running = await heavyQpdf();
      expect(running).toBeDefined();
    } finally {
      await own.stop();
    }
    expect(await waitUntilGone(running!.pid, BOUND_MS)).toBe(true);
    expect(await becomesQuiet('qpdf', QUIET_MS, QUIET_MS + BOUND_MS)).toBe(true);
  });

  it('keeps running for later calls while its document stays: a later GET info has the metadata', async () => {
    const { token } = await openSession(server.rest);
    // 12,000 pages: about 1.5 s of inspection, past the 0.2 s budget.
    const id = await uploadAndDescribe(server, token, buildPdf(documentObjects({ pages: 12_000 })));
    expect(await becomesQuiet('qpdf', QUIET_MS, 60_000)).toBe(true);
    const described = (await info(server.rest, token, id)) as unknown as { error: { errorCode: number }; metadata?: { information?: { pages?: number } } };
    expect(described.error.errorCode).toBe(0);
    expect(described.metadata?.information?.pages).toBe(12_000);
  });
});

describe('the memory cap of the background qpdf (engines.qpdf.maxMemory)', () => {
  const CAP = 256 * MB;
  let capped: TestServer;
  beforeAll(async () => {
    // The caps are process-wide (engines/process/tools.ts): the other server of this file is idle by now.
    capped = await startTestServer({ env: { QUIRE_DOCUMENTS__METADATA_BUDGET: '0.2', QUIRE_DOCUMENTS__TOOL_TIMEOUT: '60', QUIRE_ENGINES__QPDF__MAX_MEMORY: '256MB' } });
  });
  afterAll(() => capped.stop());

  it('is never passed, and a document that needs more reports -109 naming the setting, not a damaged PDF', async () => {
    const qpdf = watchChildren('qpdf', 10);
    const { token } = await openSession(capped.rest);
    const slow = await uploadAndDescribe(capped, token, slowPdf);
    const cycle = await uploadAndDescribe(capped, token, outlineCyclePdf());
    // No deadline of ours ends them: the cap (or a finished inspection) does, long before toolTimeout.
    expect(await becomesQuiet('qpdf', QUIET_MS, 50_000)).toBe(true);
    qpdf.stop();
    expect(qpdf.seen.size).toBeGreaterThan(0);
    for (const child of qpdf.seen.values()) expect(child.peakBytes).toBeLessThanOrEqual(CAP);
    // The failure is kept (not retried by every GET info, each growing another qpdf to the cap).
    const described = await info(capped.rest, token, slow);
    expect(described.error.errorCode).toBe(-109);
    expect((await info(capped.rest, token, slow)).error.errorCode).toBe(-109);
    expect(described.error.errorMessage).toMatch(/^qpdf needed more memory than the 256 MB it may use \(engines\.qpdf\.maxMemory\)/);
    // The cycle: either the inspection no longer follows it (no error), or the cap stopped it.
    expect([0, -109]).toContain((await info(capped.rest, token, cycle)).error.errorCode);
  });
});
