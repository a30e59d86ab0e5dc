import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFArray, PDFDocument, PDFName, PDFString, StandardFonts } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { writeZip } from '../../../src/engines/archive/index.js';
import { bearer } from '../../helpers/client.js';
import { pageText, pdfFacts } from '../../helpers/converter.js';
import { info } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxNew, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-merge-'));
let counter = 0;

/** A PDF whose page n says "<label>-n", optionally with bookmarks [title, page] at the root. */
async function labelledPdf(label: string, pages: number, options: { bookmarks?: [string, number][]; title?: string; xfa?: boolean } = {}): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) document.addPage([595, 842]).drawText(`${label}-${n}`, { x: 50, y: 700, size: 24, font });
  if (options.title) document.setTitle(options.title);
  const context = document.context;
  if (options.bookmarks?.length) {
    const rootRef = context.nextRef();
    const refs = options.bookmarks.map(() => context.nextRef());
    options.bookmarks.forEach(([title, page], i) => {
      const item = context.obj({ Title: PDFString.of(title), Parent: rootRef, Dest: [document.getPage(page - 1).ref, 'Fit'] });
      if (i > 0) item.set(PDFName.of('Prev'), refs[i - 1]!);
      if (i < refs.length - 1) item.set(PDFName.of('Next'), refs[i + 1]!);
      context.assign(refs[i]!, item);
    });
    context.assign(rootRef, context.obj({ Type: 'Outlines', First: refs[0]!, Last: refs[refs.length - 1]!, Count: refs.length }));
    document.catalog.set(PDFName.of('Outlines'), rootRef);
  }
  if (options.xfa) {
    const xfa = context.register(context.stream('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"/>'));
    const form = context.obj({ Fields: [], XFA: PDFArray.withContext(context) });
    (form.get(PDFName.of('XFA')) as PDFArray).push(PDFString.of('xdp'));
    (form.get(PDFName.of('XFA')) as PDFArray).push(xfa);
    document.catalog.set(PDFName.of('AcroForm'), context.register(form));
    document.catalog.set(PDFName.of('NeedsRendering'), context.obj(false));
  }
  return Buffer.from(await document.save());
}

function file(content: Buffer, extension = 'pdf'): string {
  const target = path.join(scratch, `f-${counter++}.${extension}`);
  writeFileSync(target, content);
  return target;
}

async function zipOf(members: [string, Buffer][]): Promise<Buffer> {
  const target = path.join(scratch, `z-${counter++}.zip`);
  await writeZip(
    members.map(([name, content]) => ({ name, file: file(content) })),
    createWriteStream(target),
  );
  return readFileSync(target);
}

const b64 = (content: Buffer | string) => Buffer.from(content).toString('base64');

/** qpdf's view of the outline: [title, target page, children]. */
type Bookmark = [string, number | null, Bookmark[]];
function bookmarks(pdf: string): Bookmark[] {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=outlines', pdf], { encoding: 'utf8' })) as { outlines: unknown[] };
  const walk = (items: unknown[]): Bookmark[] =>
    items.map((item) => {
      const { title, destpageposfrom1, kids } = item as { title: string; destpageposfrom1: number | null; kids: unknown[] };
      return [title, destpageposfrom1, walk(kids)];
    });
  return walk(json.outlines);
}

describe('toolbox merge', () => {
  const { server, session, upload, download } = useTestServer();

  const texts = (pdf: string) => Array.from({ length: pdfFacts(pdf).pages }, (_, i) => pageText(pdf, i + 1).trim());
  const merge = (options: Record<string, unknown>) => [{ merge: { mode: 'atTheEnd', page: 1, outlineName: '', removeStaticXFA: false, resetMetadata: false, sourceIsZip: false, ...options } }];

  it('inserts a Base64 PDF at the end, at the beginning, after and before a page', async () => {
    const insert = { format: 'pdf', source: 'value', value: b64(await labelledPdf('NEW', 2)) };
    const cases: [Record<string, unknown>, string[]][] = [
      [{ mode: 'atTheEnd' }, ['PAGE-1', 'PAGE-2', 'PAGE-3', 'NEW-1', 'NEW-2']],
      [{ mode: 'atTheBeginning' }, ['NEW-1', 'NEW-2', 'PAGE-1', 'PAGE-2', 'PAGE-3']],
      [{ mode: 'afterPage', page: 2 }, ['PAGE-1', 'PAGE-2', 'NEW-1', 'NEW-2', 'PAGE-3']],
      [{ mode: 'afterPage', page: 3 }, ['PAGE-1', 'PAGE-2', 'PAGE-3', 'NEW-1', 'NEW-2']],
      [{ mode: 'beforePage', page: 1 }, ['NEW-1', 'NEW-2', 'PAGE-1', 'PAGE-2', 'PAGE-3']],
      [{ mode: 'beforePage', page: 3 }, ['PAGE-1', 'PAGE-2', 'NEW-1', 'NEW-2', 'PAGE-3']],
    ];
    for (const [options, expected] of cases) {
      const base = await upload(await numberedPdf(3));
      await toolboxOk(server.rest, session.token, base.documentId, merge({ ...options, data: insert }));
      expect(texts(await download(base.documentId)), JSON.stringify(options)).toEqual(expected);
    }
  });

  it('inserts the PDFs of a Base64 ZIP in archive order, passing over folders', async () => {
    const zip = await zipOf([
      ['b.pdf', await labelledPdf('B', 1)],
      ['sub/a.pdf', await labelledPdf('A', 2)],
      ['__MACOSX/._b.pdf', Buffer.from('resource fork')],
    ]);
    const base = await upload(await numberedPdf(2));
    await toolboxOk(server.rest, session.token, base.documentId, merge({ mode: 'afterPage', page: 1, data: { format: 'zip', value: b64(zip) } }));
    expect(texts(await download(base.documentId))).toEqual(['PAGE-1', 'B-1', 'A-1', 'A-2', 'PAGE-2']);
  });

  it('inserts stored documents by id, opening a protected one with its remembered password', async () => {
    const first = await upload(await labelledPdf('FIRST', 1), 'first.pdf');
    const plain = file(await labelledPdf('SECRET', 2));
    execFileSync('qpdf', ['--encrypt', 'pw', 'owner', '256', '--', plain, `${plain}.enc`]);
    const locked = await upload(readFileSync(`${plain}.enc`), 'locked.pdf');
    const base = await upload(await numberedPdf(1));
    const ids = { format: 'id', value: b64(`${first.documentId};${locked.documentId}`) };

    const refused = await runToolbox(server.rest, session.token, base.documentId, merge({ data: ids }));
    expect(refused).toMatchObject({ status: 400, error: { errorCode: -5009 } });
    expect(refused.error?.errorMessage).toContain(locked.documentId);

    const remembered = await fetch(`${server.rest}/documents/${locked.documentId}/security/password`, {
      method: 'PUT',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ open: 'pw' }),
    });
    expect(remembered.status).toBe(200);
    await toolboxOk(server.rest, session.token, base.documentId, merge({ data: ids }));
    const result = await download(base.documentId);
    expect(texts(result)).toEqual(['PAGE-1', 'FIRST-1', 'SECRET-1', 'SECRET-2']);
    // qpdf --is-encrypted exits 2 for a plain file: the result carries no encryption of its sources.
    expect(() => execFileSync('qpdf', ['--is-encrypted', result])).toThrow();
  });

  it('fills a toolbox/new document and takes a ZIP document as the base with sourceIsZip', async () => {
    const created = await toolboxNew(server.rest, session.token, merge({ data: { format: 'pdf', value: b64(await labelledPdf('ONLY', 2)) } }), '?name=merged.pdf');
    expect(texts(await download(created.documentId))).toEqual(['ONLY-1', 'ONLY-2']);

    const zip = await upload(
      await zipOf([
        ['one.pdf', await labelledPdf('ONE', 1)],
        ['two.pdf', await labelledPdf('TWO', 2)],
      ]),
      'bundle.zip',
    );
    expect(zip.mimeType).toBe('application/zip');
    const merged = await toolboxOk(server.rest, session.token, zip.documentId, merge({ sourceIsZip: true, data: undefined }));
    expect(merged.mimeType).toBe('application/pdf');
    expect(texts(await download(zip.documentId))).toEqual(['ONE-1', 'TWO-1', 'TWO-2']);

    const withData = await upload(
      await zipOf([
        ['one.pdf', await labelledPdf('ONE', 1)],
        ['two.pdf', await labelledPdf('TWO', 1)],
      ]),
      'bundle2.zip',
    );
    await toolboxOk(server.rest, session.token, withData.documentId, merge({ sourceIsZip: true, mode: 'atTheBeginning', data: { value: b64(await labelledPdf('D', 1)) } }));
    expect(texts(await download(withData.documentId))).toEqual(['D-1', 'ONE-1', 'TWO-1']);
  });

  it("carries the inserted documents' bookmarks to the root, or under the outlineName paths", async () => {
    const insert = await labelledPdf('NEW', 3, {
      bookmarks: [
        ['New intro', 1],
        ['New end', 3],
      ],
    });
    const baseContent = await labelledPdf('BASE', 2, { bookmarks: [['Base start', 2]] });

    const plain = await upload(baseContent);
    await toolboxOk(server.rest, session.token, plain.documentId, merge({ data: { value: b64(insert) } }));
    expect(bookmarks(await download(plain.documentId))).toEqual([
      ['Base start', 2, []],
      ['New intro', 3, []],
      ['New end', 5, []],
    ]);

    const named = await upload(baseContent);
    await toolboxOk(server.rest, session.token, named.documentId, merge({ mode: 'atTheBeginning', outlineName: 'Docs/Base', data: { value: b64(insert), outlineName: 'Docs/Appendix' } }));
    const result = await download(named.documentId);
    execFileSync('qpdf', ['--check', result]); // exit 2 (a broken outline tree) would throw
    expect(bookmarks(result)).toEqual([
      [
        'Docs',
        1,
        [
          [
            'Appendix',
            1,
            [
              ['New intro', 1, []],
              ['New end', 3, []],
            ],
          ],
          ['Base', 4, [['Base start', 5, []]]],
        ],
      ],
    ]);
  });

  it('resets the metadata and removes static XFA on request (refusing an XFA document otherwise)', async () => {
    const base = await upload(await labelledPdf('BASE', 1, { title: 'Old title' }));
    await toolboxOk(server.rest, session.token, base.documentId, merge({ resetMetadata: true, data: { value: b64(await labelledPdf('NEW', 1)) } }));
    const reset = execFileSync('pdfinfo', [await download(base.documentId)], { encoding: 'utf8' });
    expect(reset).not.toContain('Old title');
    expect(reset).toMatch(/^Producer:\s+Quire$/m);

    const form = await upload(await labelledPdf('FORM', 1, { xfa: true }));
    const refused = await runToolbox(server.rest, session.token, form.documentId, merge({ data: { value: b64(await labelledPdf('NEW', 1)) } }));
    expect(refused).toMatchObject({ status: 400, error: { errorCode: -14 } });
    expect(refused.error?.errorMessage).toMatch(/toolbox\[0\]\.merge\.removeStaticXFA/);
    await toolboxOk(server.rest, session.token, form.documentId, merge({ removeStaticXFA: true, data: { value: b64(await labelledPdf('NEW', 1)) } }));
    const result = await download(form.documentId);
    const json = execFileSync('qpdf', ['--json=2', '--json-key=qpdf', result], { encoding: 'utf8' });
    expect(json).not.toContain('/XFA');
    expect(json).not.toContain('/NeedsRendering');
    expect(texts(result)).toEqual(['FORM-1', 'NEW-1']);
  });

  it('refuses bad options (-14, -104), unreadable sources (-7) and wrong passwords (-5008), leaving the document unchanged', async () => {
    const base = await upload(await numberedPdf(2));
    const good = { value: b64(await labelledPdf('NEW', 1)) };
    const cases: [unknown[], number, RegExp | undefined][] = [
      [merge({ mode: 'afterPage', page: 3, data: good }), -14, /toolbox\[0\]\.merge\.page: page 3 is out of range: the document has 2 pages/],
      [merge({ mode: 'sideways', data: good }), -14, undefined],
      [merge({ data: { format: 'tar', value: good.value } }), -14, undefined],
      [merge({}), -14, /toolbox\[0\]\.merge\.data: required/],
      [merge({ data: { value: b64('just text, not a PDF') } }), -14, /toolbox\[0\]\.merge\.data\.value: the Base64 content is not a PDF/],
      [merge({ data: { format: 'zip', value: b64(await zipOf([['note.txt', Buffer.from('hello')]])) } }), -14, /ZIP entry 1 \("note\.txt"\) is not a PDF/],
      [merge({ data: { source: 'uri', uri: 'http://example.com/a.pdf' } }), -104, /toolbox\[0\]\.merge\.data\.source "uri"/],
      [merge({ data: { format: 'id', value: b64('0123456789abcdef0123456789abcdef') } }), -70, undefined],
      [merge({ data: { value: b64('%PDF-1.4\nthis is not really a PDF\n%%EOF\n') } }), -7, /toolbox\[0\]\.merge\.data\.value/],
      [merge({ sourceIsZip: true, data: good }), -14, /sourceIsZip: the document is a pdf/],
    ];
    for (const [toolbox, code, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, base.documentId, toolbox);
      expect(outcome, JSON.stringify(toolbox).slice(0, 200)).toMatchObject({ status: expect.any(Number), error: { errorCode: code } });
      if (message) expect(outcome.error?.errorMessage).toMatch(message);
    }
    expect(await info(server.rest, session.token, base.documentId)).toMatchObject({ fileSize: base.fileSize, isFileLocked: false });
    expect(texts(await download(base.documentId))).toEqual(['PAGE-1', 'PAGE-2']);

    const damaged = await upload(Buffer.from('%PDF-1.4\ngarbage that is no PDF at all\n'), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, merge({ data: good }))).error).toMatchObject({ errorCode: -7 });

    const plain = file(await numberedPdf(1));
    execFileSync('qpdf', ['--encrypt', 'right', 'owner', '256', '--', plain, `${plain}.enc`]);
    const locked = await upload(readFileSync(`${plain}.enc`), 'locked.pdf');
    expect((await runToolbox(server.rest, session.token, locked.documentId, merge({ data: good }), { password: { open: 'x' } })).error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, merge({ data: good }), { password: { open: 'right' } });
    const result = await download(locked.documentId);
    expect(pdfFacts(result, 'right').pages).toBe(2);
  });
});
