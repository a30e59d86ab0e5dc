import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { PDFDocument, rgb, StandardFonts } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ghostscript } from '../../../src/engines/ghostscript/ghostscript.js';
import { findSrgbProfile } from '../../../src/engines/ghostscript/pdfa.js';
import { PdfRewriter } from '../../../src/engines/pdf/rewriter.js';
import { PdfaService } from '../../../src/operations/pdfa/pdfa-service.js';
import type { PdfaRequest } from '../../../src/operations/pdfa/pdfa.schema.js';
import { openTestStore, type TestStore } from '../transaction/store.js';
import { protectedCopy, textImagePdf } from './inputs.js';
import { preflight1b, preflightAvailable } from './preflight.js';

/**
 * Varied real inputs converted to PDF/A-1b by the service, each judged by Apache PDFBox preflight (an
 * independent PDF/A-1b validator) and never called compliant by ours unless it is: transparency
 * (flattened for part 1), form fields, JavaScript and a hidden annotation, a scanned-like page, a
 * protected file, non-ASCII metadata.
 */

async function transparency(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([595, 842]);
  page.drawText('Half-transparent red box below', { x: 50, y: 760, size: 18, font });
  page.drawRectangle({ x: 50, y: 500, width: 300, height: 200, color: rgb(1, 0, 0), opacity: 0.4 });
  return Buffer.from(await document.save());
}

async function form(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  const fields = document.getForm();
  const name = fields.createTextField('name');
  name.setText('Jane Doe');
  name.addToPage(page, { x: 50, y: 700 });
  const ok = fields.createCheckBox('ok');
  ok.check();
  ok.addToPage(page, { x: 50, y: 650 });
  return Buffer.from(await document.save());
}

async function scanned(): Promise<Buffer> {
  const pixels = Buffer.alloc(1240 * 1754);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i % 1240) % 97 < 3 || ((i / 1240) | 0) % 41 < 2 ? 30 : 235;
  const jpeg = await sharp(pixels, { raw: { width: 1240, height: 1754, channels: 1 } })
    .jpeg({ quality: 80 })
    .toBuffer();
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  page.drawImage(await document.embedJpg(jpeg), { x: 0, y: 0, width: 595, height: 842 });
  return Buffer.from(await document.save());
}

const request = (password?: string): PdfaRequest =>
  ({
    pdfa: { convert: { level: '1b', errorReport: 'none', successReport: 'none', imageQuality: 75, autoTagging: false } },
    ...(password ? { password: { open: password } } : {}),
  }) as unknown as PdfaRequest;

describe.skipIf(!preflightAvailable)('PDF/A-1b results accepted by PDFBox preflight', () => {
  let store: TestStore;
  let service: PdfaService;

  beforeAll(async () => {
    store = await openTestStore();
    service = new PdfaService(
      { documents: store.documents, credentials: store.credentials },
      { ghostscript: new Ghostscript(), rewriter: new PdfRewriter({ timeoutMs: 60_000 }), iccProfile: findSrgbProfile() },
      120_000,
    );
  });
  afterAll(() => store.close());

  const cases: [string, () => Promise<Buffer>, string?][] = [
    ['text, image, JavaScript at open, a hidden annotation, a non-ASCII title', () => textImagePdf({ pages: 3, javascript: true, hiddenAnnotation: true })],
    ['transparency (flattened for part 1)', transparency],
    ['form fields', form],
    ['a scanned-like page (one greyscale JPEG)', scanned],
    ['a protected file, with its password', async () => protectedCopy(await textImagePdf({ pages: 1 }), 'pw'), 'pw'],
  ];

  it.each(cases)('%s', async (_name, make, password) => {
    const record = await store.upload(await make(), 'input.pdf');
    const { warnings } = await service.run(store.session, record.id, request(password), 'json');
    expect(warnings[0]).toMatch(/^PDF\/A-1b validation: (compliant|inconclusive)/);
    const file = path.join(store.dataDir, `checked-${record.id}.pdf`);
    await copyFile(store.storedFile(record.id), file);
    const checked = preflight1b(file);
    expect(checked.valid, checked.output).toBe(true);
  });
});
