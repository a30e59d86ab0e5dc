import { describe, expect, it } from 'vitest';
import { bearer } from '../../helpers/client.js';
import { downloadToFile, pdfFacts } from '../../helpers/converter.js';
import { eventually, uploadFile, type ErrorBody } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox } from '../../helpers/toolbox.js';

const rotateAll = { rotate: { pages: '*', degrees: 90 } };

describe('back-pressure of the work queue', () => {
  const { server, session } = useTestServer({ env: { QUIRE_QUEUE__MAX_PENDING: '1', QUIRE_QUEUE__JOB_WORKERS: '1' } });

  const postAsync = (documentId: string, toolbox: unknown[]) =>
    fetch(`${server.rest}/toolbox/${documentId}`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ toolbox }),
      redirect: 'manual',
    });

  it('refuses async and sync web-service calls with 429 QUEUE_FULL and Retry-After while the queue is at its bound', async () => {
    const slow = await uploadFile(server.rest, session.token, await numberedPdf(400), 'slow.pdf');
    const other = await uploadFile(server.rest, session.token, await numberedPdf(2), 'other.pdf');
    const accepted = await postAsync(
      slow.documentId,
      Array.from({ length: 12 }, () => rotateAll),
    );
    expect(accepted.status).toBe(202);
    const location = accepted.headers.get('location')!;

    const secondAsync = await postAsync(other.documentId, [rotateAll]);
    expect(secondAsync.status).toBe(429);
    expect(secondAsync.headers.get('content-type')).toBe('application/json');
    expect(Number(secondAsync.headers.get('retry-after'))).toBeGreaterThan(0);
    const asyncError = (await secondAsync.json()) as ErrorBody;
    expect(asyncError).toMatchObject({ errorCode: -140 });
    expect(asyncError.errorMessage).toMatch(/queue is full/);

    const sync = await runToolbox(server.rest, session.token, other.documentId, [rotateAll]);
    expect(sync).toMatchObject({ status: 429, contentType: 'application/json', error: { errorCode: -140 } });
    expect(Number(sync.retryAfter)).toBeGreaterThan(0);

    // Calls that are no web-service operation are not held back.
    const listing = await fetch(`${server.rest}/documents/list`, { headers: session.headers });
    expect(listing.status).toBe(200);
    const job = await fetch(`${server.url}${location}`, { headers: session.headers });
    expect(job.status).toBe(200);

    // Neither refused call changed the document; the accepted job still completes.
    expect(pdfFacts(await downloadToFile(server.rest, session.token, other.documentId)).pages).toBe(2);
    await eventually(
      async () => {
        const state = ((await (await fetch(`${server.url}${location}`, { headers: session.headers })).json()) as { state: string }).state;
        expect(state).toBe('succeeded');
      },
      30_000,
      50,
    );

    // Drained (the queue frees the place once the outcome is on disk, a moment after it is readable): both kinds of call are accepted again.
    await eventually(async () => expect((await runToolbox(server.rest, session.token, other.documentId, [rotateAll])).status).toBe(303), 2000, 20);
    const afterwards = await postAsync(other.documentId, [rotateAll]);
    expect(afterwards.status).toBe(202);
  });
});
