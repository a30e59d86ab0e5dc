import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { downloadToFile } from '../../helpers/converter.js';
import { info } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-outline-'));

// ---- qpdf's view of the outline (poppler's pdfinfo does not list outlines) ----

type QValue = string | number | boolean | null | QValue[] | { [key: string]: QValue };
type QDict = Record<string, QValue>;

interface QOutline {
  title: string;
  dest: QValue;
  destpageposfrom1: number | null;
  object: string;
  kids: QOutline[];
}

interface Facts {
  outlines: QOutline[];
  objects: Record<string, { value?: QValue }>;
  pages: string[];
  root: QDict;
}

function facts(file: string): Facts {
  execFileSync('qpdf', ['--check', file]); // exit 2/3 (errors, warnings) throws
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=outlines', '--json-key=pages', '--json-key=qpdf', file], { encoding: 'utf8' }));
  const objects = json.qpdf[1];
  const rootRef = objects.trailer.value['/Root'] as string;
  return { outlines: json.outlines, objects, pages: json.pages.map((p: { object: string }) => p.object), root: objects[`obj:${rootRef}`].value };
}

const dict = (f: Facts, ref: QValue | undefined): QDict => (typeof ref === 'string' ? (f.objects[`obj:${ref}`]?.value as QDict) : (ref as QDict)) ?? {};
const titles = (items: QOutline[]): unknown[] => items.map((item) => (item.kids.length > 0 ? [item.title, titles(item.kids)] : item.title));

describe('toolbox outline', () => {
  const { server, session, upload, toolboxOk: ok, runToolbox: fails } = useTestServer();

  const factsOf = async (id: string) => facts(await downloadToFile(server.rest, session.token, id));

  it("adds the clients' example item: a bookmark to page 1", async () => {
    const doc = await upload(await numberedPdf(3));
    await ok(doc.documentId, [{ outline: { add: { item: [{ itemName: 'test', actions: [{ goTo: { destination: { fitPage: { page: 1 } } } }] }] } } }]);
    const f = await factsOf(doc.documentId);
    expect(f.outlines).toHaveLength(1);
    expect(f.outlines[0]).toMatchObject({ title: 'test', dest: [f.pages[0], '/Fit'], destpageposfrom1: 1 });
    expect(dict(f, f.root['/Outlines'])).toMatchObject({ '/Type': '/Outlines', '/Count': 1 });
  });

  it('builds a nested tree by path and position, with styles, counts and chained actions', async () => {
    const doc = await upload(await numberedPdf(3));
    await ok(doc.documentId, [
      {
        outline: {
          add: {
            item: [
              // as the clients send it: every scalar member with its default
              { itemName: 'Chapter 1', path: '', pathPosition: 'inplace', isOpen: true, bold: false, italic: false, color: '#000000', actions: [{ goTo: { destination: { fitPage: { page: 1 } } } }] },
              {
                itemName: 'Section 1.1',
                path: '/Chapter 1',
                actions: [{ goTo: { destination: { zoomPage: { page: 2, topOffset: 96, leftOffset: 0, metrics: 'px', zoom: 150 } } } }, { resolveURI: { uri: 'https://example.com/a b' } }],
              },
              { itemName: 'Chapter 0', path: '/Chapter 1', pathPosition: 'before', bold: true, italic: true, color: '#FF0000', actions: [{ executeNamed: { namedOperation: 'nextpage' } }] },
              {
                itemName: 'Chapter 2',
                path: '/Chapter 1',
                pathPosition: 'after',
                actions: [{ goTo: { destination: { fitRectangle: { page: 3, leftOffset: 10, bottomOffset: 20, rightOffset: 30, topOffset: 40, metrics: 'pt' } } } }],
              },
              { itemName: 'Section 2.1', path: '/Chapter 2', isOpen: false },
              { itemName: 'Section 2.1.1', path: '/Chapter 2/Section 2.1' },
            ],
          },
        },
      },
    ]);
    const f = await factsOf(doc.documentId);
    expect(titles(f.outlines)).toEqual(['Chapter 0', ['Chapter 1', ['Section 1.1']], ['Chapter 2', [['Section 2.1', ['Section 2.1.1']]]]]);

    const [chapter0, chapter1, chapter2] = f.outlines;
    expect(dict(f, chapter0!.object)).toMatchObject({ '/F': 3, '/C': [1, 0, 0] });
    expect(dict(f, dict(f, chapter0!.object)['/A'])).toMatchObject({ '/S': '/Named', '/N': '/NextPage' });

    // /Count: visible items at the root; open Chapter 1 shows one; closed items are negative
    expect(dict(f, f.root['/Outlines'])['/Count']).toBe(4); // Chapter 0, Chapter 1, Section 1.1, Chapter 2
    expect(dict(f, chapter1!.object)['/Count']).toBe(1);
    expect(dict(f, chapter2!.object)['/Count']).toBe(-1);
    expect(dict(f, chapter2!.kids[0]!.object)['/Count']).toBe(-1);

    // 96 px = 72 pt below the top of the 842 pt page, at 150 %; then the URI action
    const section = chapter1!.kids[0]!;
    expect(section.dest).toEqual([f.pages[1], '/XYZ', 0, 770, 1.5]);
    const action = dict(f, dict(f, section.object)['/A']);
    expect(dict(f, action['/Next'])).toMatchObject({ '/S': '/URI', '/URI': 'u:https://example.com/a%20b' });
    expect(chapter2!.dest).toEqual([f.pages[2], '/FitR', 10, 20, 565, 802]);
  });

  it('goes to named destinations that exist', async () => {
    const document = await PDFDocument.load(await numberedPdf(2));
    document.catalog.set(PDFName.of('Dests'), document.context.obj({ intro: [document.getPage(1).ref, PDFName.of('Fit')] }));
    const doc = await upload(Buffer.from(await document.save()));
    await ok(doc.documentId, [{ outline: { add: { item: [{ itemName: 'Intro', actions: [{ goTo: { destination: { goToNamed: { name: 'intro' } } } }] }] } } }]);
    const f = await factsOf(doc.documentId);
    expect(dict(f, dict(f, f.outlines[0]!.object)['/A'])).toMatchObject({ '/S': '/GoTo', '/D': '/intro' });
    expect(f.outlines[0]!.destpageposfrom1).toBe(2);
    const missing = await fails(doc.documentId, [{ outline: { add: { item: [{ itemName: 'x', actions: [{ goTo: { destination: { goToNamed: { name: 'nowhere' } } } }] }] } } }]);
    expect(missing.error).toMatchObject({ errorCode: -14 });
    expect(missing.error?.errorMessage).toMatch(/goToNamed\.name: the document has no destination named "nowhere"/);
  });

  it('removes an item with its children, leaving nothing behind, and clears the outline', async () => {
    const doc = await upload(await numberedPdf(2));
    await ok(doc.documentId, [{ outline: { add: { item: [{ itemName: 'A' }, { itemName: 'B' }, { itemName: 'B1', path: '/B' }, { itemName: 'a/b' }, { itemName: 'C' }] } } }]);
    await ok(doc.documentId, [{ outline: { remove: { item: [{ path: '/B' }, { path: '/a\\/b' }] } } }]);
    let file = await downloadToFile(server.rest, session.token, doc.documentId);
    let f = facts(file);
    expect(titles(f.outlines)).toEqual(['A', 'C']);
    expect(dict(f, f.outlines[1]!.object)['/Prev']).toBe(f.outlines[0]!.object);
    const rewritten = path.join(scratch, 'rewritten.pdf');
    execFileSync('qpdf', ['--object-streams=disable', file, rewritten]);
    const json = (pdf: string) => JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', pdf], { encoding: 'utf8' }));
    const titlesIn = (pdf: string) =>
      Object.values(json(pdf).qpdf[1] as Record<string, { value?: QDict }>)
        .map((o) => o.value?.['/Title'])
        .filter(Boolean)
        .sort();
    expect(titlesIn(file)).toEqual(titlesIn(rewritten)); // the removed items are not in the file

    await ok(doc.documentId, [{ outline: { clear: {} } }]);
    file = await downloadToFile(server.rest, session.token, doc.documentId);
    f = facts(file);
    expect(f.outlines).toEqual([]);
    expect(f.root['/Outlines']).toBeUndefined();
  });

  it('refuses JavaScript, program launches and unsafe addresses (-104), bad references (-14), and changes nothing', async () => {
    const doc = await upload(await numberedPdf(2));
    await ok(doc.documentId, [{ outline: { add: { item: [{ itemName: 'keep' }] } } }]);
    const before = await info(server.rest, session.token, doc.documentId);
    const item = (extra: Record<string, unknown>) => ({ outline: { add: { item: [{ itemName: 'x', ...extra }] } } });
    const cases: [unknown, number, RegExp][] = [
      [item({ actions: [{ executeJavaScript: { jsAction: 'app.alert(1)' } }] }), -104, /toolbox\[0\]\.outline\.add\.item\[0\]\.actions\[0\]\.executeJavaScript is not supported/],
      [item({ actions: [{ launchApplication: { applicationPath: { resourceURL: 'calc.exe' } } }] }), -104, /actions\[0\]\.launchApplication is not supported/],
      [item({ actions: [{ resolveURI: { uri: 'javascript:alert(1)' } }] }), -104, /resolveURI\.uri scheme "javascript" is not supported/],
      [item({ actions: [{ goTo3DView: { annotation: { page: 1 } } }] }), -104, /goTo3DView/],
      [item({ actions: [{ setTransition: { scaling: 50 } }] }), -104, /setTransition\.scaling/],
      [item({ actions: [{ goTo: { destination: { fitPage: { page: 3 } } } }] }), -14, /actions\[0\]\.goTo\.destination\.fitPage\.page: page 3 is out of range: the document has 2 pages/],
      [item({ actions: [{ goTo: { destination: { fitPage: { page: 1 }, fitWidth: { page: 1 } } } }] }), -14, /give exactly one of/],
      [item({ actions: [{}] }), -14, /actions\[0\]: give exactly one action/],
      [item({ actions: [{ setLayerState: { layerState: [{ state: 'OFF', referencedLayer: [{ name: 'Notes' }] }] } }] }), -14, /has no layer "Notes"/],
      [item({ path: '/missing' }), -14, /add\.item\[0\]\.path: the outline has no item "\/missing"/],
      [item({ pathPosition: 'below' }), -14, /pathPosition/],
      [item({ color: '#12345' }), -14, /color/],
      [{ outline: { add: { item: [{ itemName: '' }] } } }, -14, /itemName: required/],
      [{ outline: { remove: { item: [{ path: '/nope' }] } } }, -14, /remove\.item\[0\]\.path: the outline has no item "\/nope"/],
      [{ outline: {} }, -14, /give add, remove or clear/],
    ];
    for (const [operation, code, message] of cases) {
      const outcome = await fails(doc.documentId, [operation]);
      expect(outcome.error, JSON.stringify(operation)).toMatchObject({ errorCode: code });
      expect(outcome.error?.errorMessage, JSON.stringify(operation)).toMatch(message);
    }
    // an accepted step followed by a failing one: nothing is kept
    const chain = await fails(doc.documentId, [{ outline: { clear: {} } }, { outline: { remove: { item: [{ path: '/keep' }] } } }]);
    expect(chain.error).toMatchObject({ errorCode: -14 });
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ fileSize: before.fileSize, fileLastModified: before.fileLastModified });
    expect(titles((await factsOf(doc.documentId)).outlines)).toEqual(['keep']);
  });

  it('writes the other actions as ISO 32000 describes them', async () => {
    const document = await PDFDocument.load(await numberedPdf(1));
    const layer = document.context.register(document.context.obj({ Type: 'OCG', Name: 'Notes' }));
    document.catalog.set(PDFName.of('OCProperties'), document.context.obj({ OCGs: [layer], D: { ON: [layer] } }));
    const doc = await upload(Buffer.from(await document.save()));
    await ok(doc.documentId, [
      {
        outline: {
          add: {
            item: [
              {
                itemName: 'all',
                actions: [
                  { submitForm: { url: 'https://example.com/submit', xfdf: true, getMethod: true, field: [{ name: 'a' }] } },
                  { resetForm: { exclude: true, field: [{ name: 'b' }] } },
                  { setLayerState: { layerState: [{ state: 'Toggle', referencedLayer: [{ name: 'Notes' }] }], preserveRadioButtonRelation: false } },
                  { setTransition: { style: 'dissolve', duration: 2, direction: 'topToBottom', scaling: 100 } },
                  { importSchema: { file: { resourceURL: 'data.fdf', description: 'data' } } },
                  { playSound: { sound: Buffer.from([1, 2, 3, 4]).toString('base64'), samplingRate: 11025, volume: 50 } },
                ],
              },
            ],
          },
        },
      },
    ]);
    const f = await factsOf(doc.documentId);
    const chain: QDict[] = [];
    for (let action = dict(f, dict(f, f.outlines[0]!.object)['/A']); action['/S']; action = dict(f, action['/Next'])) chain.push(action);
    expect(chain.map((a) => a['/S'])).toEqual(['/SubmitForm', '/ResetForm', '/SetOCGState', '/Trans', '/ImportData', '/Sound']);
    expect(chain[0]).toMatchObject({ '/Flags': (1 << 3) | (1 << 5), '/Fields': ['u:a'] });
    expect(dict(f, chain[0]!['/F'])).toMatchObject({ '/FS': '/URL', '/F': 'u:https://example.com/submit' });
    expect(chain[1]).toMatchObject({ '/Flags': 1, '/Fields': ['u:b'] });
    expect(chain[2]).toMatchObject({ '/State': ['/Toggle', layer.toString()], '/PreserveRB': false });
    expect(dict(f, chain[3]!['/Trans'])).toMatchObject({ '/S': '/Dissolve', '/D': 2, '/Di': 270 });
    expect(dict(f, chain[4]!['/F'])).toMatchObject({ '/F': 'u:data.fdf', '/Desc': 'u:data' });
    expect(chain[5]).toMatchObject({ '/Volume': 0.5 });
    const sound = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=qpdf', `--json-object=${chain[5]!['/Sound']}`, await downloadToFile(server.rest, session.token, doc.documentId)], { encoding: 'utf8' }),
    );
    expect(Object.values(sound.qpdf[1] as Record<string, { stream?: { dict: QDict } }>)[0]!.stream!.dict).toMatchObject({ '/Type': '/Sound', '/R': 11025 });
  });

  it('needs the right password (-5008) and a readable PDF (-7)', async () => {
    const plain = path.join(scratch, 'locked-src.pdf');
    writeFileSync(plain, await numberedPdf(1));
    execFileSync('qpdf', ['--encrypt', 'u', 'o', '256', '--', plain, `${plain}.enc`]);
    const locked = await upload(readFileSync(`${plain}.enc`), 'locked.pdf');
    const add = { outline: { add: { item: [{ itemName: 'x' }] } } };
    expect((await fails(locked.documentId, [add], { password: { open: 'x' } })).error).toMatchObject({ errorCode: -5008 });
    await ok(locked.documentId, [add], { password: { open: 'u' } });
    const file = await downloadToFile(server.rest, session.token, locked.documentId);
    const json = JSON.parse(execFileSync('qpdf', ['--password=u', '--json=2', '--json-key=outlines', '--json-key=encrypt', file], { encoding: 'utf8' }));
    expect(json.encrypt.encrypted).toBe(true);
    expect(json.outlines[0].title).toBe('x');

    const damaged = await upload(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('garbage '.repeat(50))]), 'damaged.pdf');
    expect((await fails(damaged.documentId, [add])).error).toMatchObject({ errorCode: -7 });
  });
});
