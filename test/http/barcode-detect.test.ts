import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PDFDocument } from '@cantoo/pdf-lib';
import bwipjs from 'bwip-js';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer, json, login } from '../helpers/client.js';
import { postWebService } from '../helpers/converter.js';
import { realPdf, sha256 } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../helpers/server.js';
import { scratchDir } from '../helpers/pdf-tools.js';

/**
 * POST barcode/{documentId} with detect (reference §10.6) on a real server: codes drawn by other
 * tools (qrencode; bwip-js PNGs placed by pdf-lib; a TIFF made by sharp from them), pages rendered by
 * pdftoppm, read by zxing-wasm in the worker pool; the report checked for values, pages and positions.
 * Round trip: add → detect reports the add call's positions.
 */

const { server, session, upload, download } = useTestServer();
const scratch = scratchDir('barcode-detect');
afterAll(() => scratch.remove());

const barcode = (path: string, body: unknown) => postWebService(`${server.rest}/barcode/${path}`, session.token, body);
const MM = 72 / 25.4;

/** qrencode's PNG of `text`: 10 px modules, 4-module quiet zone. */
function qrencode(text: string): Buffer {
  const file = scratch.file(`qr-${sha256(Buffer.from(text)).slice(0, 8)}.png`);
  execFileSync('qrencode', ['-s', '10', '-m', '4', '-o', file, text]);
  return readFileSync(file);
}

/** A PDF whose pages carry PNG codes at given places (mm from the top-left). */
async function pdfWithImages(pages: { png: Buffer; x: number; y: number; size: number }[][]): Promise<Buffer> {
  const document = await PDFDocument.create();
  for (const images of pages) {
    const page = document.addPage([595.28, 841.89]);
    for (const { png, x, y, size } of images) {
      const image = await document.embedPng(png);
      const height = (size * image.height) / image.width;
      page.drawImage(image, { x: x * MM, y: 841.89 - (y + height) * MM, width: size * MM, height: height * MM });
    }
  }
  return Buffer.from(await document.save());
}

async function reportOf(documentId: string, extension: 'json' | 'xml'): Promise<string> {
  return readFileSync(await download(documentId, extension), 'utf8');
}

describe('barcode detect', () => {
  it('finds codes drawn by qrencode and bwip-js on the pages of a PDF: values, pages, positions in mm from the top-left', async () => {
    const ean = await bwipjs.toBuffer({ bcid: 'ean13', text: '590123412345', scale: 3, height: 15, backgroundcolor: 'FFFFFF', paddingwidth: 10, paddingheight: 10 });
    const pdf = await pdfWithImages([
      [{ png: qrencode('first page'), x: 20, y: 30, size: 40 }],
      [],
      [
        { png: qrencode('third page'), x: 100, y: 150, size: 50 },
        { png: ean, x: 20, y: 200, size: 60 },
      ],
    ]);
    const uploaded = await upload(pdf, 'codes.pdf');
    const outcome = await barcode(uploaded.documentId, { barcode: { detect: { selection: [{ formats: 'qrcode,ean13' }] } } });
    expect(outcome.status).toBe(303);
    const report = JSON.parse(await reportOf(uploaded.documentId, 'json')).barcodes;
    const results = report.results as { format: string; value: string; raw: string; page: number; position: Record<string, unknown>; rotation: number }[];
    expect(results.map((r) => [r.page, r.format, r.value]).sort()).toEqual([
      [1, 'qrcode', 'first page'],
      [3, 'ean13', '5901234123457'],
      [3, 'qrcode', 'third page'],
    ]);
    const first = results.find((r) => r.value === 'first page')!;
    expect(Buffer.from(first.raw, 'base64').toString('utf8')).toBe('first page');
    expect(first.rotation).toBe(0);
    // qrencode's symbol is 21 modules inside a 4-module quiet zone: 40 mm × 21/29 = 29 mm, 5.5 mm in.
    const quiet = (40 * 4) / 29;
    expect(first.position).toMatchObject({ metrics: 'mm', coordinates: 'user' });
    expect(first.position.x as number).toBeCloseTo(20 + quiet, 0);
    expect(first.position.y as number).toBeCloseTo(30 + quiet, 0);
    expect(first.position.width as number).toBeCloseTo((40 * 21) / 29, 0);
  });

  it('round trip: codes added by barcode add are reported at the add call positions, turned codes with their rotation, in the units of the scanArea', async () => {
    const uploaded = await upload(await realPdf(2), 'trip.pdf');
    const added = await barcode(uploaded.documentId, {
      barcode: {
        add: {
          qrcode: [{ value: 'round trip', pages: '2', position: { x: 30, y: 40, width: 30, height: 30 } }],
          datamatrix: [{ value: 'matrix', pages: '1', position: { x: 120, y: 40, width: 20, height: 20 } }],
          code128: [{ value: 'TURNED', pages: '1', rotation: 90, position: { x: 30, y: 120, width: 20, height: 60 } }],
        },
      },
    });
    expect(added.status).toBe(303);
    const outcome = await barcode(uploaded.documentId, { barcode: { detect: { selection: [{ formats: 'qrcode,datamatrix,code128' }] } } });
    expect(outcome.status).toBe(303);
    const results = JSON.parse(await reportOf(uploaded.documentId, 'json')).barcodes.results as {
      format: string;
      value: string;
      page: number;
      position: { x: number; y: number; width: number; height: number };
      rotation: number;
    }[];
    const byValue = new Map(results.map((r) => [r.value, r]));
    expect([...byValue.keys()].sort()).toEqual(['TURNED', 'matrix', 'round trip']);
    const qr = byValue.get('round trip')!;
    expect(qr.page).toBe(2);
    for (const [key, value] of Object.entries({ x: 30, y: 40, width: 30, height: 30 })) expect(Math.abs(qr.position[key as 'x'] - value)).toBeLessThan(0.6);
    const dm = byValue.get('matrix')!;
    for (const [key, value] of Object.entries({ x: 120, y: 40, width: 20, height: 20 })) expect(Math.abs(dm.position[key as 'x'] - value)).toBeLessThan(0.6);
    const turned = byValue.get('TURNED')!;
    expect(turned.rotation).toBe(90);
    expect(Math.abs(turned.position.x - 30)).toBeLessThan(1);
    expect(Math.abs(turned.position.height - 60)).toBeLessThan(1);
  });

  it('reports in pdf coordinates and points when the scanArea is given so (the whole page: width and height 0)', async () => {
    const uploaded = await upload(await realPdf(1), 'pdfunits.pdf');
    const added = await barcode(uploaded.documentId, {
      barcode: { add: { qrcode: [{ value: 'from the bottom', position: { x: 100, y: 50, width: 80, height: 80, metrics: 'pt', coordinates: 'pdf' } }] } },
    });
    expect(added.status).toBe(303);
    const outcome = await barcode(uploaded.documentId, {
      barcode: { detect: { selection: [{ formats: 'qrcode', scanArea: { x: 0, y: 0, width: 0, height: 0, metrics: 'pt', coordinates: 'pdf' } }] } },
    });
    expect(outcome.status).toBe(303);
    const [code] = JSON.parse(await reportOf(uploaded.documentId, 'json')).barcodes.results as { value: string; position: Record<string, number | string> }[];
    expect(code!.value).toBe('from the bottom');
    expect(code!.position).toMatchObject({ metrics: 'pt', coordinates: 'pdf' });
    for (const [key, value] of Object.entries({ x: 100, y: 50, width: 80, height: 80 })) expect(Math.abs((code!.position[key] as number) - value)).toBeLessThan(1.5);
  });

  it('writes the same content as XML, and restricts to a scanArea and to formats', async () => {
    const pdf = await pdfWithImages([
      [
        { png: qrencode('left'), x: 10, y: 10, size: 40 },
        { png: qrencode('right'), x: 120, y: 10, size: 40 },
      ],
    ]);
    const uploaded = await upload(pdf, 'area.pdf');
    const outcome = await barcode(uploaded.documentId, {
      barcode: { detect: { outputFormat: 'xml', selection: [{ formats: 'qrcode', scanArea: { x: 100, y: 0, width: 100, height: 80, metrics: 'mm' } }] } },
    });
    expect(outcome.status).toBe(303);
    const xml = await reportOf(uploaded.documentId, 'xml');
    // Independent XML parser: Python's ElementTree.
    const parsed = execFileSync(
      'python3',
      [
        '-c',
        'import sys,xml.etree.ElementTree as E;r=E.fromstring(sys.stdin.read());print("|".join(b.get("format")+":"+b.find("value").text+":"+b.get("page")+":"+b.find("position").get("x") for b in r))',
      ],
      { input: xml, encoding: 'utf8' },
    ).trim();
    const [format, value, page, x] = parsed.split(':');
    expect([format, value, page]).toEqual(['qrcode', 'right', '1']);
    expect(Number(x)).toBeCloseTo(120 + (40 * 4) / 29, 0);

    const none = await upload(pdf, 'none.pdf');
    expect((await barcode(none.documentId, { barcode: { detect: { selection: [{ formats: 'ean8' }] } } })).status).toBe(303);
    expect(JSON.parse(await reportOf(none.documentId, 'json')).barcodes.results).toEqual([]);
  });

  it('reads every frame of a multi-page TIFF with inputFormat img', async () => {
    const sharp = (await import('sharp')).default;
    const one = await sharp(qrencode('frame one')).greyscale().raw().toBuffer({ resolveWithObject: true });
    const two = await sharp(qrencode('frame two')).greyscale().raw().toBuffer({ resolveWithObject: true });
    // Two frames of the same size, stacked as pages of one TIFF.
    const stacked = Buffer.concat([one.data, two.data]);
    const tiff = await sharp(stacked, { raw: { width: one.info.width, height: one.info.height * 2, channels: 1, pageHeight: one.info.height } as never })
      .tiff({ compression: 'lzw' })
      .toBuffer();
    const uploaded = await upload(tiff, 'frames.tif');
    const outcome = await barcode(uploaded.documentId, { barcode: { detect: { inputFormat: 'img', selection: [{ formats: 'qrcode' }] } } });
    expect(outcome.status).toBe(303);
    const results = JSON.parse(await reportOf(uploaded.documentId, 'json')).barcodes.results as { value: string; page: number }[];
    expect(results.map((r) => [r.page, r.value]).sort()).toEqual([
      [1, 'frame one'],
      [2, 'frame two'],
    ]);
  });

  it('answers 400 naming the field for an unknown format, a page past the end and the wrong input format; the document stays as it was', async () => {
    const uploaded = await upload(await realPdf(1), 'bad.pdf');
    const before = sha256(readFileSync(await download(uploaded.documentId)));
    const unknown = await barcode(uploaded.documentId, { barcode: { detect: { selection: [{ formats: 'qrcode,maxicode' }] } } });
    expect(unknown.status).toBe(400);
    expect(unknown.error?.errorMessage).toMatch(/barcode\.detect\.selection\[0\]\.formats.*maxicode/);
    const pages = await barcode(uploaded.documentId, { barcode: { detect: { selection: [{ formats: '', pages: '3' }] } } });
    expect(pages.status).toBe(400);
    expect(pages.error?.errorMessage).toMatch(/barcode\.detect\.selection\[0\]\.pages/);
    const img = await barcode(uploaded.documentId, { barcode: { detect: { inputFormat: 'img', selection: [{ formats: '' }] } } });
    expect(img.status).toBe(400);
    expect(img.error?.errorMessage).toMatch(/inputFormat/);
    expect(sha256(readFileSync(await download(uploaded.documentId)))).toBe(before);
  });
});

describe('the detector pool of the server (engines-wiring)', () => {
  it('admin/server/status lists the barcode engine under the barcode service; after a detection the metrics count its jobs under engine="barcode"', async () => {
    const admin = bearer((await login(server.rest, { name: 'admin', password: ADMIN_PASSWORD })).token);
    const status = (await json(await fetch(`${server.rest}/admin/server/status`, { headers: admin }))) as { webservices: Record<string, { executables: Record<string, unknown> }> };
    expect(status.webservices.barcode?.executables.barcode).toEqual({ enabled: true, status: 'ok' });
    const uploaded = await upload(await pdfWithImages([[{ png: qrencode('counted'), x: 20, y: 30, size: 40 }]]), 'counted.pdf');
    expect((await barcode(uploaded.documentId, { barcode: { detect: { selection: [{ formats: 'qrcode' }] } } })).status).toBe(303);
    const metrics = await (await fetch(`${server.rest}/`, { headers: admin })).text();
    const jobs = /^quire_engine_jobs_total\{engine="barcode",result="ok"\} (\d+)$/m.exec(metrics);
    expect(Number(jobs?.[1])).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/^quire_engine_pool_size\{engine="barcode"\} \d+$/m);
  });
});
