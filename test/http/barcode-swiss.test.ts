import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { postWebService } from '../helpers/converter.js';
import { realPdf, sha256 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { infoField, pdfinfo, qpdfCheck, scratchDir, textOf } from '../helpers/pdf-tools.js';
import { javaZxing, javaZxingAvailable, MM, pageSizeMm, renderPage } from '../engines/barcode/readers.js';
import { EXAMPLE, EXAMPLE_PAYLOAD } from '../engines/barcode/swiss-example.js';

/**
 * `qrswiss` (the Swiss QR bill) through POST barcode/{documentId} and barcode/new: each pdf.mode,
 * content as JSON and as the plain payload, and the standard's checks (-190 naming the member) —
 * read back with pdfinfo, pdftotext and Java ZXing.
 */

const { server, session, upload, download } = useTestServer();
const scratch = scratchDir('barcode-swiss-http');
afterAll(() => scratch.remove());

const barcode = (path: string, body: unknown) => postWebService(`${server.rest}/barcode/${path}`, session.token, body);
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const jsonContent = (data: unknown = EXAMPLE) => ({ format: 'json', value: base64(JSON.stringify(data)) });
const storedSha = async (id: string) => sha256(readFileSync(await download(id)));

function pages(file: string): number {
  return Number(infoField(pdfinfo(file), 'Pages'));
}

/** The text of the QR code in `box` (mm from the page's top-left), read by Java ZXing on a 300 dpi render. */
function qrText(file: string, page: number, box: { x: number; y: number }, name: string): string | undefined {
  const png = renderPage(file, page, scratch.file(name), { dpi: 300, box: { x: box.x * MM, y: box.y * MM, width: 46 * MM, height: 46 * MM }, pad: 3 * MM });
  return javaZxing(png)?.text;
}

describe.skipIf(!javaZxingAvailable)('barcode add qrswiss', () => {
  it('appendAtEnd (the default) adds an A4 sheet with the bill at its foot, in the language asked', async () => {
    const uploaded = await upload(await realPdf(2), 'invoice.pdf');
    const outcome = await barcode(uploaded.documentId, { barcode: { add: { qrswiss: [{ content: jsonContent(), format: 'billPortraitSheet', language: 'en' }] } } });
    expect(outcome.status).toBe(303);
    const file = await download(uploaded.documentId);
    qpdfCheck(file);
    expect(pages(file)).toBe(3);
    expect(pageSizeMm(file, 3)).toEqual([210, 297]);
    expect(textOf(file, 3, 3)).toContain('Payment part');
    expect(textOf(file, 3, 3)).toContain('CH44 3199 9123 0008 8901 2');
    expect(qrText(file, 3, { x: 67, y: 192 + 17 }, 'append')).toBe(EXAMPLE_PAYLOAD);
  });

  it('insertBefore page 2 adds a 210 × 105 mm bill page there, from the plain payload', async () => {
    const uploaded = await upload(await realPdf(2), 'two.pdf');
    const outcome = await barcode(uploaded.documentId, {
      barcode: { add: { qrswiss: [{ content: { format: 'plain', value: base64(EXAMPLE_PAYLOAD) }, format: 'billOnly', language: 'it', pdf: { mode: 'insertBefore', page: 2 } }] } },
    });
    expect(outcome.status).toBe(303);
    const file = await download(uploaded.documentId);
    expect(pages(file)).toBe(3);
    expect(pageSizeMm(file, 2)).toEqual([210, 105]);
    expect(textOf(file, 2, 2)).toContain('Sezione pagamento');
    expect(qrText(file, 2, { x: 67, y: 17 }, 'insert')).toBe(EXAMPLE_PAYLOAD);
  });

  it('addToPage draws the code alone onto the page: at its position, or by default where it sits on a bill at the foot of the page', async () => {
    const uploaded = await upload(await realPdf(2), 'add.pdf');
    const outcome = await barcode(uploaded.documentId, {
      barcode: {
        add: {
          qrswiss: [
            { content: jsonContent(), format: 'codeOnly', pdf: { mode: 'addToPage', page: 2 }, position: { x: 20, y: 20, width: 46, height: 46 } },
            { content: jsonContent(), format: 'codeOnly', pdf: { mode: 'addToPage', page: 1 } },
          ],
        },
      },
    });
    expect(outcome.status).toBe(303);
    const file = await download(uploaded.documentId);
    expect(pages(file)).toBe(2);
    expect(qrText(file, 2, { x: 20, y: 20 }, 'add-given')).toBe(EXAMPLE_PAYLOAD);
    const [, height] = pageSizeMm(file, 1);
    expect(qrText(file, 1, { x: 67, y: height - 105 + 17 }, 'add-default')).toBe(EXAMPLE_PAYLOAD);
  });

  it('outputFormat png: the image holds the Swiss QR code alone (46 mm at the dpi asked), read back to the payload', async () => {
    const uploaded = await upload(await realPdf(1), 'image.pdf');
    const outcome = await barcode(uploaded.documentId, {
      barcode: { add: { outputFormat: 'png', dpi: 300, qrswiss: [{ content: jsonContent(), format: 'codeOnly', position: { x: 20, y: 20, width: 46, height: 46 } }] } },
    });
    expect(outcome.status).toBe(303);
    const file = await download(uploaded.documentId, 'png');
    const sharp = (await import('sharp')).default;
    const meta = await sharp(file).metadata();
    expect(Math.abs(meta.width! - (46 * 300) / 25.4)).toBeLessThan(3);
    expect(Math.abs(meta.height! - (46 * 300) / 25.4)).toBeLessThan(3);
    const padded = scratch.file('image-padded.png');
    await sharp(file).flatten({ background: '#ffffff' }).extend({ top: 60, bottom: 60, left: 60, right: 60, background: '#ffffff' }).png().toFile(padded);
    expect(javaZxing(padded)?.text).toBe(EXAMPLE_PAYLOAD);
  });

  it('barcode/new puts the bill on the new A4 page, at its foot', async () => {
    const outcome = await barcode('new?name=bill.pdf', { barcode: { add: { qrswiss: [{ content: jsonContent(), format: 'billOnly' }] } } });
    expect(outcome.status).toBe(303);
    const id = /documents\/([0-9a-f]{32})\/info$/.exec(outcome.location ?? '')![1]!;
    const file = await download(id);
    expect(pages(file)).toBe(1);
    expect(pageSizeMm(file, 1)).toEqual([210, 297]);
    expect(textOf(file)).toContain('Zahlteil');
    expect(qrText(file, 1, { x: 67, y: 192 + 17 }, 'new')).toBe(EXAMPLE_PAYLOAD);
  });
});

describe('barcode add qrswiss refusals', () => {
  it('refuses data that breaks the standard with 400 -190 naming the item and the member; the document stays as it was', async () => {
    const uploaded = await upload(await realPdf(1), 'bad.pdf');
    const before = await storedSha(uploaded.documentId);
    const cases: [unknown, RegExp][] = [
      [{ content: jsonContent({ ...EXAMPLE, creditor: { ...EXAMPLE.creditor, account: 'CH45 3199 9123 0008 8901 2' } }) }, /barcode\.add\.qrswiss\[0\]\.content creditor\.account/],
      [{ content: jsonContent({ ...EXAMPLE, reference: '210000000003139471430009018' }) }, /barcode\.add\.qrswiss\[0\]\.content reference/],
      [
        { content: jsonContent({ ...EXAMPLE, creditor: { ...EXAMPLE.creditor, account: 'CH93 0076 2011 6238 5295 7' }, reference: 'RF19539007547034' }) },
        /qrswiss\[0\]\.content reference.*check digits/,
      ],
      [{ content: { format: 'plain', value: base64(EXAMPLE_PAYLOAD.replace('CHF', 'USD')) } }, /qrswiss\[0\]\.content currency/],
      [{ content: { format: 'plain', value: base64(EXAMPLE_PAYLOAD.replace('EPD', 'END')) } }, /qrswiss\[0\]\.content\.value.*EPD/],
      [{ content: { format: 'json', value: base64('not json') } }, /qrswiss\[0\]\.content\.value.*not JSON/],
    ];
    for (const [item, message] of cases) {
      const outcome = await barcode(uploaded.documentId, { barcode: { add: { qrswiss: [item] } } });
      expect(outcome.status, JSON.stringify(item)).toBe(400);
      expect(outcome.contentType).toBe('application/json');
      expect(outcome.error?.errorCode).toBe(-190);
      expect(outcome.error?.errorMessage).toMatch(message);
    }
    const page = await barcode(uploaded.documentId, { barcode: { add: { qrswiss: [{ content: jsonContent(), pdf: { mode: 'insertBefore', page: 4 } }] } } });
    expect(page.status).toBe(400);
    expect(page.error?.errorMessage).toMatch(/barcode\.add\.qrswiss\[0\]\.pdf\.page/);
    expect(await storedSha(uploaded.documentId)).toBe(before);
  });
});
