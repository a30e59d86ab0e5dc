import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearer } from '../../helpers/client.js';
import { convert, downloadToFile, pdfFacts } from '../../helpers/converter.js';
import { eventually, info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import type { Job } from '../../helpers/jobs.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/office');

describe('asynchronous conversion (Prefer: respond-async)', () => {
  const { server, session } = useTestServer({ engines: true, env: { QUIRE_ENGINES__CHROMIUM__ENABLED: 'false' } });

  it('accepts a conversion with 202 and Location, polled until it succeeded; the result is the converted PDF', async () => {
    const uploaded = await uploadFile(server.rest, session.token, readFileSync(path.join(FIXTURES, 'sample.docx')), 'sample.docx');
    expect(uploaded.fileExtension).toBe('docx');
    const response = await fetch(`${server.rest}/converter/${uploaded.documentId}`, {
      method: 'POST',
      headers: { ...bearer(session.token), 'content-type': 'application/json', prefer: 'respond-async' },
      body: JSON.stringify({ converter: {} }),
      redirect: 'manual',
    });
    expect(response.status).toBe(202);
    expect(response.headers.get('preference-applied')).toBe('respond-async');
    const location = response.headers.get('location')!;
    expect(location).toMatch(/^\/webPDF\/rest\/jobs\/[0-9a-f]{32}$/);
    expect((await response.json()) as Job).toMatchObject({ state: 'queued', webservice: 'converter', documentId: uploaded.documentId });

    const done = await eventually(
      async () => {
        const job = (await (await fetch(`${server.url}${location}`, { headers: session.headers })).json()) as Job;
        if (job.state !== 'succeeded' && job.state !== 'failed') throw new Error(`job still ${job.state}`);
        return job;
      },
      60_000,
      20,
    );
    expect(done).toMatchObject({ state: 'succeeded', progress: 100, attempts: 1 });
    expect(done.result).toMatchObject({ documentId: uploaded.documentId, mimeType: 'application/pdf', fileExtension: 'pdf' });
    expect(done.result).toEqual(await info(server.rest, session.token, uploaded.documentId));
    const facts = pdfFacts(await downloadToFile(server.rest, session.token, uploaded.documentId));
    expect(facts.pages).toBeGreaterThan(0);
    expect(facts.text).toContain('QUIRE-MARKER-docx');
  });

  it('answers a call without the preference synchronously, exactly as before: 303 to the document information', async () => {
    const uploaded = await uploadFile(server.rest, session.token, readFileSync(path.join(FIXTURES, 'sample.docx')), 'sync.docx');
    const outcome = await convert(server.rest, session.token, uploaded.documentId);
    expect(outcome).toMatchObject({ status: 303, location: `/webPDF/rest/documents/${uploaded.documentId}/info` });
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ mimeType: 'application/pdf' });
    const jobs = (await (await fetch(`${server.rest}/jobs`, { headers: session.headers })).json()) as Job[];
    expect(jobs.map((job) => job.documentId)).not.toContain(uploaded.documentId);
  });
});
