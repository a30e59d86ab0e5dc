import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { downloadToFile } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-image-'));

/** Page 1 A4 portrait, page 2 a 300×200 pt landscape page, page 3 A4 turned by /Rotate 90; each says "PAGE-n". */
async function mixedPdf(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const sizes: [number, number][] = [
    [595, 842],
    [300, 200],
    [595, 842],
  ];
  sizes.forEach(([w, h], i) => {
    const page = document.addPage([w, h]);
    page.drawText(`PAGE-${i + 1}`, { x: 20, y: h - 60, size: 24, font });
    page.drawRectangle({ x: 20, y: 20, width: 100, height: 20 });
  });
  document.getPage(2).setRotation({ type: 'degrees', angle: 90 } as never);
  return Buffer.from(await document.save());
}

function unzipList(file: string): string[] {
  return execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n').sort();
}

function unzipTo(file: string): string {
  const target = mkdtempSync(path.join(scratch, 'unzip-'));
  execFileSync('unzip', ['-q', file, '-d', target]);
  return target;
}

/** `file`'s verdict on a file (an independent check of the format). */
function fileKind(file: string): string {
  return execFileSync('file', ['-b', file], { encoding: 'utf8' }).trim();
}

/** Parses XML with Python's expat: throws unless well-formed. */
function parseXml(file: string): void {
  execFileSync('python3', ['-c', 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])', file]);
}

describe('toolbox image', () => {
  const { server, session } = useTestServer();

  const upload = async (content: Buffer, name = 'doc.pdf') => uploadFile(server.rest, session.token, content, name);

  it('renders one page as a PNG at the dpi (the clients\' test: pages "1", png dpi 72)', async () => {
    const doc = await upload(await numberedPdf(3));
    const result = await toolboxOk(server.rest, session.token, doc.documentId, [{ image: { pages: '1', png: { dpi: 72 } } }]);
    expect(result).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
    const file = await downloadToFile(server.rest, session.token, doc.documentId, 'png');
    expect(fileKind(file)).toMatch(/^PNG image data, 595 x 842/);
    // Not a blank page: the text "PAGE-1" is drawn in black.
    const stats = await sharp(file).stats();
    expect(stats.channels[0]!.min).toBeLessThan(64);

    const doc2 = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, doc2.documentId, [{ image: { pages: '1', png: { dpi: 150 } } }]);
    const meta = await sharp(await downloadToFile(server.rest, session.token, doc2.documentId, 'png')).metadata();
    expect([meta.width, meta.height]).toEqual([Math.round((595 * 150) / 72), Math.round((842 * 150) / 72)]);
    expect(Math.round(meta.density ?? 0)).toBe(150);
  });

  it('renders several pages as a ZIP named by fileNameTemplate, each page at its own size and orientation', async () => {
    const doc = await upload(await mixedPdf());
    const result = await toolboxOk(server.rest, session.token, doc.documentId, [{ image: { pages: '*', fileNameTemplate: 'seite-%d', jpeg: { dpi: 36, jpegQuality: 60 } } }]);
    expect(result).toMatchObject({ mimeType: 'application/zip', fileExtension: 'zip' });
    const zip = await downloadToFile(server.rest, session.token, doc.documentId, 'zip');
    expect(unzipList(zip)).toEqual(['seite-1.jpg', 'seite-2.jpg', 'seite-3.jpg']);
    const dir = unzipTo(zip);
    const sizes = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const m = await sharp(path.join(dir, `seite-${n}.jpg`)).metadata();
        expect(m.format).toBe('jpeg');
        return [m.width, m.height];
      }),
    );
    // 595×842 pt at 36 dpi; 300×200; the turned A4 page is shown landscape.
    expect(sizes).toEqual([
      [298, 421],
      [150, 100],
      [421, 298],
    ]);
  });

  it('takes width/height in their metrics: one keeps the proportions, both fit the page into the box', async () => {
    const doc = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, doc.documentId, [{ image: { pages: '1', png: { dpi: 72, width: 100, metrics: 'mm' } } }]);
    let meta = await sharp(await downloadToFile(server.rest, session.token, doc.documentId, 'png')).metadata();
    // 100 mm at 72 dpi = 283.46 px wide; the height follows the A4 proportions.
    expect([meta.width, meta.height]).toEqual([283, Math.round((842 * (100 / 25.4) * 72) / 595)]);

    const doc2 = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, doc2.documentId, [{ image: { png: { width: 400, height: 400, metrics: 'px' } } }]);
    meta = await sharp(await downloadToFile(server.rest, session.token, doc2.documentId, 'png')).metadata();
    expect([meta.width, meta.height]).toEqual([Math.round((595 * 400) / 842), 400]);
  });

  it('re-encodes JPEG at lower quality while it is larger than sizeOptimization.maxSize, at most maxRetries times', async () => {
    const jpegSize = async (jpeg: unknown) => {
      const doc = await upload(await numberedPdf(1));
      await toolboxOk(server.rest, session.token, doc.documentId, [{ image: { jpeg } }]);
      const file = await downloadToFile(server.rest, session.token, doc.documentId, 'jpg');
      expect((await sharp(file).metadata()).format).toBe('jpeg');
      return readFileSync(file).length;
    };
    const plain = await jpegSize({ dpi: 100, jpegQuality: 100 });
    expect(await jpegSize({ dpi: 100, jpegQuality: 100, sizeOptimization: { maxSize: 1_000_000_000, stepSize: 30, maxRetries: 5 } })).toBe(plain);
    const once = await jpegSize({ dpi: 100, jpegQuality: 100, sizeOptimization: { maxSize: 1000, stepSize: 30, maxRetries: 1 } });
    const twice = await jpegSize({ dpi: 100, jpegQuality: 100, sizeOptimization: { maxSize: 1000, stepSize: 30, maxRetries: 2 } });
    expect(once).toBeLessThan(plain);
    expect(twice).toBeLessThan(once);
    // Quality 40 directly gives the same file as 100 lowered twice by 30.
    expect(await jpegSize({ dpi: 100, jpegQuality: 40 })).toBe(twice);
  });

  it('writes GIF and BMP', async () => {
    const doc = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, doc.documentId, [{ image: { gif: { dpi: 36 } } }]);
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ mimeType: 'image/gif' });
    expect(fileKind(await downloadToFile(server.rest, session.token, doc.documentId, 'gif'))).toMatch(/^GIF image data, version 89a, 298 x 421/);

    const doc2 = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, doc2.documentId, [{ image: { bmp: { dpi: 36 } } }]);
    expect(await info(server.rest, session.token, doc2.documentId)).toMatchObject({ mimeType: 'image/bmp' });
    const bmp = await downloadToFile(server.rest, session.token, doc2.documentId, 'bmp');
    expect(fileKind(bmp)).toMatch(/PC bitmap.*298 x 421 x 24/);
    // 36 dpi = 1417 pixels per metre, in the header.
    expect(readFileSync(bmp).readInt32LE(38)).toBe(1417);
  });

  it('writes a multi-page TIFF of differently sized pages, and group4 black and white', async () => {
    const doc = await upload(await mixedPdf());
    await toolboxOk(server.rest, session.token, doc.documentId, [{ image: { pages: '1-3', tiff: { dpi: 36, multipage: true, compression: 'lzw' } } }]);
    const tiff = await downloadToFile(server.rest, session.token, doc.documentId, 'tif');
    expect(fileKind(tiff)).toMatch(/^TIFF image data/);
    expect((await sharp(tiff).metadata()).pages).toBe(3);
    const pages = await Promise.all(
      [0, 1, 2].map(async (page) => {
        const m = await sharp(tiff, { page }).metadata();
        return [m.width, m.height];
      }),
    );
    expect(pages).toEqual([
      [298, 421],
      [150, 100],
      [421, 298],
    ]);
    // The second page decodes to real pixels (the text is there).
    expect((await sharp(tiff, { page: 1 }).stats()).channels[0]!.min).toBeLessThan(64);

    const doc2 = await upload(await numberedPdf(2));
    await toolboxOk(server.rest, session.token, doc2.documentId, [{ image: { pages: '1', tiff: { dpi: 100, compression: 'group4', blackAndWhiteQuality: 'low' } } }]);
    const g4 = await downloadToFile(server.rest, session.token, doc2.documentId, 'tif');
    expect(fileKind(g4)).toMatch(/bps=1, compression=bi-level group 4/);
    const bw = await sharp(g4).greyscale().raw().toBuffer();
    expect(new Set(bw)).toEqual(new Set([0, 255]));
  });

  it('codes black and white as CCITT RLE, Group 3 and Group 4, with the blackAndWhiteQuality of greys', async () => {
    // A 40 % grey square: a threshold makes it black, dithering and error diffusion about 40 % white.
    const document = await PDFDocument.create();
    document.addPage([200, 200]).drawRectangle({ x: 0, y: 0, width: 200, height: 200, color: { type: 'RGB', red: 0.4, green: 0.4, blue: 0.4 } as never });
    const grey = Buffer.from(await document.save());
    const whiteShare = async (file: string, page = 0) => {
      const pixels = await sharp(file, { page }).greyscale().raw().toBuffer();
      expect(new Set(pixels)).toEqual(new Set(pixels.some((p) => p === 255) ? (pixels.some((p) => p === 0) ? [0, 255] : [255]) : [0]));
      return pixels.filter((p) => p === 255).length / pixels.length;
    };
    const shares: Record<string, number> = {};
    for (const [compression, quality, pattern] of [
      ['rle', 'low', /compression=huffman/],
      ['group3', 'middle', /compression=bi-level group 3/],
      ['group4', 'high', /compression=bi-level group 4/],
    ] as const) {
      const doc = await upload(grey);
      await toolboxOk(server.rest, session.token, doc.documentId, [{ image: { tiff: { dpi: 72, compression, blackAndWhiteQuality: quality } } }]);
      const file = await downloadToFile(server.rest, session.token, doc.documentId, 'tif');
      expect(fileKind(file)).toMatch(pattern);
      expect(fileKind(file)).toMatch(/height=200, bps=1/);
      shares[quality] = await whiteShare(file);
    }
    expect(shares.low).toBe(0);
    expect(shares.middle).toBeGreaterThan(0.35);
    expect(shares.middle).toBeLessThan(0.45);
    expect(shares.high).toBeGreaterThan(0.35);
    expect(shares.high).toBeLessThan(0.45);

    // Several pages of Group 3 as one multi-page TIFF.
    const doc = await upload(await numberedPdf(3));
    await toolboxOk(server.rest, session.token, doc.documentId, [{ image: { pages: '2-3', tiff: { dpi: 50, compression: 'group3', multipage: true } } }]);
    const multi = await downloadToFile(server.rest, session.token, doc.documentId, 'tif');
    expect((await sharp(multi).metadata()).pages).toBe(2);
    for (const page of [0, 1]) {
      const share = await whiteShare(multi, page);
      expect(share).toBeGreaterThan(0.95); // white pages with black text
      expect(share).toBeLessThan(1);
    }
  });

  it('writes SVG with the pixel size, decimal precision, path mode and graphics state mode', async () => {
    const doc = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, doc.documentId, [{ image: { svg: { dpi: 144, decimalPrecision: 0, pathDrawMode: 'compact', graphicsStateMode: 'centralize' } } }]);
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ mimeType: 'image/svg+xml' });
    const file = await downloadToFile(server.rest, session.token, doc.documentId, 'svg');
    parseXml(file);
    const svg = readFileSync(file, 'utf8');
    expect(svg).toMatch(/<svg[^>]* width="1190" height="1684" viewBox="0 0 595 842"/);
    const paths = [...svg.matchAll(/ d="([^"]+)"/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(3);
    for (const d of paths) expect(d).not.toMatch(/\d\.\d|\s[A-Z]|[A-Z]\s/);
    expect(svg).toContain('<style type="text/css">');
    expect(svg).toMatch(/class="gs\d+"/);
    expect(svg).not.toMatch(/ style="/);

    const doc2 = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, doc2.documentId, [{ image: { svg: { decimalPrecision: 3, pathDrawMode: 'verbose', graphicsStateMode: 'verbose' } } }]);
    const verbose = readFileSync(await downloadToFile(server.rest, session.token, doc2.documentId, 'svg'), 'utf8');
    expect(verbose).toMatch(/<svg[^>]* width="595" height="842"/);
    expect(verbose).toMatch(/ d="M \d+(\.\d{1,3})? -?\d+(\.\d{1,3})? L /);
    expect(verbose).not.toMatch(/\d\.\d{4}/);
    expect(verbose).toMatch(/ style="/);
    expect(verbose).not.toContain('<style');
  });

  it('refuses bad selections, several or no formats, unknown enums, bad templates and too many pixels (document unchanged)', async () => {
    const doc = await upload(await numberedPdf(2));
    const cases: [unknown, number, RegExp][] = [
      [{ pages: '3', png: {} }, -14, /toolbox\[0\]\.image\.pages: Page 3 is out of range: the document has 2 pages/],
      [{ pages: 'x', png: {} }, -14, /toolbox\[0\]\.image\.pages/],
      [{ pages: '1' }, -14, /toolbox\[0\]\.image: give exactly one image format/],
      [{ png: {}, jpeg: {} }, -14, /png and jpeg/],
      [{ png: { metrics: 'furlong' } }, -14, /metrics/],
      [{ tiff: { compression: 'fax' } }, -14, /compression/],
      [{ png: { dpi: 9600 } }, -14, /toolbox\[0\]\.image\.png: page 1 would be \d+×\d+ pixels/],
      [{ pages: '1-2', fileNameTemplate: 'same', png: {} }, -14, /fileNameTemplate/],
      [{ pages: '1-2', fileNameTemplate: '../up%d', png: {} }, -14, /fileNameTemplate/],
    ];
    for (const [options, code, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, doc.documentId, [{ image: options }]);
      expect(outcome.error, JSON.stringify(options)).toMatchObject({ errorCode: code });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(message);
    }
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ mimeType: 'application/pdf', fileSize: doc.fileSize });
  });

  it('refuses to render a document without pages (toolbox/new)', async () => {
    const response = await fetch(`${server.rest}/toolbox/new?name=none.png`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ toolbox: [{ image: { pages: '', png: {} } }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ errorCode: -14, errorMessage: expect.stringMatching(/toolbox\[0\]\.image: the document has no pages/) });
  });

  it('opens protected PDFs only with their password (-5008) and refuses damaged ones (-7)', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(1));
    execFileSync('qpdf', ['--encrypt', 'u', 'o', '256', '--', plain, `${plain}.enc`]);
    const locked = await upload(readFileSync(`${plain}.enc`), 'locked.pdf');
    const wrong = await runToolbox(server.rest, session.token, locked.documentId, [{ image: { png: {} } }], { password: { open: 'x' } });
    expect(wrong.error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [{ image: { png: { dpi: 36 } } }], { password: { open: 'u' } });
    expect(fileKind(await downloadToFile(server.rest, session.token, locked.documentId, 'png'))).toMatch(/^PNG image data, 298 x 421/);

    const damaged = await upload(Buffer.from('%PDF-1.4\nthis is not a PDF at all\n'), 'damaged.pdf');
    const outcome = await runToolbox(server.rest, session.token, damaged.documentId, [{ image: { png: {} } }]);
    expect(outcome.error).toMatchObject({ errorCode: -7 });
    expect(await info(server.rest, session.token, damaged.documentId)).toMatchObject({ fileSize: damaged.fileSize });
  });
});

describe("toolbox image: results beyond the session's document size", () => {
  const { server, session } = useTestServer({ env: { QUIRE_LIMITS__ANONYMOUS__UPLOAD_LIMIT: '40KB' } });

  it('refuses a result larger than the upload limit (-71) and keeps the document', async () => {
    mkdirSync(scratch, { recursive: true });
    const doc = await uploadFile(server.rest, session.token, await numberedPdf(1), 'small.pdf');
    const outcome = await runToolbox(server.rest, session.token, doc.documentId, [{ image: { bmp: { dpi: 72 } } }]);
    expect(outcome).toMatchObject({ status: 413, error: { errorCode: -71 } });
    expect(outcome.error?.errorMessage).toMatch(/image result would be \d+ bytes, more than the 40960 bytes/);
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ mimeType: 'application/pdf', fileSize: doc.fileSize });
  });
});
