import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pdfFacts } from '../../helpers/converter.js';
import { info } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-compress-'));
let counter = 0;

/** qpdf's rewrite of `source` with uncompressed streams and no object streams: a PDF with room to shrink. */
function uncompressed(source: Buffer, extra: string[] = []): Buffer {
  const input = path.join(scratch, `in-${counter}.pdf`);
  const output = path.join(scratch, `out-${counter++}.pdf`);
  writeFileSync(input, source);
  execFileSync('qpdf', ['--compress-streams=n', '--object-streams=disable', '--decode-level=generalized', ...extra, input, output]);
  return readFileSync(output);
}

/** Objects per object stream, from qpdf's cross-reference listing; and the objects outside any. */
function objectStreams(file: string, password = ''): { sizes: number[]; uncompressed: number } {
  const xref = execFileSync('qpdf', [`--password=${password}`, '--show-xref', file], { encoding: 'utf8' });
  const perStream = new Map<string, number>();
  let outside = 0;
  for (const line of xref.split('\n')) {
    const match = /compressed; stream = (\d+)/.exec(line);
    if (match) perStream.set(match[1]!, (perStream.get(match[1]!) ?? 0) + 1);
    else if (/uncompressed/.test(line)) outside++;
  }
  return { sizes: [...perStream.values()], uncompressed: outside };
}

/** Every stream's /Filter, from qpdf's JSON. */
function streamFilters(file: string): string[] {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as {
    qpdf: [unknown, Record<string, { stream?: { dict: Record<string, unknown> } }>];
  };
  return Object.values(json.qpdf[1])
    .filter((object) => object.stream)
    .map((object) => JSON.stringify(object.stream!.dict['/Filter'] ?? null));
}

function imagesList(file: string): string[] {
  // pdfimages -list: page num type width height color comp bpc enc interp object ID ...; keep what must not change.
  return execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/))
    .map((cells) => [cells[0], cells[2], cells[3], cells[4], cells[5], cells[7], cells[8], cells[13]].join(' '));
}

/** Two pages: a JPEG photo-like image and a Flate (PNG) image. */
async function pdfWithImages(): Promise<Buffer> {
  const raw = Buffer.alloc(300 * 200 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 37) % 251;
  const jpeg = await sharp(raw, { raw: { width: 300, height: 200, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
  const png = await sharp(raw, { raw: { width: 300, height: 200, channels: 3 } })
    .png()
    .toBuffer();
  const document = await PDFDocument.create();
  const first = document.addPage([595, 842]);
  first.drawImage(await document.embedJpg(jpeg), { x: 50, y: 400, width: 300, height: 200 });
  const second = document.addPage([595, 842]);
  second.drawImage(await document.embedPng(png), { x: 50, y: 400, width: 300, height: 200 });
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

describe('toolbox compress', () => {
  const { server, session, upload, download } = useTestServer();

  it('shrinks a PDF: every stream Flate-compressed, objects packed 200 to a stream by default, content intact', async () => {
    const original = uncompressed(await numberedPdf(40));
    const uploaded = await upload(original);
    expect(objectStreams(await download(uploaded.documentId)).sizes).toEqual([]);
    const result = await toolboxOk(server.rest, session.token, uploaded.documentId, [{ compress: { compressObjects: { objectStreamSize: 200 } } }]);
    const file = await download(uploaded.documentId);
    expect(result.fileSize).toBe(statSync(file).size);
    expect(result.fileSize).toBeLessThan(original.length * 0.6);
    expect(execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).toMatch(/No syntax or stream encoding errors/);
    // Catalog, information, page tree, 40 pages, a font: 44 objects (fewer than 200) in one stream.
    const { sizes } = objectStreams(file);
    expect(sizes).toEqual([44]);
    expect(streamFilters(file).every((filter) => filter === '"/FlateDecode"')).toBe(true);
    const facts = pdfFacts(file);
    expect(facts.pages).toBe(40);
    for (const n of [1, 17, 40]) expect(facts.text).toContain(`PAGE-${n}`);
    expect(Number(facts.pdfVersion)).toBeGreaterThanOrEqual(1.5);

    // Without compressObjects the default size applies.
    const again = await upload(original);
    await toolboxOk(server.rest, session.token, again.documentId, [{ compress: {} }]);
    expect(objectStreams(await download(again.documentId)).sizes).toEqual(sizes);
  });

  it('packs exactly objectStreamSize objects per stream', async () => {
    const original = uncompressed(await numberedPdf(20));
    for (const size of [1, 7, 50]) {
      const uploaded = await upload(original);
      await toolboxOk(server.rest, session.token, uploaded.documentId, [{ compress: { compressObjects: { objectStreamSize: size } } }]);
      const file = await download(uploaded.documentId);
      const { sizes } = objectStreams(file);
      const total = sizes.reduce((a, b) => a + b, 0);
      expect(total, String(size)).toBe(24);
      expect(
        sizes.slice(0, -1).every((n) => n === size),
        String(size),
      ).toBe(true);
      expect(sizes.at(-1), String(size)).toBe(total - size * (sizes.length - 1));
      expect(pdfFacts(file).text).toContain('PAGE-20');
    }
  });

  it('keeps images as they are (lossless: same size, colour and encoding)', async () => {
    const original = uncompressed(await pdfWithImages());
    const uploaded = await upload(original);
    const before = imagesList(await download(uploaded.documentId));
    expect(before).toHaveLength(2);
    expect(before[0]).toContain('jpeg');
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ compress: { compressObjects: { objectStreamSize: 200 } } }]);
    const file = await download(uploaded.documentId);
    expect(imagesList(file)).toEqual(before);
    expect(statSync(file).size).toBeLessThan(original.length);
    // The Flate image decodes to the same pixels.
    const pixels = (f: string) => {
      const prefix = path.join(scratch, `px-${counter++}`);
      execFileSync('pdfimages', ['-f', '2', '-l', '2', '-png', f, prefix]);
      return readFileSync(`${prefix}-000.png`);
    };
    const beforeFile = path.join(scratch, `before-${counter++}.pdf`);
    writeFileSync(beforeFile, original);
    expect(pixels(file).equals(pixels(beforeFile))).toBe(true);
  });

  it('keeps the protection of a protected PDF', async () => {
    const input = path.join(scratch, `plain-${counter}.pdf`);
    const output = path.join(scratch, `locked-${counter++}.pdf`);
    writeFileSync(input, uncompressed(await numberedPdf(10)));
    execFileSync('qpdf', ['--encrypt', 'geheim', 'owner', '256', '--', input, output]);
    const locked = await upload(readFileSync(output), 'locked.pdf');
    expect((await runToolbox(server.rest, session.token, locked.documentId, [{ compress: {} }], { password: { open: 'wrong' } })).error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [{ compress: {} }], { password: { open: 'geheim' } });
    const file = await download(locked.documentId);
    expect(spawnSync('qpdf', ['--show-npages', file]).status).toBe(2);
    expect(objectStreams(file, 'geheim').sizes.length).toBeGreaterThan(0);
    expect(pdfFacts(file, 'geheim').text).toContain('PAGE-10');
  });

  it('refuses bad sizes (-14) and damaged PDFs (-7), leaving the document as it was', async () => {
    const uploaded = await upload(await numberedPdf(2));
    for (const compressObjects of [{ objectStreamSize: 0 }, { objectStreamSize: 'many' }, { objectStreamSize: 2.5 }, { objectStreamSize: 1_000_000 }]) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, [{ compress: { compressObjects } }]);
      expect(outcome.error, JSON.stringify(compressObjects)).toMatchObject({ errorCode: -14 });
      expect(outcome.error?.errorMessage, JSON.stringify(compressObjects)).toMatch(/objectStreamSize/);
    }
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize });

    const damaged = await upload(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('garbage '.repeat(100))]), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, [{ compress: {} }])).error).toMatchObject({ errorCode: -7 });
  });

  it('repairs a PDF with a broken cross-reference table while compressing', async () => {
    // Every offset in the table is wrong and the trailer lacks /Size (qpdf 11.3 writes a broken
    // cross-reference stream for such files when it generates object streams itself).
    const text = uncompressed(await numberedPdf(3))
      .toString('latin1')
      .replace(/^(\d{10}) 00000 n/gm, (_, offset: string) => `${String(Number(offset) + 7).padStart(10, '0')} 00000 n`)
      .replace(/\/Size \d+/, '');
    expect(text).not.toContain('/Size');
    const uploaded = await upload(Buffer.from(text, 'latin1'), 'broken.pdf');
    await toolboxOk(server.rest, session.token, uploaded.documentId, [{ compress: {} }]);
    const file = await download(uploaded.documentId);
    expect(execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).toMatch(/No syntax or stream encoding errors/);
    expect(pdfFacts(file).text).toContain('PAGE-3');
  });
});
