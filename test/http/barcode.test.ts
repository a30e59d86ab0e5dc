import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer, json } from '../helpers/client.js';
import { postWebService } from '../helpers/converter.js';
import { realPdf, sha256 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { pdfinfo, qpdfCheck, scratchDir } from '../helpers/pdf-tools.js';
import { MM, renderPage, zbar } from '../engines/barcode/readers.js';

/**
 * POST barcode/{documentId} and barcode/new (reference §10.6) on a real server; the stored results
 * rendered with pdftoppm and read with zbarimg.
 */

const { server, session, upload, download } = useTestServer();
const scratch = scratchDir('barcode-http');
afterAll(() => scratch.remove());

const barcode = (path: string, body: unknown) => postWebService(`${server.rest}/barcode/${path}`, session.token, body);

async function storedSha(documentId: string): Promise<string> {
  return sha256(readFileSync(await download(documentId)));
}

describe('barcode add', () => {
  it("stamps the reference's test body: a QR code on pages 1-3 and a turned EAN-8 on every page, each in its box", async () => {
    const uploaded = await upload(await realPdf(4), 'four.pdf');
    const outcome = await barcode(uploaded.documentId, {
      barcode: {
        add: {
          qrcode: [{ position: { x: 2, y: 2, height: 20, width: 20 }, pages: '1-3', value: 'https://www.webpdf.de' }],
          ean8: [{ position: { x: 190, y: 2, height: 40, width: 10 }, value: '90311017', pages: '*', rotation: 90 }],
        },
      },
    });
    expect(outcome.status).toBe(303);
    expect(outcome.location).toContain(uploaded.documentId);
    const file = await download(uploaded.documentId);
    qpdfCheck(file);
    const qrBox = { x: 2 * MM, y: 2 * MM, width: 20 * MM, height: 20 * MM };
    const eanBox = { x: 190 * MM, y: 2 * MM, width: 10 * MM, height: 40 * MM };
    for (const page of [1, 2, 3, 4]) {
      expect(zbar(renderPage(file, page, scratch.file(`ref-qr-${page}`), { box: qrBox, pad: 2 * MM }))).toEqual(page <= 3 ? ['QR-Code:https://www.webpdf.de'] : []);
      expect(zbar(renderPage(file, page, scratch.file(`ref-ean-${page}`), { box: eanBox, pad: 2 * MM }))).toEqual(['EAN-8:90311017']);
    }
  });

  it('refuses a value that breaks its rule with 400 -190 naming the item and the rule; the document stays as it was', async () => {
    const uploaded = await upload(await realPdf(1), 'one.pdf');
    const before = await storedSha(uploaded.documentId);
    const cases: [unknown, RegExp][] = [
      [{ ean8: [{ value: '90311018' }] }, /barcode\.add\.ean8\[0\]\.value.*check digit/],
      [{ qrcode: [{ value: 'fine' }], ean13: [{ value: '12345' }] }, /barcode\.add\.ean13\[0\]\.value.*12 digits/],
      [{ upca: [{ value: '0360002914' }] }, /barcode\.add\.upca\[0\].*11 digits/],
      [{ code39: [{ value: 'lower case' }] }, /barcode\.add\.code39\[0\].*capital letters/],
      [{ itf: [{ value: '12345' }] }, /barcode\.add\.itf\[0\].*even/],
      [{ code128: [{ value: 'Grüße' }] }, /barcode\.add\.code128\[0\].*ASCII/],
      [{ qrcode: [{ value: '' }] }, /barcode\.add\.qrcode\[0\]\.value.*empty/],
    ];
    for (const [add, message] of cases) {
      const outcome = await barcode(uploaded.documentId, { barcode: { add } });
      expect(outcome.status, JSON.stringify(add)).toBe(400);
      expect(outcome.contentType).toBe('application/json');
      expect(outcome.error?.errorCode).toBe(-190);
      expect(outcome.error?.errorMessage).toMatch(message);
    }
    expect(await storedSha(uploaded.documentId)).toBe(before);
  });

  it('answers 400 naming the field for bad payloads: no codes, a bad page selection, a bad enum; a Swiss QR bill content by uri is refused as unsupported (-104)', async () => {
    const uploaded = await upload(await realPdf(2), 'two.pdf');
    const before = await storedSha(uploaded.documentId);
    const empty = await barcode(uploaded.documentId, { barcode: { add: { qrcode: [] } } });
    expect(empty.status).toBe(400);
    expect(empty.error?.errorMessage).toMatch(/barcode\.add/);
    const pages = await barcode(uploaded.documentId, { barcode: { add: { qrcode: [{ value: 'x', pages: '5' }] } } });
    expect(pages.status).toBe(400);
    expect(pages.error?.errorMessage).toMatch(/barcode\.add\.qrcode\[0\]\.pages/);
    const level = await barcode(uploaded.documentId, { barcode: { add: { qrcode: [{ value: 'x', errorCorrection: 'z' }] } } });
    expect(level.status).toBe(400);
    expect(level.error?.errorCode).toBe(-14);
    const swiss = await barcode(uploaded.documentId, { barcode: { add: { qrswiss: [{ content: { source: 'uri', uri: 'https://example.com/bill.json' } }] } } });
    expect(swiss.status).toBe(400);
    expect(swiss.error?.errorCode).toBe(-104);
    expect(swiss.error?.errorMessage).toMatch(/barcode\.add\.qrswiss\[0\]\.content\.source/);
    expect(await storedSha(uploaded.documentId)).toBe(before);
  });

  it('prints the human-readable text of a linear code with showText (a Quire extension), as text pdftotext finds; without it, none', async () => {
    const uploaded = await upload(await realPdf(1), 'text.pdf');
    const box = { x: 20, y: 60, width: 50, height: 25 };
    const outcome = await barcode(uploaded.documentId, {
      barcode: { add: { ean13: [{ value: '590123412345', showText: true, position: box }], code128: [{ value: 'NO-TEXT', position: { ...box, y: 120 } }] } },
    });
    expect(outcome.status).toBe(303);
    const file = await download(uploaded.documentId);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toContain('5 901234 123457');
    expect(text).not.toContain('NO-TEXT');
    const read = (b: typeof box, name: string) =>
      zbar(renderPage(file, 1, scratch.file(name), { box: { x: b.x * MM, y: b.y * MM, width: b.width * MM, height: b.height * MM }, pad: 2 * MM, dpi: 300 }));
    expect(read(box, 'text-ean')).toEqual(['EAN-13:5901234123457']);
    expect(read({ ...box, y: 120 }, 'text-128')).toEqual(['CODE-128:NO-TEXT']);
  });

  it('applies QR error correction h: a bigger symbol for the same text', async () => {
    const uploaded = await upload(await realPdf(1), 'ec.pdf');
    const outcome = await barcode(uploaded.documentId, { barcode: { add: { qrcode: [{ value: 'error correction', errorCorrection: 'h', position: { x: 20, y: 20, width: 40, height: 40 } }] } } });
    expect(outcome.status).toBe(303);
    const file = await download(uploaded.documentId);
    expect(zbar(renderPage(file, 1, scratch.file('ec'), { box: { x: 20 * MM, y: 20 * MM, width: 40 * MM, height: 40 * MM }, pad: 2 * MM }))).toEqual(['QR-Code:error correction']);
  });
});

describe('barcode add outputFormat (images)', () => {
  it.each([
    ['png', 'PNG'],
    ['jpg', 'JPEG'],
    ['bmp', 'PC bitmap'],
    ['tif', 'TIFF'],
  ])('makes the result a %s image holding only the codes, at the dpi asked', async (format, magic) => {
    const uploaded = await upload(await realPdf(1), 'image.pdf');
    const outcome = await barcode(uploaded.documentId, {
      barcode: {
        add: {
          outputFormat: format,
          dpi: 200,
          qrcode: [{ value: `image ${format}`, position: { x: 20, y: 20, width: 30, height: 30 } }],
          code128: [{ value: 'IMG-128', position: { x: 60, y: 20, width: 50, height: 20 } }],
        },
      },
    });
    expect(outcome.status).toBe(303);
    const file = await download(uploaded.documentId, format);
    // Independent identification and size: file(1), and sharp's header read for the pixels.
    expect(execFileSync('file', ['-b', file], { encoding: 'utf8' })).toContain(magic);
    const sharp = (await import('sharp')).default;
    const png = scratch.file(`out-${format}.png`);
    // sharp cannot read BMP: the BMP is checked by its header, the others are turned into PNG for zbarimg.
    if (format === 'bmp') {
      const bytes = readFileSync(file);
      expect(Math.abs(bytes.readInt32LE(18) - (90 * 200) / 25.4)).toBeLessThan(3);
      expect(Math.abs(Math.abs(bytes.readInt32LE(22)) - (30 * 200) / 25.4)).toBeLessThan(3);
      return;
    }
    const meta = await sharp(file).metadata();
    // The union of the two rectangles: 20-110 mm wide, 20-50 mm tall, at 200 dpi.
    expect(Math.abs(meta.width! - (90 * 200) / 25.4)).toBeLessThan(3);
    expect(Math.abs(meta.height! - (30 * 200) / 25.4)).toBeLessThan(3);
    await sharp(file).flatten({ background: '#ffffff' }).extend({ top: 40, bottom: 40, left: 40, right: 40, background: '#ffffff' }).png().toFile(png);
    expect(zbar(png).sort()).toEqual(['CODE-128:IMG-128', `QR-Code:image ${format}`]);
  });
});

describe('barcode/new', () => {
  it('creates a new one-page A4 document named by ?name= with the codes on it', async () => {
    const outcome = await barcode('new?name=codes.pdf', { barcode: { add: { code128: [{ value: 'NEW-DOC', position: { x: 20, y: 20, width: 80, height: 20 } }] } } });
    expect(outcome.status).toBe(303);
    const id = /documents\/([0-9a-f]{32})\/info$/.exec(outcome.location ?? '')![1]!;
    const info = await json(await fetch(`${server.rest}/documents/${id}/info`, { headers: bearer(session.token) }));
    // The store keeps the name without its extension (DocumentFile.fileName / fileExtension).
    expect(info.fileName).toBe('codes');
    const file = await download(id);
    expect(pdfinfo(file)).toMatch(/Pages:\s+1\n/);
    expect(pdfinfo(file)).toMatch(/\(A4\)/);
    expect(zbar(renderPage(file, 1, scratch.file('new')))).toEqual(['CODE-128:NEW-DOC']);
  });
});
