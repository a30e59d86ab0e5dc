import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { downloadToFile, pageText, pdfFacts } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-move-'));

describe('toolbox move', () => {
  const { server, session } = useTestServer();

  const order = async (id: string, password?: string) => {
    const file = await downloadToFile(server.rest, session.token, id);
    const count = pdfFacts(file, password).pages;
    return Array.from({ length: count }, (_, i) => {
      const args = ['-enc', 'UTF-8', '-f', String(i + 1), '-l', String(i + 1), ...(password ? ['-upw', password] : []), file, '-'];
      return password
        ? execFileSync('pdftotext', args, { encoding: 'utf8' }).trim().replace('PAGE-', '')
        : pageText(file, i + 1)
            .trim()
            .replace('PAGE-', '');
    }).join(',');
  };
  const move = (options: Record<string, unknown>) => [{ move: { mode: 'afterPage', order: 'preserve', pages: '1', targetPosition: 1, ...options } }];

  it('moves pages after or before a target page, in document order or reversed', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ pages: '2-3', targetPosition: 5 }, '1,4,5,2,3,6'],
      [{ pages: '2-3', targetPosition: 5, mode: 'beforePage' }, '1,4,2,3,5,6'],
      [{ pages: '3,2', targetPosition: 5, order: 'reverse' }, '1,4,5,3,2,6'],
      [{ pages: 'last', targetPosition: 1, mode: 'beforePage' }, '6,1,2,3,4,5'],
      [{ pages: '1,6', targetPosition: 3 }, '2,3,1,6,4,5'],
      [{ pages: '5,1', targetPosition: 6 }, '2,3,4,6,1,5'],
    ];
    for (const [options, expected] of cases) {
      const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(6), 'six.pdf');
      await toolboxOk(server.rest, session.token, uploaded.documentId, move(options));
      expect(await order(uploaded.documentId), JSON.stringify(options)).toBe(expected);
    }
  });

  it('refuses a target among the moved pages, out-of-range pages and unknown enum values (-14), leaving the document unchanged', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(4), 'four.pdf');
    const cases: [Record<string, unknown>, RegExp | undefined][] = [
      [{ pages: '2-3', targetPosition: 3 }, /toolbox\[0\]\.move\.targetPosition: page 3 is one of the pages being moved/],
      [{ pages: '1', targetPosition: 9 }, /toolbox\[0\]\.move\.targetPosition: page 9 is out of range: the document has 4 pages/],
      [{ pages: '2-7', targetPosition: 1 }, /toolbox\[0\]\.move\.pages: Page 7 is out of range: the document has 4 pages/],
      [{ pages: 'two', targetPosition: 1 }, /toolbox\[0\]\.move\.pages/],
      [{ mode: 'between' }, undefined],
      [{ order: 'shuffle' }, undefined],
      [{ targetPosition: 0 }, undefined],
    ];
    for (const [options, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, move(options));
      expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: -14 } });
      if (message) expect(outcome.error?.errorMessage).toMatch(message);
    }
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize, isFileLocked: false });
    expect(await order(uploaded.documentId)).toBe('1,2,3,4');
  });

  it('works on a protected PDF with its password (-5008 for a wrong one) and refuses a damaged one (-7)', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(3));
    execFileSync('qpdf', ['--encrypt', 'pw', 'owner', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    expect((await runToolbox(server.rest, session.token, locked.documentId, move({ pages: '1', targetPosition: 3 }), { password: { open: 'x' } })).error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, move({ pages: '1', targetPosition: 3 }), { password: { open: 'pw' } });
    expect(await order(locked.documentId, 'pw')).toBe('2,3,1');

    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\nnot a PDF body\n'), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, move({}))).error).toMatchObject({ errorCode: -7 });
  });
});
