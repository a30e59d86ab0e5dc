import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pageText, pdfFacts } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { detachList, detachSave } from '../../helpers/pdf-tools.js';
import { numberedPdf, runToolbox, toolboxNew, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-portfolio-'));
const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64');

/** Every object of the file (qpdf --json), the catalog, and a resolver. */
function objects(file: string): { all: Record<string, any>; catalog: any; resolve: (value: any) => any; attachments: Record<string, any> } {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', '--json-key=attachments', '--json-stream-data=none', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  const all = json.qpdf[1];
  const resolve = (value: any): any => (typeof value === 'string' && / R$/.test(value) ? (all[`obj:${value}`]?.value ?? all[`obj:${value}`]?.stream?.dict) : value);
  return { all, catalog: resolve(all.trailer.value['/Root']), resolve, attachments: json.attachments };
}

/** The folder tree under /Collection /Folders as "path → ID", from qpdf's objects. */
function folderTree(file: string): Record<string, number> {
  const { catalog, resolve } = objects(file);
  const found: Record<string, number> = {};
  const walk = (folder: any, prefix: string): void => {
    for (let child = resolve(folder['/Child']); child; child = resolve(child['/Next'])) {
      const name = `${prefix}/${child['/Name'].slice(2)}`;
      found[name] = child['/ID'];
      walk(child, name);
    }
  };
  const root = resolve(resolve(catalog['/Collection'])['/Folders']);
  if (root) {
    found['/'] = root['/ID'];
    walk(root, '');
  }
  return found;
}

/** A PDF text string from qpdf's JSON: "u:text", or "b:hex" in PDFDocEncoding (Latin-1 for these tests) or UTF-16BE. */
function pdfText(value: string): string {
  if (value.startsWith('u:')) return value.slice(2);
  const bytes = Buffer.from(value.slice(2), 'hex');
  return bytes[0] === 0xfe && bytes[1] === 0xff ? Buffer.from(bytes.subarray(2)).swap16().toString('utf16le') : bytes.toString('latin1');
}

function zipEntries(file: string): string[] {
  return execFileSync('zipinfo', ['-1', file], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

function unzipEntry(file: string, entry: string): Buffer {
  return execFileSync('unzip', ['-p', file, entry.replace(/[[\]*?]/g, '\\$&')]);
}

describe('toolbox portfolio', () => {
  const { server, session, download } = useTestServer();
  let lorem: Buffer;

  beforeAll(async () => {
    lorem = await numberedPdf(2);
  });

  it('builds a portfolio with toolbox/new?name=portfolio (the TS client test): a cover page, the file, a /Collection', async () => {
    const created = await toolboxNew(
      server.rest,
      session.token,
      [{ portfolio: { add: { file: [{ path: '/', fileName: 'lorem-ipsum.pdf', data: { value: b64(lorem) } }] } } }],
      '?name=portfolio&history=false',
    );
    expect(created).toMatchObject({ fileName: 'portfolio', mimeType: 'application/pdf' });
    expect((created as unknown as { metadata: { information: unknown } }).metadata.information).toMatchObject({ portfolio: true, attachments: 1, pages: 1 });
    const file = await download(created.documentId);
    const facts = pdfFacts(file);
    expect(facts.pages).toBe(1);
    expect(facts.width).toBe(595);
    expect(facts.height).toBe(842);
    expect(pageText(file, 1)).toContain('This PDF is a portfolio');
    expect(detachList(file)).toEqual(['lorem-ipsum.pdf']);
    expect(detachSave(file, 'lorem-ipsum.pdf').equals(lorem)).toBe(true);
    const { catalog, resolve, attachments } = objects(file);
    const collection = resolve(catalog['/Collection']);
    expect(collection).toMatchObject({ '/Type': '/Collection', '/View': '/D' });
    expect(resolve(collection['/Schema'])['/FileName']).toMatchObject({ '/Subtype': '/F' });
    expect(attachments['lorem-ipsum.pdf'].streams['/F'].mimetype).toBe('application/pdf');
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/PDF version:\s+1\.7/);
    execFileSync('qpdf', ['--check', file]);
  });

  it('adds folders and files into folders, sets the initial document and sorts; extract keeps the folder structure', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'cover.pdf');
    await toolboxOk(server.rest, session.token, uploaded.documentId, [
      {
        portfolio: {
          add: {
            folder: [{ path: '/empty' }, { path: '/reports/2024' }],
            file: [
              { path: '/', fileName: 'readme.txt', mimeType: 'text/plain', creator: 'Erika', data: { value: b64('read me') } },
              { path: '/reports/2024', fileName: 'q1.pdf', data: { value: b64(lorem) } },
              { path: 'reports/2024/', fileName: 'q2.txt', data: { value: b64('second quarter') } },
              { path: '/reports', fileName: 'summary.txt', data: { value: b64('summary') } },
            ],
            initialDocumentPath: '/reports/2024',
            initialFileName: 'q1.pdf',
          },
        },
      },
      {
        portfolio: {
          sort: {
            namedCriteria: [
              { key: 'size', ascending: false, displayName: 'Größe' },
              { key: 'fileName', ascending: true, displayName: '' },
            ],
          },
        },
      },
    ]);
    const file = await download(uploaded.documentId);
    expect(pdfFacts(file).pages).toBe(2);
    expect(pageText(file, 1)).toContain('PAGE-1');
    expect(detachList(file).sort()).toEqual(['q1.pdf', 'q2.txt', 'readme.txt', 'summary.txt']);
    const folders = folderTree(file);
    expect(Object.keys(folders).sort()).toEqual(['/', '/empty', '/reports', '/reports/2024']);
    expect(new Set(Object.values(folders)).size).toBe(4);
    const { catalog, resolve, attachments } = objects(file);
    expect(Object.keys(attachments).sort()).toEqual([`<${folders['/reports']}>summary.txt`, `<${folders['/reports/2024']}>q1.pdf`, `<${folders['/reports/2024']}>q2.txt`, 'readme.txt'].sort());
    const collection = resolve(catalog['/Collection']);
    expect(collection['/D']).toBe(`u:<${folders['/reports/2024']}>q1.pdf`);
    const schema = resolve(collection['/Schema']);
    expect(collection['/Sort']).toMatchObject({ '/A': [false, true] });
    const [sizeKey, nameKey] = collection['/Sort']['/S'] as string[];
    expect(schema[sizeKey!]).toMatchObject({ '/Subtype': '/Size' });
    expect(pdfText(schema[sizeKey!]['/N'])).toBe('Größe');
    expect(schema[nameKey!]).toMatchObject({ '/Subtype': '/F' });
    expect(schema['/Creator']).toMatchObject({ '/Subtype': '/S' });
    expect(resolve(catalog['/Extensions'])['/ADBE']).toMatchObject({ '/ExtensionLevel': 3 });

    // Extract everything: the ZIP mirrors the folders.
    const copy = await uploadFile(server.rest, session.token, readFileSync(file), 'copy.pdf');
    const zipped = await toolboxOk(server.rest, session.token, copy.documentId, [{ portfolio: { extract: { selection: [], singleFileAsZip: true } } }]);
    expect(zipped).toMatchObject({ mimeType: 'application/zip' });
    const zip = await download(copy.documentId, 'zip');
    expect(zipEntries(zip)).toEqual(['readme.txt', 'reports/2024/q1.pdf', 'reports/2024/q2.txt', 'reports/summary.txt']);
    expect(unzipEntry(zip, 'reports/2024/q1.pdf').equals(lorem)).toBe(true);

    // A folder selection takes its subfolders too; one file with singleFileAsZip false is the file itself.
    const part = await uploadFile(server.rest, session.token, readFileSync(file), 'part.pdf');
    await toolboxOk(server.rest, session.token, part.documentId, [{ portfolio: { extract: { selection: [{ path: '/reports', fileName: '' }] } } }]);
    expect(zipEntries(await download(part.documentId, 'zip'))).toEqual(['reports/2024/q1.pdf', 'reports/2024/q2.txt', 'reports/summary.txt']);
    const one = await uploadFile(server.rest, session.token, readFileSync(file), 'one.pdf');
    const single = await toolboxOk(server.rest, session.token, one.documentId, [{ portfolio: { extract: { selection: [{ path: '/reports/2024', fileName: 'q1.pdf' }], singleFileAsZip: false } } }]);
    expect(single).toMatchObject({ mimeType: 'application/pdf' });
    expect(readFileSync(await download(one.documentId)).equals(lorem)).toBe(true);
  });

  it('removes files and folders, replaces a file of the same name and moves the initial document', async () => {
    const created = await toolboxNew(server.rest, session.token, [
      {
        portfolio: {
          add: {
            file: [
              { path: '/a', fileName: 'one.txt', data: { value: b64('1') } },
              { path: '/a/b', fileName: 'two.txt', data: { value: b64('2') } },
              { path: '/c', fileName: 'three.txt', data: { value: b64('3') } },
              { path: '/', fileName: 'four.txt', data: { value: b64('4') } },
            ],
            initialDocumentPath: '/a',
            initialFileName: 'one.txt',
          },
        },
      },
    ]);
    await toolboxOk(server.rest, session.token, created.documentId, [
      {
        portfolio: {
          remove: {
            selection: [
              { path: '/a', fileName: '' },
              { path: '/', fileName: 'four.txt' },
            ],
            initialDocumentPath: '',
            initialFileName: '',
          },
        },
      },
      { portfolio: { add: { file: [{ path: '/c', fileName: 'three.txt', data: { value: b64('drei') } }], initialDocumentPath: '/c', initialFileName: 'three.txt' } } },
    ]);
    const file = await download(created.documentId);
    expect(pdfFacts(file).pages).toBe(1);
    expect(detachList(file)).toEqual(['three.txt']);
    expect(detachSave(file, 'three.txt').toString()).toBe('drei');
    const folders = folderTree(file);
    expect(Object.keys(folders).sort()).toEqual(['/', '/c']);
    const { catalog, resolve } = objects(file);
    expect(resolve(catalog['/Collection'])['/D']).toBe(`u:<${folders['/c']}>three.txt`);
  });

  it('refuses bad options with -14 (-104 for data by URI), wrong passwords with -5008, damaged PDFs with -7, and changes nothing', async () => {
    const plainPdf = await numberedPdf(1);
    const plain = await uploadFile(server.rest, session.token, plainPdf, 'plain.pdf');
    const portfolio = await toolboxNew(server.rest, session.token, [{ portfolio: { add: { file: [{ path: '/x', fileName: 'f.txt', data: { value: b64('f') } }] } } }]);
    const cases: [string, unknown, number, RegExp][] = [
      [plain.documentId, {}, -14, /toolbox\[0\]\.portfolio: give add, remove, sort or extract/],
      [plain.documentId, { sort: { namedCriteria: [{ key: 'fileName' }] } }, -14, /toolbox\[0\]\.portfolio\.sort: the document is not a portfolio/],
      [portfolio.documentId, { sort: { namedCriteria: [{ key: 'colour' }] } }, -14, /key/],
      [
        portfolio.documentId,
        { remove: { selection: [{ path: '/x', fileName: 'missing.txt' }] } },
        -14,
        /toolbox\[0\]\.portfolio\.remove\.selection\[0\]: the portfolio has no file "missing\.txt" in "\/x"/,
      ],
      [portfolio.documentId, { remove: { selection: [{ path: '/nowhere', fileName: '' }] } }, -14, /remove\.selection\[0\]: the portfolio has no folder "\/nowhere"/],
      [portfolio.documentId, { remove: { selection: [] } }, -14, /remove\.selection: name the files or folders to remove/],
      [portfolio.documentId, { extract: { selection: [{ path: '/x', fileName: 'nope.txt' }] } }, -14, /extract\.selection\[0\]: the portfolio has no file/],
      [portfolio.documentId, { add: { file: [{ path: '/../etc', fileName: 'f.txt', data: { value: b64('x') } }] } }, -14, /add\.file\[0\]\.path: "\/\.\.\/etc" has a "\.\." segment/],
      [portfolio.documentId, { add: { file: [{ path: '/', fileName: '', data: { value: b64('x') } }] } }, -14, /add\.file\[0\]\.fileName: a file name is required/],
      [portfolio.documentId, { add: { initialDocumentPath: '/x', initialFileName: 'absent.txt' } }, -14, /toolbox\[0\]\.portfolio\.add\.initialFileName: the portfolio has no file "absent\.txt"/],
      [portfolio.documentId, { add: { file: [{ path: '/', fileName: 'u.txt', data: { source: 'uri', uri: 'http://example.com/u' } }] } }, -104, /add\.file\[0\]\.data\.source "uri" is not supported/],
    ];
    for (const [documentId, options, code, message] of cases) {
      const before = await info(server.rest, session.token, documentId);
      const outcome = await runToolbox(server.rest, session.token, documentId, [{ portfolio: options }]);
      expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: code } });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(message);
      expect(await info(server.rest, session.token, documentId)).toMatchObject({ fileSize: before.fileSize, fileLastModified: before.fileLastModified });
    }

    const unencrypted = path.join(scratch, 'unencrypted.pdf');
    writeFileSync(unencrypted, plainPdf);
    execFileSync('qpdf', ['--encrypt', 'geheim', 'owner-pw', '256', '--', unencrypted, `${unencrypted}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${unencrypted}.enc`), 'locked.pdf');
    const step = { portfolio: { add: { file: [{ path: '/', fileName: 'f.txt', data: { value: b64('f') } }] } } };
    expect((await runToolbox(server.rest, session.token, locked.documentId, [step], { password: { open: 'wrong' } })).error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [step], { password: { open: 'geheim' } });
    const lockedFile = await download(locked.documentId);
    expect(() => pdfFacts(lockedFile)).toThrow();
    expect(pdfFacts(lockedFile, 'geheim').pages).toBe(1);

    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\n1 0 obj garbage\n'), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, [step])).error).toMatchObject({ errorCode: -7 });
    expect(await info(server.rest, session.token, damaged.documentId)).toMatchObject({ fileSize: damaged.fileSize });
  });
});
