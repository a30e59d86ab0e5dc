import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pdfFacts } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { detachList, detachSave } from '../../helpers/pdf-tools.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-attachment-'));
const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64');
const NOTE = 'Eine Notiz – mit Umlauten: äöü\n';

function qpdfJson(file: string, ...args: string[]): any {
  return JSON.parse(execFileSync('qpdf', ['--json=2', ...args, file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
}

/** The annotations of a page (1-based) as qpdf reads them: their dictionaries, resolved. */
function pageAnnotations(file: string, page: number): any[] {
  const json = qpdfJson(file, '--json-key=pages', '--json-key=qpdf');
  const objects = json.qpdf[1];
  const pageDict = objects[`obj:${json.pages[page - 1].object}`].value;
  const annots = typeof pageDict['/Annots'] === 'string' ? objects[`obj:${pageDict['/Annots']}`].value : (pageDict['/Annots'] ?? []);
  return annots.map((ref: string) => objects[`obj:${ref}`].value);
}

function zipEntries(file: string): string[] {
  return execFileSync('zipinfo', ['-1', file], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

function unzipEntry(file: string, entry: string): Buffer {
  // unzip reads member names as wildcard patterns: brackets are escaped.
  return execFileSync('unzip', ['-p', file, entry.replace(/[[\]*?]/g, '\\$&')], { maxBuffer: 16 * 1024 * 1024 });
}

describe('toolbox attachment', () => {
  const { server, session, download } = useTestServer();
  let innerPdf: Buffer;

  beforeAll(async () => {
    innerPdf = await numberedPdf(1);
  });

  it('adds document-level attachments with name, MIME type, size, dates and checksum', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'host.pdf');
    const before = Date.now();
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      {
        attachment: {
          add: {
            file: [
              { fileName: 'notiz.txt', mimeType: '', creator: 'Erika', data: { source: 'value', value: b64(NOTE) } },
              { fileName: 'C:\\temp\\inner.pdf', mimeType: 'application/pdf', data: { value: b64(innerPdf) } },
            ],
          },
        },
      },
    ]);
    const file = await download(uploaded.documentId);
    expect(pdfFacts(file).pages).toBe(2);
    expect(detachList(file).sort()).toEqual(['inner.pdf', 'notiz.txt']);
    const list = detachList(file);
    expect(detachSave(file, list.indexOf('notiz.txt') + 1).toString('utf8')).toBe(NOTE);
    expect(detachSave(file, list.indexOf('inner.pdf') + 1).equals(innerPdf)).toBe(true);

    const attachments = qpdfJson(file, '--json-key=attachments').attachments;
    expect(attachments['notiz.txt'].streams['/F']).toMatchObject({ mimetype: 'text/plain', checksum: execFileSync('md5sum', { input: NOTE }).toString().slice(0, 32) });
    expect(attachments['inner.pdf'].streams['/F'].mimetype).toBe('application/pdf');
    expect(Date.parse(attachments['notiz.txt'].streams['/F'].creationdate)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    const facts = await info(server.rest, session.token, uploaded.documentId);
    expect((facts as unknown as { metadata: { information: unknown } }).metadata.information).toMatchObject({ attachments: 2 });
    execFileSync('qpdf', ['--check', file]);
  });

  it('adds a page-level attachment as a file attachment annotation placed by point, size, icon, colour and opacity', async () => {
    // Page 3 is displayed turned by 90°: "user" coordinates count from the top-left of what is displayed.
    const source = path.join(scratch, 'rotated-source.pdf');
    writeFileSync(source, await numberedPdf(3));
    execFileSync('qpdf', [source, '--rotate=+90:3', `${source}.rotated`]);
    const uploaded = await uploadFile(server.rest, session.token, readFileSync(`${source}.rotated`), 'annotated.pdf');
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      {
        attachment: {
          add: {
            file: [
              {
                fileName: 'data.csv',
                mimeType: 'text/csv',
                creator: 'Max',
                data: { value: b64('a;b\n1;2\n') },
                annotation: {
                  page: 2,
                  point: { x: 10, y: 20, metrics: 'mm', coordinates: 'user' },
                  width: 10,
                  height: 5,
                  icon: 'pushPin',
                  color: '#FF0000',
                  opacity: 50,
                  lockedPosition: true,
                  popupText: 'Die Daten',
                },
              },
              {
                fileName: 'hidden.txt',
                data: { value: b64('x') },
                annotation: { page: 3, point: { x: 72, y: 72, metrics: 'pt', coordinates: 'pdf' }, icon: 'none', lockedPosition: false },
              },
              {
                fileName: 'turned.txt',
                data: { value: b64('t') },
                annotation: { page: 3, point: { x: 100, y: 50, metrics: 'pt', coordinates: 'user' }, width: 20, height: 10, icon: 'tag' },
              },
            ],
          },
        },
      },
    ]);
    const file = await download(uploaded.documentId);
    expect(detachList(file).sort()).toEqual(['data.csv', 'hidden.txt', 'turned.txt']);
    expect(pageAnnotations(file, 1)).toEqual([]);
    const [annotation] = pageAnnotations(file, 2);
    const mm = 72 / 25.4;
    expect(annotation).toMatchObject({ '/Subtype': '/FileAttachment', '/Name': '/PushPin', '/Contents': 'u:Die Daten', '/T': 'u:Max', '/CA': 0.5, '/C': [1, 0, 0], '/F': 132 });
    const rect = annotation['/Rect'] as [number, number, number, number];
    expect(rect[0]).toBeCloseTo(10 * mm, 2);
    expect(rect[3]).toBeCloseTo(842 - 20 * mm, 2);
    expect(rect[2] - rect[0]).toBeCloseTo(10 * mm, 2);
    expect(rect[3] - rect[1]).toBeCloseTo(5 * mm, 2);
    const [hidden, turned] = pageAnnotations(file, 3);
    expect(hidden).toMatchObject({ '/Subtype': '/FileAttachment', '/Rect': [72, 72, 92, 92], '/F': 4 });
    expect(hidden['/AP']).toBeDefined();
    // Displayed 100 pt from the left and 50 pt from the top of the turned page: 50 pt from the unrotated left edge, 100 pt up.
    expect(turned).toMatchObject({ '/Name': '/Tag', '/Rect': [50, 100, 60, 120] });
  });

  it('removes by context, file mask and pages, then extracts one file as it is or several as a ZIP', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(3), 'many.pdf');
    const add = (fileName: string, content: string, page?: number) => ({
      fileName,
      data: { value: b64(content) },
      ...(page ? { annotation: { page, point: { x: 5, y: 5 } } } : {}),
    });
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      {
        attachment: {
          add: {
            file: [add('keep.txt', 'keep'), add('drop.log', 'drop'), add('Report.TXT', 'report'), add('page1.txt', 'p1', 1), add('page2.txt', 'p2', 2), add('page2.log', 'p2log', 2)],
          },
        },
      },
    ]);
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      {
        attachment: {
          remove: {
            selection: [
              { context: 'document', fileMask: '*.log', pages: '' },
              { context: 'page', fileMask: '*.log', pages: '2-3' },
            ],
          },
        },
      },
    ]);
    let file = await download(uploaded.documentId);
    expect(detachList(file).sort()).toEqual(['Report.TXT', 'keep.txt', 'page1.txt', 'page2.txt']);

    // A failing extraction (no match) leaves the document unchanged.
    const none = await runToolbox(server.rest, session.token, uploaded.documentId, [{ attachment: { extract: { selection: [{ context: 'all', fileMask: '*.docx' }] } } }]);
    expect(none).toMatchObject({ status: 400, error: { errorCode: -14 } });
    expect(none.error?.errorMessage).toMatch(/toolbox\[0\]\.attachment\.extract\.selection: no embedded attachment matches/);

    // All, as a ZIP: document-level files at the top, page-level ones in page[n] folders.
    const all = await uploadFile(server.rest, session.token, readFileSync(file), 'all.pdf');
    const zipped = await toolboxOk(server.rest, session.token, all.documentId, [{ attachment: { extract: { folderNameTemplate: 'page[%d]', selection: [], singleFileAsZip: true } } }]);
    expect(zipped).toMatchObject({ mimeType: 'application/zip', fileExtension: 'zip' });
    const zip = await download(all.documentId, 'zip');
    expect(zipEntries(zip)).toEqual(['Report.TXT', 'keep.txt', 'page[1]/page1.txt', 'page[2]/page2.txt']);
    expect(unzipEntry(zip, 'page[2]/page2.txt').toString()).toBe('p2');

    // One file, case-insensitive mask, as the file itself.
    const single = await toolboxOk(server.rest, session.token, uploaded.documentId, [
      { attachment: { extract: { selection: [{ context: 'document', fileMask: 'report.*' }], singleFileAsZip: false } } },
    ]);
    expect(single).toMatchObject({ mimeType: 'text/plain', fileExtension: 'txt' });
    file = await download(uploaded.documentId, 'txt');
    expect(readFileSync(file, 'utf8')).toBe('report');
  });

  it('chains remove and add in one call (replacing a file of the same name) and keeps the protection of a protected PDF', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(1));
    execFileSync('qpdf', ['--encrypt', 'geheim', 'owner-pw', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    const step = { attachment: { add: { file: [{ fileName: 'a.txt', data: { value: b64('first') } }] } } };
    expect((await runToolbox(server.rest, session.token, locked.documentId, [step], { password: { open: 'wrong' } })).error).toMatchObject({ errorCode: -5008 });
    const replace = { attachment: { remove: { selection: [{ context: 'document', fileMask: 'A.TXT' }] }, add: { file: [{ fileName: 'a.txt', data: { value: b64('second') } }] } } };
    await toolboxOk(server.rest, session.token, locked.documentId, [step, replace], {
      password: { open: 'geheim' },
    });
    const file = await download(locked.documentId);
    expect(() => pdfFacts(file)).toThrow();
    const decrypted = path.join(scratch, 'decrypted.pdf');
    execFileSync('qpdf', ['--password=geheim', '--decrypt', file, decrypted]);
    expect(detachList(decrypted)).toEqual(['a.txt']);
    expect(detachSave(decrypted, 1).toString()).toBe('second');
  });

  it('refuses bad options with -14 (-104 for data by URI), -7 for a damaged PDF, and changes nothing', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'refuse.pdf');
    const file = (extra: Record<string, unknown> = {}) => ({ fileName: 'x.txt', data: { value: b64('x') }, ...extra });
    const cases: [unknown, number, RegExp][] = [
      [{}, -14, /toolbox\[0\]\.attachment: give add, remove or extract/],
      [{ remove: { selection: [{ context: 'page', pages: '5' }] } }, -14, /toolbox\[0\]\.attachment\.remove\.selection\[0\]\.pages: Page 5 is out of range: the document has 2 pages/],
      [{ remove: { selection: [{ context: 'page', pages: '2-x' }] } }, -14, /remove\.selection\[0\]\.pages/],
      [{ remove: { selection: [{ context: 'document', pages: '1' }] } }, -14, /remove\.selection\[0\]\.pages: pages select page-level attachments/],
      [{ remove: { selection: [] } }, -14, /remove\.selection: name the attachments to remove/],
      [{ remove: { selection: [{ context: 'everywhere' }] } }, -14, /context/],
      [{ add: { file: [file({ fileName: '' })] } }, -14, /add\.file\[0\]\.fileName: a file name is required/],
      [{ add: { file: [file({ mimeType: 'not a type' })] } }, -14, /add\.file\[0\]\.mimeType: "not a type" is not a MIME type/],
      [{ add: { file: [file({ data: { value: '' } })] } }, -14, /add\.file\[0\]\.data\.value: Base64 content is required/],
      [{ add: { file: [file({ annotation: { page: 3, point: { x: 1, y: 1 } } })] } }, -14, /add\.file\[0\]\.annotation\.page: page 3 is out of range: the document has 2 pages/],
      [{ add: { file: [file({ annotation: { page: 1 } })] } }, -14, /point/],
      [{ add: { file: [file({ annotation: { page: 1, point: { x: 1, y: 1 }, icon: 'star' } })] } }, -14, /icon/],
      [{ add: { file: [file({ annotation: { page: 1, point: { x: 1, y: 1 }, color: 'red' } })] } }, -14, /color/],
      [{ extract: { folderNameTemplate: '../page%d' } }, -14, /extract\.folderNameTemplate: "\.\.\/page%d" cannot name a folder/],
      [{ add: { file: [file({ data: { source: 'uri', uri: 'http://example.com/x' } })] } }, -104, /add\.file\[0\]\.data\.source "uri" is not supported/],
    ];
    for (const [options, code, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ attachment: options }]);
      expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: code } });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(message);
    }
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize, mimeType: 'application/pdf' });
    expect(detachList(await download(uploaded.documentId))).toEqual([]);

    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\ngarbage garbage\n'), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, [{ attachment: { add: { file: [file()] } } }])).error).toMatchObject({ errorCode: -7 });
    expect(await info(server.rest, session.token, damaged.documentId)).toMatchObject({ fileSize: damaged.fileSize });
  });
});
