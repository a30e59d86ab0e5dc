import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { downloadToFile, pageText, pdfFacts } from '../../helpers/converter.js';
import { info, PNG_1X1, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-toolbox-'));

describe('toolbox: the chain as one transaction', () => {
  const { server, session } = useTestServer();

  const pagesOf = async (id: string) => {
    const file = await downloadToFile(server.rest, session.token, id);
    const count = pdfFacts(file).pages;
    return Array.from({ length: count }, (_, i) => pageText(file, i + 1).trim());
  };

  it('runs the operations in array order on the same document', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(6), 'six.pdf');
    const result = await toolboxOk(server.rest, session.token, uploaded.documentId, [{ delete: { pages: '1' } }, { delete: { pages: 'last' } }]);
    expect(result).toMatchObject({ documentId: uploaded.documentId, fileName: 'six', mimeType: 'application/pdf', isFileLocked: false });
    expect(await pagesOf(uploaded.documentId)).toEqual(['PAGE-2', 'PAGE-3', 'PAGE-4', 'PAGE-5']);
  });

  it('leaves the document untouched when a later step fails (bad page range → -14 naming the step)', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(3), 'three.pdf');
    const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ delete: { pages: '1' } }, { delete: { pages: '7' } }]);
    expect(outcome).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -14 } });
    expect(outcome.error?.errorMessage).toMatch(/toolbox\[1\]\.delete\.pages: Page 7 is out of range: the document has 2 pages/);
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize, isFileLocked: false });
    expect(await pagesOf(uploaded.documentId)).toEqual(['PAGE-1', 'PAGE-2', 'PAGE-3']);
  });

  it('refuses an empty array, unknown operations, elements with two operations and unknown enum values (-14)', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'bad.pdf');
    for (const toolbox of [[], [{ shred: {} }], [{ delete: { pages: '1' }, description: {} }], [{ delete: {} }]]) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, toolbox);
      expect(outcome, JSON.stringify(toolbox)).toMatchObject({ status: 400, contentType: 'application/json', error: { errorCode: -14 } });
    }
  });

  it('needs a PDF (-7 for an image) and the password of a protected one (-5009, then -5008), and keeps its protection', async () => {
    const image = await uploadFile(server.rest, session.token, PNG_1X1, 'pixel.png');
    expect((await runToolbox(server.rest, session.token, image.documentId, [{ delete: { pages: '1' } }])).error).toMatchObject({ errorCode: -7 });

    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(3));
    execFileSync('qpdf', ['--encrypt', 'geheim', 'owner-pw', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    expect((await runToolbox(server.rest, session.token, locked.documentId, [{ delete: { pages: '1' } }])).error).toMatchObject({ errorCode: -5009 });
    expect((await runToolbox(server.rest, session.token, locked.documentId, [{ delete: { pages: '1' } }], { password: { open: 'wrong' } })).error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [{ delete: { pages: '1' } }], { password: { open: 'geheim' } });
    const file = await downloadToFile(server.rest, session.token, locked.documentId);
    expect(() => pdfFacts(file)).toThrow();
    const facts = pdfFacts(file, 'geheim');
    expect(facts.pages).toBe(2);
    expect(facts.text).toContain('PAGE-2');
  });

  it('refuses toolbox/new whose result has no pages', async () => {
    const response = await fetch(`${server.rest}/toolbox/new?name=nothing.pdf`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ toolbox: [{ delete: { pages: '1' } }] }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
  });
});
