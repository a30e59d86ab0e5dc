import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { downloadToFile, pageText, pdfFacts } from '../../helpers/converter.js';
import { info, openSession, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { startTestServer } from '../../helpers/server.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-split-'));
let counter = 0;

/** The page texts of a PDF ("PAGE-3" → 3). */
function pagesOf(pdf: string): number[] {
  return Array.from({ length: pdfFacts(pdf).pages }, (_, i) =>
    Number(
      pageText(pdf, i + 1)
        .trim()
        .replace('PAGE-', ''),
    ),
  );
}

/** A ZIP's members (unzip -Z1, archive order) and the pages of each PDF in it. */
function zipContents(zip: string): [string, number[]][] {
  const names = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
  const dir = path.join(scratch, `unzipped-${counter++}`);
  execFileSync('unzip', ['-q', zip, '-d', dir]);
  return names.map((name) => [name, pagesOf(path.join(dir, name))]);
}

describe('toolbox split', () => {
  const { server, session } = useTestServer();

  const split = (options: Record<string, unknown>) => [{ split: { fileNameTemplate: 'page[%d]', mode: 'last', pages: '1', singleFileAsZip: true, startPage: 1, ...options } }];
  const splitFive = async (options: Record<string, unknown>) => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(5), 'five.pdf');
    const result = await toolboxOk(server.rest, session.token, uploaded.documentId, split(options));
    const zip = result.mimeType === 'application/zip';
    return { result, file: await downloadToFile(server.rest, session.token, uploaded.documentId, zip ? 'zip' : 'pdf') };
  };

  it('last, first and list give one PDF', async () => {
    const cases: [Record<string, unknown>, number[]][] = [
      [{ mode: 'last', pages: '2' }, [1, 2]],
      [{ mode: 'last', pages: 'last' }, [1, 2, 3, 4, 5]],
      [{ mode: 'first', pages: '4' }, [4, 5]],
      [{ mode: 'list', pages: '5,1,3' }, [5, 1, 3]],
      [{ mode: 'list', pages: '2-4' }, [2, 3, 4]],
    ];
    for (const [options, expected] of cases) {
      const { result, file } = await splitFive(options);
      expect(result.mimeType, JSON.stringify(options)).toBe('application/pdf');
      expect(pagesOf(file), JSON.stringify(options)).toEqual(expected);
    }
  });

  it('single, each, group and burst give a ZIP of PDFs named by the template', async () => {
    const cases: [Record<string, unknown>, [string, number[]][]][] = [
      [
        { mode: 'single', pages: '4,2' },
        [
          ['page[4].pdf', [4]],
          ['page[2].pdf', [2]],
        ],
      ],
      [
        { mode: 'each', pages: '2' },
        [
          ['page[1].pdf', [1]],
          ['page[3].pdf', [3]],
          ['page[5].pdf', [5]],
        ],
      ],
      [
        { mode: 'each', pages: '3', startPage: 2 },
        [
          ['page[2].pdf', [2]],
          ['page[5].pdf', [5]],
        ],
      ],
      [
        { mode: 'group', pages: '2', startPage: 2 },
        [
          ['page[2].pdf', [2, 3]],
          ['page[4].pdf', [4, 5]],
        ],
      ],
      [
        { mode: 'group', pages: '3' },
        [
          ['page[1].pdf', [1, 2, 3]],
          ['page[4].pdf', [4, 5]],
        ],
      ],
      [{ mode: 'burst', fileNameTemplate: 'parts/doc-%d.PDF' }, [1, 2, 3, 4, 5].map((n) => [`parts/doc-${n}.PDF`, [n]])],
      [{ mode: 'single', pages: '3' }, [['page[3].pdf', [3]]]],
    ];
    for (const [options, expected] of cases) {
      const { result, file } = await splitFive(options);
      expect(result.mimeType, JSON.stringify(options)).toBe('application/zip');
      expect(zipContents(file), JSON.stringify(options)).toEqual(expected);
    }
  });

  it('returns a lone part as the PDF itself when singleFileAsZip is false', async () => {
    const single = await splitFive({ mode: 'single', pages: '3', singleFileAsZip: false });
    expect(single.result.mimeType).toBe('application/pdf');
    expect(pagesOf(single.file)).toEqual([3]);
    const group = await splitFive({ mode: 'group', pages: '9', singleFileAsZip: false });
    expect(group.result.mimeType).toBe('application/pdf');
    expect(pagesOf(group.file)).toEqual([1, 2, 3, 4, 5]);
    const several = await splitFive({ mode: 'single', pages: '1-2', singleFileAsZip: false });
    expect(several.result.mimeType).toBe('application/zip');
  });

  it('refuses bad pages, counts, start pages and templates (-14), leaving the document unchanged', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(3), 'three.pdf');
    const cases: [Record<string, unknown>, RegExp | undefined][] = [
      [{ mode: 'last', pages: '1-2' }, /toolbox\[0\]\.split\.pages: mode "last" takes one page/],
      [{ mode: 'first', pages: '7' }, /toolbox\[0\]\.split\.pages: Page 7 is out of range: the document has 3 pages/],
      [{ mode: 'list', pages: '1,x' }, /toolbox\[0\]\.split\.pages/],
      [{ mode: 'each', pages: 'two' }, /toolbox\[0\]\.split\.pages: mode "each" takes a number of pages/],
      [{ mode: 'group', pages: '0' }, /toolbox\[0\]\.split\.pages/],
      [{ mode: 'group', pages: '1', startPage: 4 }, /toolbox\[0\]\.split\.startPage: page 4 is out of range/],
      [{ mode: 'burst', fileNameTemplate: 'same' }, /toolbox\[0\]\.split\.fileNameTemplate: "same" needs "%d"/],
      [{ mode: 'burst', fileNameTemplate: '../up-%d' }, /toolbox\[0\]\.split\.fileNameTemplate/],
      [{ mode: 'chop' }, undefined],
      [{ mode: 'group', startPage: 0 }, undefined],
    ];
    for (const [options, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, split(options));
      expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: -14 } });
      if (message) expect(outcome.error?.errorMessage).toMatch(message);
    }
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize, mimeType: 'application/pdf', isFileLocked: false });
    expect(pagesOf(await downloadToFile(server.rest, session.token, uploaded.documentId))).toEqual([1, 2, 3]);
  });

  it('splits a protected PDF with its password (-5008 for a wrong one) and refuses a damaged one (-7)', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(2));
    execFileSync('qpdf', ['--encrypt', 'pw', 'owner', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    expect((await runToolbox(server.rest, session.token, locked.documentId, split({ mode: 'burst' }), { password: { open: 'x' } })).error).toMatchObject({ errorCode: -5008 });
    const result = await toolboxOk(server.rest, session.token, locked.documentId, split({ mode: 'burst' }), { password: { open: 'pw' } });
    // A ZIP result is not a PDF: it is not re-encrypted, and its parts are plain.
    expect(result.mimeType).toBe('application/zip');
    expect(zipContents(await downloadToFile(server.rest, session.token, locked.documentId, 'zip'))).toEqual([
      ['page[1].pdf', [1]],
      ['page[2].pdf', [2]],
    ]);

    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\nnot a PDF body\n'), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, split({ mode: 'burst' }))).error).toMatchObject({ errorCode: -7 });
  });
});

describe('toolbox split: memory scratch', () => {
  it('gives the same parts from the memory scratch and from the disk, and leaves nothing behind in memory', async () => {
    const mount = mkdtempSync(path.join(scratch, 'shm-'));
    const withMemory = await startTestServer({ env: { QUIRE_TOOLBOX__MEMORY_SCRATCH_DIR: mount } });
    const diskOnly = await startTestServer({ env: { QUIRE_TOOLBOX__MEMORY_SCRATCH_BUDGET: '0' } });
    try {
      const contents: [string, number[]][][] = [];
      for (const server of [withMemory, diskOnly]) {
        const session = await openSession(server.rest);
        const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(12), 'twelve.pdf');
        await toolboxOk(server.rest, session.token, uploaded.documentId, [{ split: { mode: 'group', pages: '5' } }]);
        contents.push(zipContents(await downloadToFile(server.rest, session.token, uploaded.documentId, 'zip')));
      }
      expect(contents[0]).toEqual([
        ['page[1].pdf', [1, 2, 3, 4, 5]],
        ['page[6].pdf', [6, 7, 8, 9, 10]],
        ['page[11].pdf', [11, 12]],
      ]);
      expect(contents[1]).toEqual(contents[0]);
      // The memory scratch was used (its per-process root exists) and every part directory is gone.
      expect(readdirSync(mount)).toEqual([`quire-${process.pid}`]);
      expect(readdirSync(path.join(mount, `quire-${process.pid}`))).toEqual([]);
    } finally {
      await Promise.all([withMemory.stop(), diskOnly.stop()]);
    }
  });
});
