import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pageText, pdfFacts } from '../../helpers/converter.js';
import { info } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';
import { wordBoxes } from '../../helpers/pdf-tools.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-options-'));
const MM = 72 / 25.4;

type Json = Record<string, unknown>;

/** The PDF as qpdf (an independent reader) sees it: objects by "obj:n 0 R", and the page object ids. */
function qpdf(file: string): { objects: Record<string, { value?: Json; stream?: { dict: Json } }>; pages: string[] } {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', file], { encoding: 'utf8', maxBuffer: 64 << 20 })) as {
    qpdf: [unknown, Record<string, { value?: Json; stream?: { dict: Json } }>];
    pages: { object: string }[];
  };
  return { objects: json.qpdf[1], pages: json.pages.map((p) => p.object) };
}

function resolve(file: ReturnType<typeof qpdf>, value: unknown): Json {
  if (typeof value === 'string' && / R$/.test(value)) {
    const object = file.objects[`obj:${value}`]!;
    return object.value ?? object.stream!.dict;
  }
  return value as Json;
}

function catalog(file: string): { doc: ReturnType<typeof qpdf>; root: Json } {
  const doc = qpdf(file);
  const trailer = doc.objects.trailer!.value!;
  return { doc, root: resolve(doc, trailer['/Root']) };
}

function page(file: string, n: number): Json {
  const doc = qpdf(file);
  return resolve(doc, doc.pages[n - 1]);
}

/** Form XObjects marked as Acrobat marks backgrounds, headers and footers (/PieceInfo /ADBE_CompoundType /Private). */
function artifactForms(file: string, kind: string): Json[] {
  return Object.values(qpdf(file).objects)
    .map((o) => o.stream?.dict)
    .filter((d): d is Json => (d?.['/PieceInfo'] as { '/ADBE_CompoundType'?: { '/Private'?: string } } | undefined)?.['/ADBE_CompoundType']?.['/Private'] === kind);
}

/** pdfinfo -box for page n: { MediaBox: [x1, y1, x2, y2], ... } */
function boxes(file: string, n: number): Record<string, number[]> {
  const text = execFileSync('pdfinfo', ['-box', '-f', String(n), '-l', String(n), file], { encoding: 'utf8' });
  return Object.fromEntries(
    [...text.matchAll(/^Page\s+\d+\s+(\w+Box):\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)/gm)].map((m) => [m[1]!, [Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])]]),
  );
}

/** Page n rendered by poppler at 72 dpi (1 pixel = 1 pt), as a pixel reader. */
function render(file: string, n: number): (x: number, y: number) => [number, number, number] {
  const out = path.join(scratch, `render-${Date.now()}-${Math.random().toString(16).slice(2)}`);
  execFileSync('pdftoppm', ['-r', '72', '-f', String(n), '-l', String(n), '-singlefile', file, out]);
  const ppm = readFileSync(`${out}.ppm`);
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.toString('latin1', 0, 40))!;
  return (x, y) => {
    const at = header[0].length + 3 * (Math.round(y) * Number(header[1]) + Math.round(x));
    return [ppm[at]!, ppm[at + 1]!, ppm[at + 2]!];
  };
}

function pixel(file: string, n: number, x: number, y: number): [number, number, number] {
  return render(file, n)(x, y);
}

describe('toolbox options', () => {
  const { server, session, upload, download } = useTestServer();

  const run = (id: string, options: unknown) => toolboxOk(server.rest, session.token, id, [{ options }]);

  it('sets how the document opens: page mode, layout, initial page and zoom, language, viewer preferences', async () => {
    const doc = await upload(await numberedPdf(4));
    await run(doc.documentId, {
      initialPage: 2,
      initialView: 'outlines',
      pageLayout: 'twoPagesContinous',
      magnification: 'zoom',
      magnificationZoom: 150,
      language: 'de-DE',
      viewerPreferences: {
        hideToolbar: true,
        hideMenuBar: true,
        centerWindow: true,
        displayDocTitle: true,
        duplex: 'duplexFlipLongEdge',
        nonFullScreenPageMode: 'thumbnails',
        numCopies: 3,
        printArea: 'media_box',
        viewClip: 'art_box',
        printPageRange: '1-2,4',
        printScaling: 'noPrintScaling',
        printTraySelection: 'byPDFSize',
        textDirection: 'rightToLeft',
      },
    });
    const file = await download(doc.documentId);
    const { doc: parsed, root } = catalog(file);
    expect(root).toMatchObject({ '/PageMode': '/UseOutlines', '/PageLayout': '/TwoColumnLeft', '/Lang': 'u:de-DE' });
    expect(root['/OpenAction']).toEqual([parsed.pages[1], '/XYZ', null, null, 1.5]);
    expect(resolve(parsed, root['/ViewerPreferences'])).toMatchObject({
      '/HideToolbar': true,
      '/HideMenubar': true,
      '/HideWindowUI': false,
      '/CenterWindow': true,
      '/DisplayDocTitle': true,
      '/Duplex': '/DuplexFlipLongEdge',
      '/NonFullScreenPageMode': '/UseThumbs',
      '/NumCopies': 3,
      '/PrintArea': '/MediaBox',
      '/PrintClip': '/CropBox',
      '/ViewClip': '/ArtBox',
      '/PrintPageRange': [1, 2, 4, 4],
      '/PrintScaling': '/None',
      '/PickTrayByPDFSize': true,
      '/Direction': '/R2L',
    });
    expect(pdfFacts(file).pages).toBe(4);

    // The documented defaults: single page, no panel, fit width on page 1.
    await run(doc.documentId, { initialPage: 1, initialView: 'none', magnification: 'fitWidth', pageLayout: 'singlePage', language: '' });
    const again = catalog(await download(doc.documentId));
    expect(again.root).toMatchObject({ '/PageMode': '/UseNone', '/PageLayout': '/SinglePage', '/Lang': 'u:de-DE' });
    expect(again.root['/OpenAction']).toEqual([again.doc.pages[0], '/FitH', null]);
  });

  it('resizes and removes page boxes (pdfinfo -box), refusing to remove the MediaBox', async () => {
    const doc = await upload(await numberedPdf(2));
    await run(doc.documentId, {
      boxes: {
        resize: [
          { boxesResize: { box: 'crop_box', pages: '1', dimensions: { x: 10, y: 20, width: 100, height: 150, metrics: 'mm' } } },
          { boxesResize: { box: 'trim_box', pages: '*', dimensions: { x: 36, y: 36, width: 523, height: 770, metrics: 'pt' } } },
          { boxesResize: { box: 'art_box', pages: '2', dimensions: { x: 1, y: 1, width: 2, height: 3, metrics: 'in' } } },
        ],
      },
    });
    let file = await download(doc.documentId);
    const crop = boxes(file, 1).CropBox!;
    [10 * MM, 20 * MM, 110 * MM, 170 * MM].forEach((expected, i) => expect(crop[i]).toBeCloseTo(expected, 1));
    expect(boxes(file, 1).TrimBox).toEqual([36, 36, 559, 806]);
    expect(boxes(file, 2)).toMatchObject({ CropBox: [0, 0, 595, 842], TrimBox: [36, 36, 559, 806], ArtBox: [72, 72, 216, 288] });
    expect(pdfFacts(file).width).toBe(Math.round(100 * MM));

    await run(doc.documentId, { boxes: { remove: [{ boxesRemove: { box: 'crop_box', pages: '1' } }, { boxesRemove: { box: 'trim_box', pages: '*' } }] } });
    file = await download(doc.documentId);
    expect(boxes(file, 1)).toMatchObject({ CropBox: [0, 0, 595, 842], TrimBox: [0, 0, 595, 842] });
    expect(page(file, 1)['/CropBox']).toBeUndefined();
    expect(page(file, 2)['/TrimBox']).toBeUndefined();
    expect(page(file, 2)['/ArtBox']).toEqual([72, 72, 216, 288]);

    const media = await runToolbox(server.rest, session.token, doc.documentId, [{ options: { boxes: { remove: [{ boxesRemove: { box: 'media_box' } }] } } }]);
    expect(media.error).toMatchObject({ errorCode: -104 });
    expect(media.error?.errorMessage).toMatch(/toolbox\[0\]\.options\.boxes\.remove\[0\]\.boxesRemove\.box cannot be honoured: the MediaBox/);
    const empty = await runToolbox(server.rest, session.token, doc.documentId, [{ options: { boxes: { resize: [{ boxesResize: { dimensions: { width: 0, height: 10 } } }] } } }]);
    expect(empty.error).toMatchObject({ errorCode: -14 });
    expect(empty.error?.errorMessage).toMatch(/toolbox\[0\]\.options\.boxes\.resize\[0\]\.boxesResize\.dimensions: width and height/);
  });

  it('adds and removes page transitions (/Trans, /Dur)', async () => {
    const doc = await upload(await numberedPdf(3));
    await run(doc.documentId, {
      pageTransitions: {
        add: [
          { pageTransition: { pages: '1-2', style: 'wipe', direction: 'rightToLeft', duration: 2, autoScroll: true, autoScrollTime: 5 } },
          { pageTransition: { pages: '3', style: 'fly', direction: 'topToBottom', flyScale: 0.5, flyAreaOpaque: true } },
          { pageTransition: { pages: '2', style: 'dissolve', direction: 'leftToRight', duration: 0.5 } },
        ],
      },
    });
    let file = await download(doc.documentId);
    expect(page(file, 1)).toMatchObject({ '/Trans': { '/Type': '/Trans', '/S': '/Wipe', '/D': 2, '/Di': 180 }, '/Dur': 5 });
    expect(page(file, 3)).toMatchObject({ '/Trans': { '/S': '/Fly', '/D': 1, '/Di': 270, '/SS': 0.5, '/B': true } });
    expect(page(file, 3)['/Dur']).toBeUndefined();
    // Dissolve moves in no direction: none is written.
    expect(page(file, 2)['/Trans']).toEqual({ '/Type': '/Trans', '/S': '/Dissolve', '/D': 0.5 });

    await run(doc.documentId, { pageTransitions: { remove: [{ transitionSelection: { pages: '1,3' } }] } });
    file = await download(doc.documentId);
    expect(page(file, 1)['/Trans']).toBeUndefined();
    expect(page(file, 1)['/Dur']).toBeUndefined();
    expect(page(file, 3)['/Trans']).toBeUndefined();
    expect(page(file, 2)['/Trans']).toMatchObject({ '/S': '/Dissolve' });
  });

  it('puts a colour background under the content, refuses a second one unless replaceExisting, and removes it', async () => {
    const doc = await upload(await numberedPdf(2));
    await run(doc.documentId, { background: { add: { colorBackground: { color: '#FFFF00', settings: { pages: { pageInterval: { pages: '1' } } } } } } });
    let file = await download(doc.documentId);
    expect(pixel(file, 1, 5, 5)).toEqual([255, 255, 0]);
    expect(pixel(file, 2, 5, 5)).toEqual([255, 255, 255]);
    // Under the content: the text is still drawn (black) on top of it.
    const word = wordBoxes(file, 1).find((w) => w.text === 'PAGE-1')!;
    expect(word).toBeDefined();
    const page1 = render(file, 1);
    const dark = (() => {
      for (let x = Math.floor(word.xMin); x < word.xMax; x++) for (let y = Math.floor(word.yMin); y < word.yMax; y++) if (page1(x, y)[2] < 60 && page1(x, y)[0] < 60) return true;
      return false;
    })();
    expect(dark).toBe(true);
    expect(artifactForms(file, '/Background')).toHaveLength(1);

    const refused = await runToolbox(server.rest, session.token, doc.documentId, [{ options: { background: { add: { colorBackground: { color: '#00FF00' } } } } }]);
    expect(refused.error).toMatchObject({ errorCode: -14 });
    expect(refused.error?.errorMessage).toMatch(/toolbox\[0\]\.options\.background\.add\.colorBackground\.settings\.replaceExisting: page 1 has a background already/);

    await run(doc.documentId, { background: { add: { colorBackground: { color: '#00FF00', settings: { replaceExisting: true, opacity: 50, scale: 50, position: { position: 'top_left' } } } } } });
    file = await download(doc.documentId);
    // Replaced on every page: half-transparent green over white, covering the top-left quarter only.
    const [r, g, b] = pixel(file, 1, 5, 5);
    expect(g).toBe(255);
    expect(Math.abs(r - 128)).toBeLessThan(5);
    expect(Math.abs(b - 128)).toBeLessThan(5);
    expect(pixel(file, 1, 590, 837)).toEqual([255, 255, 255]);
    expect(pixel(file, 2, 290, 410)).not.toEqual([255, 255, 255]);
    expect(artifactForms(file, '/Background')).toHaveLength(1);

    await run(doc.documentId, { background: { remove: { backgroundSelection: {} } } });
    file = await download(doc.documentId);
    expect(pixel(file, 1, 5, 5)).toEqual([255, 255, 255]);
    expect(artifactForms(file, '/Background')).toHaveLength(0);
    expect(pageText(file, 1)).toContain('PAGE-1');
  });

  it('adds image backgrounds on even pages, and shows layers on screen or in print only through optional content', async () => {
    const png = await sharp({ create: { width: 16, height: 8, channels: 3, background: { r: 255, g: 0, b: 0 } } })
      .png()
      .toBuffer();
    const doc = await upload(await numberedPdf(4));
    await run(doc.documentId, {
      background: { add: { imageBackground: { image: { value: png.toString('base64') }, settings: { pages: { pageInterval: { odd: false } }, visibility: { onScreen: true, onPrint: false } } } } },
    });
    let file = await download(doc.documentId);
    const list = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((l) => l.trim().split(/\s+/));
    expect(list.map((r) => [r[0], r[3], r[4]])).toEqual([
      ['2', '16', '8'],
      ['4', '16', '8'],
    ]);
    // Relative to the page (fitted into it at scale 100): red across the page's width, around its middle.
    const page2 = render(file, 2);
    expect(page2(300, 421)).toEqual([255, 0, 0]);
    expect(page2(300, 100)).toEqual([255, 255, 255]);
    expect(pixel(file, 1, 300, 421)).toEqual([255, 255, 255]);
    let { doc: parsed, root } = catalog(file);
    let properties = resolve(parsed, root['/OCProperties']);
    let [group] = properties['/OCGs'] as string[];
    expect(resolve(parsed, group)).toMatchObject({ '/Type': '/OCG', '/Usage': { '/View': { '/ViewState': '/ON' }, '/Print': { '/PrintState': '/OFF' } } });
    expect(resolve(parsed, properties['/D'])).toMatchObject({
      '/AS': [
        { '/Event': '/View', '/OCGs': [group] },
        { '/Event': '/Print', '/OCGs': [group] },
      ],
    });
    expect(resolve(parsed, properties['/D'])['/OFF']).toBeUndefined();

    // Hidden on screen: the group starts OFF, and poppler does not draw it.
    const other = await upload(await numberedPdf(1));
    await run(other.documentId, { background: { add: { colorBackground: { color: '#FF0000', settings: { visibility: { onScreen: false } } } } } });
    file = await download(other.documentId);
    expect(pixel(file, 1, 5, 5)).toEqual([255, 255, 255]);
    ({ doc: parsed, root } = catalog(file));
    properties = resolve(parsed, root['/OCProperties']);
    [group] = properties['/OCGs'] as string[];
    expect(resolve(parsed, properties['/D'])).toMatchObject({ '/OFF': [group] });
    expect(resolve(parsed, group)).toMatchObject({ '/Usage': { '/View': { '/ViewState': '/OFF' }, '/Print': { '/PrintState': '/ON' } } });

    // Removing the background removes its layer from the configuration, too.
    await run(other.documentId, { background: { remove: { backgroundSelection: {} } } });
    ({ doc: parsed, root } = catalog(await download(other.documentId)));
    properties = resolve(parsed, root['/OCProperties']);
    expect(properties['/OCGs']).toEqual([]);
    expect(resolve(parsed, properties['/D'])).toMatchObject({ '/OFF': [], '/AS': [] });
  });

  it('adds headers and footers with page numbers and dates, refuses a second set unless replaceExisting, and removes them', async () => {
    const doc = await upload(await numberedPdf(3));
    await run(doc.documentId, {
      headerFooter: {
        add: {
          headerFooterContent: {
            header: { center: '<<Page 1 of n>>', left: 'Left', right: 'Right' },
            footer: { left: 'Printed <<dd.mm.yyyy>>', right: '<<1>>' },
            date: { day: 24, month: 12, year: 2024 },
            firstPageNumber: 5,
            margin: { top: 10, bottom: 15, left: 20, right: 20, metrics: 'mm' },
            font: { size: 12, color: '#0000FF' },
            pages: { pageInterval: { even: false } },
          },
        },
      },
    });
    let file = await download(doc.documentId);
    expect(pageText(file, 1)).toMatch(/Page 5 of 3/);
    expect(pageText(file, 3)).toMatch(/Page 7 of 3/);
    expect(pageText(file, 1)).toContain('Printed 24.12.2024');
    expect(pageText(file, 2)).not.toMatch(/Page|Printed/);
    const found = wordBoxes(file, 3);
    const left = found.find((w) => w.text === 'Left')!;
    const right = found.find((w) => w.text === 'Right')!;
    const printed = found.find((w) => w.text === 'Printed')!;
    const number = found.filter((w) => w.text === '7').at(-1)!;
    expect(left.xMin).toBeCloseTo(20 * MM, 0);
    expect(right.xMax).toBeCloseTo(595 - 20 * MM, 0);
    expect(left.yMin).toBeGreaterThan(10 * MM - 1);
    expect(left.yMin).toBeLessThan(10 * MM + 4);
    expect(printed.yMax).toBeGreaterThan(842 - 15 * MM - 4);
    expect(printed.yMax).toBeLessThan(842 - 15 * MM + 1);
    expect(number.xMax).toBeCloseTo(595 - 20 * MM, 0);
    expect(artifactForms(file, '/Header')).toHaveLength(2);
    expect(artifactForms(file, '/Footer')).toHaveLength(2);

    const refused = await runToolbox(server.rest, session.token, doc.documentId, [{ options: { headerFooter: { add: { headerFooterContent: { header: { left: 'again' } } } } } }]);
    expect(refused.error).toMatchObject({ errorCode: -14 });
    expect(refused.error?.errorMessage).toMatch(/headerFooter\.add\.headerFooterContent\.replaceExisting: page 1 has a header or footer already/);

    await run(doc.documentId, { headerFooter: { add: { headerFooterContent: { header: { left: 'Again <<1>>' }, replaceExisting: true, font: { name: 'Courier', underline: true } } } } });
    file = await download(doc.documentId);
    expect(pageText(file, 2)).toContain('Again 2');
    expect(pageText(file, 1)).not.toMatch(/Page 5|Printed/);
    expect(artifactForms(file, '/Header')).toHaveLength(3);
    expect(artifactForms(file, '/Footer')).toHaveLength(0);

    await run(doc.documentId, { headerFooter: { remove: { headerFooterSelection: {} } } });
    file = await download(doc.documentId);
    expect(pdfFacts(file).text).not.toContain('Again');
    expect(pageText(file, 2)).toContain('PAGE-2');
    expect(artifactForms(file, '/Header')).toHaveLength(0);
  });

  it('refuses bad values naming the field (-14), and a failed call changes nothing', async () => {
    const doc = await upload(await numberedPdf(2));
    const cases: [unknown, RegExp][] = [
      [{ initialPage: 3 }, /toolbox\[0\]\.options\.initialPage: page 3 is out of range/],
      [{ magnification: 'huge' }, /magnification/],
      [{ pageLayout: 'threePages' }, /pageLayout/],
      [{ language: 'not a tag!' }, /toolbox\[0\]\.options\.language/],
      [{ viewerPreferences: { printPageRange: '1-9' } }, /toolbox\[0\]\.options\.viewerPreferences\.printPageRange: .*the document has 2 pages/],
      [{ pageTransitions: { add: [{ pageTransition: { pages: '4', style: 'fade' } }] } }, /toolbox\[0\]\.options\.pageTransitions\.add\[0\]\.pageTransition\.pages/],
      [{ pageTransitions: { add: [{ pageTransition: { style: 'spin' } }] } }, /style/],
      [{ background: { add: { colorBackground: {} }, remove: { backgroundSelection: {} } } }, /options\.background: add and remove exclude each other/],
      [
        { background: { add: { colorBackground: { settings: { pages: { pageInterval: { pages: '1', odd: false } } } } } } },
        /background\.add\.colorBackground\.settings\.pages\.pageInterval: selects no page/,
      ],
      [{ headerFooter: { add: { headerFooterContent: { header: { left: 'x' }, date: { day: 30, month: 2, year: 2023 } } } } }, /headerFooterContent\.date: 2023-2-30 is not a date/],
      [{ headerFooter: { add: { headerFooterContent: {} } } }, /headerFooterContent: give a header or footer text/],
      [{ boxes: { resize: [{ boxesResize: { box: 'crop_box' } }] } }, /dimensions/],
    ];
    for (const [options, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, doc.documentId, [{ options }]);
      expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: -14 } });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(message);
    }
    const uri = await runToolbox(server.rest, session.token, doc.documentId, [{ options: { background: { add: { imageBackground: { image: { source: 'uri', uri: 'http://x/y.png' } } } } } }]);
    expect(uri.error).toMatchObject({ errorCode: -104 });
    const arabic = await runToolbox(server.rest, session.token, doc.documentId, [{ options: { headerFooter: { add: { headerFooterContent: { header: { center: 'مرحبا' } } } } } }]);
    expect(arabic.error).toMatchObject({ errorCode: -104 });
    expect(arabic.error?.errorMessage).toMatch(/headerFooter\.add\.headerFooterContent cannot be honoured/);

    const chained = await runToolbox(server.rest, session.token, doc.documentId, [
      { options: { pageLayout: 'twoPages', headerFooter: { add: { headerFooterContent: { header: { center: 'kept?' } } } } } },
      { options: { initialPage: 7 } },
    ]);
    expect(chained.error).toMatchObject({ errorCode: -14 });
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ fileSize: doc.fileSize, isFileLocked: false });
    const file = await download(doc.documentId);
    expect(pdfFacts(file).text).not.toContain('kept?');
    expect(catalog(file).root['/PageLayout']).toBeUndefined();
  });

  it('works on protected PDFs with their password (wrong one: -5008) and rejects damaged ones (-7)', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(2));
    execFileSync('qpdf', ['--encrypt', 'user-pw', 'owner-pw', '256', '--', plain, `${plain}.enc`]);
    const locked = await upload(readFileSync(`${plain}.enc`), 'locked.pdf');
    const wrong = await runToolbox(server.rest, session.token, locked.documentId, [{ options: { pageLayout: 'twoPages' } }], { password: { open: 'x' } });
    expect(wrong.error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [{ options: { pageLayout: 'twoPages' } }], { password: { open: 'user-pw' } });
    const file = await download(locked.documentId);
    expect(() => pdfFacts(file)).toThrow();
    const decrypted = path.join(scratch, 'decrypted.pdf');
    execFileSync('qpdf', ['--password=user-pw', '--decrypt', file, decrypted]);
    expect(catalog(decrypted).root['/PageLayout']).toBe('/TwoPageLeft');

    const damaged = await upload(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 'garbage ')]), 'damaged.pdf');
    const outcome = await runToolbox(server.rest, session.token, damaged.documentId, [{ options: { pageLayout: 'twoPages' } }]);
    expect(outcome).toMatchObject({ status: 400, error: { errorCode: -7 } });
  });
});
