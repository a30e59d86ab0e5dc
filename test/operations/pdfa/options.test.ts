import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PDFDocument } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Ghostscript, GhostscriptError } from '../../../src/engines/ghostscript/ghostscript.js';
import { convertRequest, pdfaService } from './service.js';
import { openTestStore, sha256, type TestStore } from '../transaction/store.js';
import { textImagePdf } from './inputs.js';

/**
 * `imageQuality` and `errorCorrection.enabled`, seen from outside: the JPEG quality of the images
 * Ghostscript must re-encode (a Flate photo becomes DCT: pdfimages shows the encoding and the bytes),
 * and the retry on qpdf's repaired rewrite when the conversion fails on the input itself.
 */

/** A page with a photo-like image stored losslessly (PNG → Flate), which pdfwrite re-encodes as JPEG. */
async function flatePhotoPdf(): Promise<Buffer> {
  const width = 600;
  const height = 400;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = (128 + 100 * Math.sin(x / 23) * Math.cos(y / 17)) & 0xff;
      pixels[i + 1] = (128 + 90 * Math.sin((x + y) / 31)) & 0xff;
      pixels[i + 2] = ((x * y) / 300 + ((x * 7919 + y * 104729) % 37)) & 0xff;
    }
  const png = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  page.drawImage(await document.embedPng(png), { x: 50, y: 300, width: 480, height: 320 });
  return Buffer.from(await document.save());
}

/** pdfimages -list: encoding and size in bytes of the first image. */
function firstImage(file: string): { encoding: string; bytes: number } {
  const row = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).split('\n')[2]!.trim().split(/\s+/);
  // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
  const size = row[14]!;
  const unit = size.endsWith('K') ? 1024 : size.endsWith('M') ? 1024 * 1024 : 1;
  return { encoding: row[8]!, bytes: Number.parseFloat(size) * unit };
}

describe('pdfa convert options', () => {
  let store: TestStore;

  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(() => store.close());

  it('imageQuality: the images Ghostscript re-encodes as JPEG are smaller at quality 10 than at 95', async () => {
    const pdf = await flatePhotoPdf();
    const sizes: number[] = [];
    for (const imageQuality of [10, 95]) {
      const id = (await store.upload(pdf, 'photo.pdf')).id;
      await pdfaService(store).run(store.session, id, convertRequest('2b', { imageQuality }), 'json');
      const image = firstImage(store.storedFile(id));
      expect(image.encoding).toBe('jpeg');
      sizes.push(image.bytes);
    }
    expect(sizes[0]!).toBeLessThan(sizes[1]! * 0.6);
  });

  describe('errorCorrection', () => {
    let documentId: string;
    let before: string;
    let inputs: string[];

    beforeEach(async () => {
      documentId = (await store.upload(await textImagePdf({ pages: 1, image: false }), 'broken.pdf')).id;
      before = sha256(store.storedFile(documentId));
      inputs = [];
    });

    /** Ghostscript that fails on the stored input (as on syntax it cannot recover from) and is the real one on anything else. */
    function failingOnOriginal(): Pick<Ghostscript, 'pdfa'> {
      const real = new Ghostscript();
      const original = readFileSync(store.storedFile(documentId));
      return {
        pdfa: async (input, output, options) => {
          inputs.push(input);
          if (readFileSync(input).equals(original)) throw new GhostscriptError('failed', 'Ghostscript could not convert the PDF to PDF/A (exit 1)');
          return real.pdfa(input, output, options);
        },
      };
    }

    it('enabled: the conversion is retried on qpdf’s rewrite of the input (a different file qpdf finds sound) and stored', async () => {
      const { warnings } = await pdfaService(store, failingOnOriginal()).run(store.session, documentId, convertRequest('2b', { errorCorrection: { enabled: true } }), 'json');
      expect(warnings[0]).toMatch(/^PDF\/A-2b validation: (compliant|inconclusive)/);
      expect(inputs).toHaveLength(2);
      expect(sha256(store.storedFile(documentId))).not.toBe(before);
      expect(execFileSync('pdfinfo', ['-meta', store.storedFile(documentId)], { encoding: 'utf8' })).toMatch(/pdfaid:part/);
    });

    it('disabled (the default): the failure is the answer (-102) and the document is unchanged', async () => {
      const call = pdfaService(store, failingOnOriginal()).run(store.session, documentId, convertRequest('2b'), 'json');
      await expect(call).rejects.toMatchObject({ errorCode: -102 });
      expect(inputs).toHaveLength(1);
      expect(sha256(store.storedFile(documentId))).toBe(before);
    });
  });
});
