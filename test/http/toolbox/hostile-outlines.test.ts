import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../helpers/client.js';
import { downloadToFile } from '../../helpers/converter.js';
import { uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { outlineCyclePdf, pageText } from '../../helpers/hostile-pdf.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

/**
 * Issue 11, defect 2: outline items that point at each other (7 → /Next 8, /First 7; 8 → /Next 7,
 * /Prev 8, /First 6). `GET info` made qpdf's page JSON follow the loop and grow to gigabytes; every
 * reader of outlines must end on such a file, and quickly (the server's 2 s metadata budget).
 */
const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-hostile-outlines-'));

interface QOutline {
  title: string;
  kids: QOutline[];
}

/** qpdf's view of a result's outline, after qpdf --check; both stop within 10 s or the test fails. */
function outlineOf(file: string): QOutline[] {
  execFileSync('qpdf', ['--check', file], { timeout: 10_000 });
  return JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=outlines', file], { encoding: 'utf8', timeout: 10_000 })).outlines as QOutline[];
}
const titles = (items: QOutline[]): unknown[] => items.map((item) => (item.kids.length > 0 ? [item.title, titles(item.kids)] : item.title));

/** The qpdf processes this test process (and so the in-process server) is running right now. */
function qpdfChildren(): string[] {
  const out = execFileSync('ps', ['-o', 'pid=,rss=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').filter((line) => /\bqpdf\b/.test(line));
}

describe('hostile outlines', () => {
  // A short tool limit: without the fix, the runaway qpdf is killed after 5 s instead of 30.
  const { server, session } = useTestServer({ env: { QUIRE_DOCUMENTS__TOOL_TIMEOUT: '5' } });
  let cyclic: Buffer;

  beforeAll(() => {
    cyclic = outlineCyclePdf();
    writeFileSync(path.join(scratch, 'cyclic.pdf'), cyclic);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('GET info answers with the metadata of a document whose outline loops, within the budget, and leaves no qpdf running', async () => {
    const doc = await uploadFile(server.rest, session.token, cyclic, 'cyclic.pdf');
    const response = await fetch(`${server.rest}/documents/${doc.documentId}/info`, { headers: bearer(session.token) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { metadata?: { information: { pages: number }; pages: { page: { width: number }[] } } };
    // Metadata is left out when it is not ready within documents.metadataBudget.
    expect(body.metadata, 'metadata missing: the inspection did not finish within the budget').toBeDefined();
    expect(body.metadata!.information.pages).toBe(1);
    expect(body.metadata!.pages.page).toHaveLength(1);
    expect(body.metadata!.pages.page[0]!.width).toBeCloseTo(612, 0);
    expect(qpdfChildren()).toEqual([]);
  });

  it('outline add keeps the looping items once each and writes an outline qpdf can walk', async () => {
    const doc = await uploadFile(server.rest, session.token, cyclic, 'cyclic.pdf');
    await toolboxOk(server.rest, session.token, doc.documentId, [{ outline: { add: { item: [{ itemName: 'New', actions: [{ goTo: { destination: { fitPage: { page: 1 } } } }] }] } } }]);
    const outline = outlineOf(await downloadToFile(server.rest, session.token, doc.documentId));
    expect(titles(outline)).toEqual(['A', 'B', 'New']);
  });

  it('merge carries the looping outline of an inserted document once, and reads a looping base outline', async () => {
    const base = await uploadFile(server.rest, session.token, await numberedPdf(1), 'base.pdf');
    await toolboxOk(server.rest, session.token, base.documentId, [{ merge: { mode: 'atTheEnd', data: { format: 'pdf', value: cyclic.toString('base64') } } }]);
    const merged = await downloadToFile(server.rest, session.token, base.documentId);
    expect(titles(outlineOf(merged))).toEqual(['A', 'B']);
    expect(execFileSync('pdftotext', [merged, '-'], { encoding: 'utf8' })).toContain(pageText(1));

    const cyclicBase = await uploadFile(server.rest, session.token, cyclic, 'cyclic.pdf');
    await toolboxOk(server.rest, session.token, cyclicBase.documentId, [
      { merge: { mode: 'atTheEnd', outlineName: 'Base', data: { format: 'pdf', value: (await numberedPdf(1)).toString('base64'), outlineName: 'Inserted' } } },
    ]);
    expect(titles(outlineOf(await downloadToFile(server.rest, session.token, cyclicBase.documentId)))).toEqual([['Base', ['A', 'B']], 'Inserted']);
  });

  it('extraction of links and info and a split end on a looping outline', async () => {
    for (const step of [{ extraction: { links: { fileFormat: 'json' } } }, { extraction: { info: { fileFormat: 'json' } } }, { split: { mode: 'burst' } }, { delete: { pages: '2' } }]) {
      const doc = await uploadFile(server.rest, session.token, cyclic, 'cyclic.pdf');
      const outcome = await runToolbox(server.rest, session.token, doc.documentId, [step]);
      const name = Object.keys(step)[0];
      if (name === 'delete') {
        // One page: "2" is out of range, which must be said, not hung on.
        expect(outcome.status).toBe(400);
        expect(outcome.error?.errorCode).toBe(-14);
      } else {
        expect(outcome.status, `${name}: ${JSON.stringify(outcome.error)}`).toBe(303);
      }
    }
    expect(qpdfChildren()).toEqual([]);
  });
});
