import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString, StandardFonts } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { downloadToFile } from '../../helpers/converter.js';
import { info, uploadFile, type DocumentFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-extraction-'));

const JPEG = await sharp({ create: { width: 30, height: 30, channels: 3, background: { r: 0, g: 0, b: 255 } } })
  .jpeg()
  .toBuffer();
const PNG = await sharp({ create: { width: 40, height: 20, channels: 3, background: { r: 255, g: 0, b: 0 } } })
  .png()
  .toBuffer();

/**
 * Three A4 pages. Each: "PAGE-n" at (50, 700) 24 pt under a URI link to https://example.com/pn,
 * a line with punctuation, a hyphenated word and written URLs at y 650, a paragraph at y 400.
 * Page 1 draws a PNG (40×20) and a JPEG (30×30); page 2 links to page 1 directly and through the
 * named destination "chap1". Page 3 is turned by /Rotate 90.
 */
async function samplePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const png = await doc.embedPng(PNG);
  const jpg = await doc.embedJpg(JPEG);
  const pages = [1, 2, 3].map(() => doc.addPage([595, 842]));
  pages.forEach((page, i) => {
    const n = i + 1;
    page.drawText(`PAGE-${n}`, { x: 50, y: 700, size: 24, font });
    page.drawText('Hello, world.Second e-mail see www.example.org and https://quire.test/x?a=1', { x: 50, y: 650, size: 10, font });
    page.drawText('Another paragraph far below.', { x: 50, y: 400, size: 12, font });
    if (n === 1) {
      page.drawImage(png, { x: 100, y: 100, width: 40, height: 20 });
      page.drawImage(jpg, { x: 200, y: 100, width: 30, height: 30 });
    }
    const annots = [
      doc.context.register(
        doc.context.obj({
          Type: 'Annot',
          Subtype: 'Link',
          Rect: [50, 690, 200, 724],
          Border: [0, 0, 0],
          A: { S: 'URI', URI: PDFString.of(`https://example.com/p${n}`) },
        }),
      ),
    ];
    if (n === 2) {
      annots.push(doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 395, 250, 415], Dest: [pages[0]!.ref, PDFName.of('Fit')] })));
      annots.push(doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [300, 395, 400, 415], A: { S: 'GoTo', D: PDFString.of('chap1') } })));
    }
    page.node.set(PDFName.of('Annots'), doc.context.obj(annots));
  });
  pages[2]!.setRotation({ type: 'degrees', angle: 90 } as never);
  const dests = doc.context.obj({ Names: [PDFString.of('chap1'), [pages[0]!.ref, PDFName.of('XYZ'), 0, 842, 0]] });
  doc.catalog.set(PDFName.of('Names'), doc.context.obj({ Dests: doc.context.register(dests) }));
  doc.setTitle('Sample');
  doc.setAuthor('Quire');
  return Buffer.from(await doc.save());
}

function unzipTo(file: string): string {
  const target = mkdtempSync(path.join(scratch, 'unzip-'));
  execFileSync('unzip', ['-q', file, '-d', target]);
  return target;
}

/** Parses XML with Python's expat (an independent parser): throws unless well-formed; returns the root's tag. */
function xmlRoot(file: string): string {
  return execFileSync('python3', ['-c', 'import sys, xml.dom.minidom; print(xml.dom.minidom.parse(sys.argv[1]).documentElement.tagName)', file], { encoding: 'utf8' }).trim();
}

/** Runs a Python expression over the parsed XML (`d` is the document). */
function xmlQuery(file: string, expression: string): string {
  return execFileSync('python3', ['-c', `import sys, xml.dom.minidom; d = xml.dom.minidom.parse(sys.argv[1]); print(${expression})`, file], { encoding: 'utf8' }).trim();
}

type Json = Record<string, any>;

describe('toolbox extraction', () => {
  const { server, session } = useTestServer();
  let sample: Buffer;
  let samplePath: string;

  beforeAll(async () => {
    sample = await samplePdf();
    samplePath = path.join(scratch, 'sample.pdf');
    writeFileSync(samplePath, sample);
  });

  const extract = async (options: unknown, extension: string): Promise<{ result: DocumentFile; file: string }> => {
    const doc = await uploadFile(server.rest, session.token, sample, 'sample.pdf');
    const result = await toolboxOk(server.rest, session.token, doc.documentId, [{ extraction: options }]);
    return { result, file: await downloadToFile(server.rest, session.token, doc.documentId, extension) };
  };
  const json = (file: string): Json => JSON.parse(readFileSync(file, 'utf8')) as Json;

  it('extracts text as a text file, pages in the order selected, as pdftotext reads them', async () => {
    const { result, file } = await extract({ text: { pages: '3,1', fileFormat: 'text' } }, 'txt');
    expect(result).toMatchObject({ mimeType: 'text/plain', fileExtension: 'txt' });
    const pdftotext = (page: number) => execFileSync('pdftotext', ['-enc', 'UTF-8', '-f', String(page), '-l', String(page), samplePath, '-'], { encoding: 'utf8' });
    expect(readFileSync(file, 'utf8')).toBe(pdftotext(3) + pdftotext(1));
  });

  it('reads a selection scattered over many runs of pages from a copy of just those pages', async () => {
    const doc = await uploadFile(server.rest, session.token, await numberedPdf(45), 'many.pdf');
    const odd = Array.from({ length: 20 }, (_, i) => 2 * i + 3);
    await toolboxOk(server.rest, session.token, doc.documentId, [{ extraction: { text: { pages: `1,${odd.join(',')}`, fileFormat: 'json' } } }]);
    const pages = json(await downloadToFile(server.rest, session.token, doc.documentId, 'json')).document.page as Json[];
    expect(pages.map((p) => p.number)).toEqual([1, ...odd]);
    expect(pages.map((p) => (p.text as string).trim())).toEqual([1, ...odd].map((n) => `PAGE-${n}`));
  });

  it('extracts text as XML and JSON with a page element per page', async () => {
    const xml = await extract({ text: { pages: '2-3', fileFormat: 'xml' } }, 'xml');
    expect(xml.result).toMatchObject({ mimeType: 'application/xml' });
    expect(xmlRoot(xml.file)).toBe('document');
    expect(xmlQuery(xml.file, '[p.getAttribute("number") for p in d.getElementsByTagName("page")]')).toBe("['2', '3']");
    expect(xmlQuery(xml.file, 'd.getElementsByTagName("page")[1].firstChild.data.split()[0]')).toBe('PAGE-3');

    const { file, result: jsonResult } = await extract({ text: { fileFormat: 'json' } }, 'json');
    expect(jsonResult).toMatchObject({ mimeType: 'application/json', fileExtension: 'json' });
    const pages = json(file).document.page as Json[];
    // Sizes as shown: page 3 is turned.
    expect(pages.map((p) => [p.number, p.width, p.height])).toEqual([
      [1, 595, 842],
      [2, 595, 842],
      [3, 842, 595],
    ]);
    expect(pages[0]!.text).toMatch(/^PAGE-1\n/);
  });

  it('extracts words with their boxes and the word rules', async () => {
    const words = async (options: Json) => {
      const { file } = await extract({ words: { pages: '1', fileFormat: 'json', ...options } }, 'json');
      return json(file).document.page[0].word as Json[];
    };
    const defaults = await words({});
    const texts = defaults.map((w) => w.text);
    expect(texts.slice(0, 6)).toEqual(['PAGE-1', 'Hello,', 'world.', 'Second', 'e-mail', 'see']);
    // PAGE-1 is drawn at x 50, baseline 842 - 700 = 142 from the top, 24 pt high.
    const first = defaults[0]!;
    expect(first.x).toBeCloseTo(50, 0);
    expect(first.y).toBeGreaterThan(110);
    expect(first.y + first.height).toBeGreaterThan(142);
    expect(first.y + first.height).toBeLessThan(150);

    expect((await words({ delimitAfterPunctuation: false })).map((w) => w.text).slice(1, 4)).toEqual(['Hello,', 'world.Second', 'e-mail']);
    expect((await words({ extendedSequenceCharacters: true })).map((w) => w.text).slice(1, 5)).toEqual(['Hello,', 'world.Second', 'e-mail', 'see']);
    expect((await words({ removePunctuation: true })).map((w) => w.text).slice(0, 6)).toEqual(['PAGE1', 'Hello', 'world', 'Second', 'email', 'see']);
    expect((await words({ removePunctuation: true, extendedSequenceCharacters: true })).map((w) => w.text).slice(0, 4)).toEqual(['PAGE-1', 'Hello', 'world.Second', 'e-mail']);

    const { file } = await extract({ words: { pages: '1', fileFormat: 'text' } }, 'txt');
    expect(readFileSync(file, 'utf8').split('\n').slice(0, 3)).toEqual(['PAGE-1', 'Hello,', 'world.']);
  });

  it('extracts paragraphs as XML', async () => {
    const { file } = await extract({ paragraphs: { pages: '2', fileFormat: 'xml' } }, 'xml');
    expect(xmlRoot(file)).toBe('document');
    const paragraphs = JSON.parse(xmlQuery(file, '__import__("json").dumps([p.firstChild.data for p in d.getElementsByTagName("paragraph")])')) as string[];
    expect(paragraphs).toEqual(['PAGE-2', 'Hello, world.Second e-mail see www.example.org and https://quire.test/x?a=1', 'Another paragraph far below.']);
    expect(Number(xmlQuery(file, 'd.getElementsByTagName("paragraph")[2].getAttribute("y")'))).toBeCloseTo(842 - 400 - 10.6, -1);
  });

  it('extracts link annotations (URI, page and named destinations) and links written in the text', async () => {
    const { file } = await extract({ links: { pages: '1-2', fileFormat: 'json' } }, 'json');
    const pages = json(file).document.page as Json[];
    expect(pages[0]!.link).toEqual([{ source: 'annotation', type: 'uri', target: 'https://example.com/p1', x: 50, y: 118, width: 150, height: 34, text: 'PAGE-1' }]);
    expect(pages[1]!.link.map((l: Json) => [l.type, l.target, l.destinationPage, l.destinationView, l.destinationName, l.text])).toEqual([
      ['uri', 'https://example.com/p2', undefined, undefined, undefined, 'PAGE-2'],
      ['goTo', '#page=1', 1, 'Fit', '', 'Another paragraph far below.'],
      ['goTo', '#page=1', 1, 'XYZ', 'chap1', ''],
    ]);

    // On the turned page the link box turns with the text: it still covers PAGE-3.
    const turned = await extract({ links: { pages: '3', fileFormat: 'json' } }, 'json');
    expect(json(turned.file).document.page[0].link).toEqual([{ source: 'annotation', type: 'uri', target: 'https://example.com/p3', x: 690, y: 50, width: 34, height: 150, text: 'PAGE-3' }]);

    const fromText = async (text: Json) => {
      const { file: f } = await extract({ links: { pages: '3', fileFormat: 'json', text } }, 'json');
      return (json(f).document.page[0].link as Json[]).filter((l) => l.source === 'text').map((l) => l.target);
    };
    expect(await fromText({ fromText: true })).toEqual(['www.example.org', 'https://quire.test/x?a=1']);
    expect(await fromText({ fromText: true, withoutProtocol: false })).toEqual(['https://quire.test/x?a=1']);
    expect(await fromText({ fromText: true, protocol: 'ftp', withoutProtocol: false })).toEqual([]);
    expect(await fromText({ fromText: false })).toEqual([]);

    const xml = await extract({ links: { pages: '2', fileFormat: 'xml' } }, 'xml');
    expect(xmlQuery(xml.file, 'len(d.getElementsByTagName("link"))')).toBe('3');
    const text = await extract({ links: { pages: '2', fileFormat: 'text' } }, 'txt');
    expect(readFileSync(text.file, 'utf8').split('\n')[1]).toBe('2\tgoTo\t#page=1\tAnother paragraph far below.');
  });

  it('extracts images into a ZIP with a folder per page, JPEG data as stored', async () => {
    const { result, file } = await extract({ images: {} }, 'zip');
    expect(result).toMatchObject({ mimeType: 'application/zip' });
    expect(execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n').sort()).toEqual(['page[1]/file[1].png', 'page[1]/file[2].jpg']);
    const dir = unzipTo(file);
    expect(readFileSync(path.join(dir, 'page[1]', 'file[2].jpg')).equals(JPEG)).toBe(true);
    const png = await sharp(path.join(dir, 'page[1]', 'file[1].png'))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([png.info.width, png.info.height, png.data[0], png.data[1], png.data[2]]).toEqual([40, 20, 255, 0, 0]);

    const renamed = await extract({ images: { fallbackFormat: 'jpeg', folderNameTemplate: 'p%d', fileNameTemplate: 'img-%d' } }, 'zip');
    expect(execFileSync('unzip', ['-Z1', renamed.file], { encoding: 'utf8' }).trim().split('\n').sort()).toEqual(['p1/img-1.jpg', 'p1/img-2.jpg']);
    expect((await sharp(path.join(unzipTo(renamed.file), 'p1', 'img-1.jpg')).metadata()).format).toBe('jpeg');

    const none = await extract({ images: { pages: '2-3' } }, 'zip');
    // A valid, empty archive (unzip calls that a warning; Python's zipfile reads it).
    expect(execFileSync('python3', ['-c', 'import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))', none.file], { encoding: 'utf8' }).trim()).toBe('0');
  });

  it('lists images as JSON, XML or text instead', async () => {
    const { file } = await extract({ images: { fileFormat: 'json' } }, 'json');
    const pages = json(file).document.page as Json[];
    expect(pages.map((p) => p.image.length)).toEqual([2, 0, 0]);
    expect(pages[0]!.image.map((i: Json) => [i.number, i.width, i.height, i.encoding, i.suffix, i.fileName])).toEqual([
      [1, 40, 20, 'image', 'png', 'page[1]/file[1].png'],
      [2, 30, 30, 'jpeg', 'jpg', 'page[1]/file[2].jpg'],
    ]);
    const xml = await extract({ images: { fileFormat: 'xml' } }, 'xml');
    expect(xmlQuery(xml.file, 'len(d.getElementsByTagName("image"))')).toBe('2');
    const text = await extract({ images: { fileFormat: 'text' } }, 'txt');
    expect(readFileSync(text.file, 'utf8')).toMatch(/^page\[1\]\/file\[1\]\.png\t40x20\trgb/);
  });

  it('extracts info as {"document": Metadata_Document}, the pages selected', async () => {
    const { file } = await extract({ info: { pages: '*', fileFormat: 'json' } }, 'json');
    const document = json(file).document as Json;
    expect(document.information).toMatchObject({ pages: 3, version: '1.7', encrypted: false, description: { title: 'Sample', author: [{ name: 'Quire' }] } });
    expect(document.security).toMatchObject({ canPrint: true, password: { hasOpenPassword: false } });
    expect(document.pages.page.map((p: Json) => [p.number, p.width, p.height])).toEqual([
      [1, 595, 842],
      [2, 595, 842],
      [3, 595, 842],
    ]);
    expect(document.images.image.map((i: Json) => [i.page, i.width, i.suffix])).toEqual([
      [1, 40, 'png'],
      [1, 30, 'jpg'],
    ]);
    expect(document.form).toMatchObject({ formType: 'none' });

    const selected = await extract({ info: { pages: '2', fileFormat: 'json' } }, 'json');
    expect((json(selected.file).document.pages.page as Json[]).map((p) => p.number)).toEqual([2]);
    expect(json(selected.file).document.images.image).toEqual([]);

    const xml = await extract({ info: {} }, 'xml');
    expect(xmlRoot(xml.file)).toBe('document');
    expect(xmlQuery(xml.file, 'd.getElementsByTagName("information")[0].getAttribute("pages")')).toBe('3');
    expect(xmlQuery(xml.file, 'd.getElementsByTagName("description")[0].getAttribute("title")')).toBe('Sample');

    const text = await extract({ info: { fileFormat: 'text' } }, 'txt');
    expect(readFileSync(text.file, 'utf8')).toMatch(/^information\.pages: 3$/m);
  });

  it('refuses no or several kinds, zip for text, bad pages, unknown enums and templates (document unchanged)', async () => {
    const doc = await uploadFile(server.rest, session.token, sample, 'sample.pdf');
    const cases: [unknown, RegExp][] = [
      [{}, /toolbox\[0\]\.extraction: give exactly one of/],
      [{ text: {}, words: {} }, /text and words/],
      [{ text: { fileFormat: 'zip' } }, /toolbox\[0\]\.extraction\.text\.fileFormat: "zip" is the format of image extraction/],
      [{ words: { pages: '4' } }, /toolbox\[0\]\.extraction\.words\.pages: Page 4 is out of range: the document has 3 pages/],
      [{ text: { fileFormat: 'pdf' } }, /fileFormat/],
      [{ images: { fallbackFormat: 'gif' } }, /fallbackFormat/],
      [{ images: { fallbackFormat: 'jpeg', fileNameTemplate: 'same' } }, /toolbox\[0\]\.extraction\.images\.fileNameTemplate: the templates give two images the name page\[1\]\/same\.jpg/],
      [{ images: { folderNameTemplate: '..' } }, /folderNameTemplate/],
    ];
    for (const [options, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, doc.documentId, [{ extraction: options }]);
      expect(outcome.error, JSON.stringify(options)).toMatchObject({ errorCode: -14 });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(message);
    }
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ mimeType: 'application/pdf', fileSize: doc.fileSize });
  });

  it('opens protected PDFs only with their password (-5008) and refuses damaged ones (-7)', async () => {
    const locked = path.join(scratch, 'locked.pdf');
    execFileSync('qpdf', ['--encrypt', 'u', 'o', '256', '--', samplePath, locked]);
    const doc = await uploadFile(server.rest, session.token, readFileSync(locked), 'locked.pdf');
    const wrong = await runToolbox(server.rest, session.token, doc.documentId, [{ extraction: { text: { fileFormat: 'text' } } }], { password: { open: 'x' } });
    expect(wrong.error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, doc.documentId, [{ extraction: { text: { pages: '2', fileFormat: 'text' } } }], { password: { open: 'u' } });
    expect(readFileSync(await downloadToFile(server.rest, session.token, doc.documentId, 'txt'), 'utf8')).toMatch(/^PAGE-2\n/);

    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\ngarbage garbage\n'), 'damaged.pdf');
    const outcome = await runToolbox(server.rest, session.token, damaged.documentId, [{ extraction: { info: {} } }]);
    expect(outcome.error).toMatchObject({ errorCode: -7 });
    expect(await info(server.rest, session.token, damaged.documentId)).toMatchObject({ fileSize: damaged.fileSize });
  });
});

describe("toolbox extraction: results beyond the session's document size", () => {
  const { server, session } = useTestServer({ env: { QUIRE_LIMITS__ANONYMOUS__UPLOAD_LIMIT: '40KB' } });

  it('refuses an extraction larger than the upload limit (-71) and keeps the document', async () => {
    // 4 pages of 60 lines of words (a few KB compressed) give some 200 KB of words as XML.
    const document = await PDFDocument.create();
    const font = await document.embedFont(StandardFonts.Helvetica);
    for (let p = 0; p < 4; p++) {
      const page = document.addPage([595, 842]);
      for (let line = 0; line < 60; line++) page.drawText('lorem ipsum dolor sit amet consectetur adipiscing elit sed do', { x: 20, y: 820 - line * 13, size: 10, font });
    }
    const plain = path.join(scratch, 'words.pdf');
    writeFileSync(plain, await document.save());
    execFileSync('qpdf', ['--compress-streams=y', '--recompress-flate', plain, `${plain}.z`]);
    const doc = await uploadFile(server.rest, session.token, readFileSync(`${plain}.z`), 'words.pdf');
    const outcome = await runToolbox(server.rest, session.token, doc.documentId, [{ extraction: { words: { fileFormat: 'xml' } } }]);
    expect(outcome).toMatchObject({ status: 413, error: { errorCode: -71 } });
    expect(outcome.error?.errorMessage).toMatch(/extraction result would be \d+ bytes, more than the 40960 bytes/);
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ mimeType: 'application/pdf', fileSize: doc.fileSize });
  });
});
