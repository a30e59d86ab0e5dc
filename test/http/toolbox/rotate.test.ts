import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts, degrees } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { downloadToFile } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-rotate-'));

/**
 * Four pages: 1 portrait (A4), 2 landscape by its box, 3 a portrait box turned by /Rotate 90 (shown
 * landscape), 4 a landscape box turned by /Rotate 270 (shown portrait).
 */
async function mixedPdf(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const pages: [number, number, number][] = [
    [595, 842, 0],
    [842, 595, 0],
    [595, 842, 90],
    [842, 595, 270],
  ];
  pages.forEach(([width, height, rotation], i) => {
    const page = document.addPage([width, height]);
    page.drawText(`PAGE-${i + 1}`, { x: 50, y: 300, size: 24, font });
    page.setRotation(degrees(rotation));
  });
  return Buffer.from(await document.save());
}

/** /Rotate of every page as qpdf reads it. */
function rotations(pdf: string, password?: string): number[] {
  const args = ['--json=2', '--json-key=pages', '--json-key=qpdf', ...(password ? [`--password=${password}`] : []), pdf];
  const json = JSON.parse(execFileSync('qpdf', args, { encoding: 'utf8' })) as { pages: { object: string }[]; qpdf: [unknown, Record<string, { value: Record<string, unknown> }>] };
  return json.pages.map((page) => Number(json.qpdf[1][`obj:${page.object}`]?.value['/Rotate'] ?? 0));
}

/** The same through poppler: pdfinfo's per-page "rot:" lines. */
function popplerRotations(pdf: string): number[] {
  const out = execFileSync('pdfinfo', ['-f', '1', '-l', '99', pdf], { encoding: 'utf8' });
  return [...out.matchAll(/^Page\s+\d+\s+rot:\s+(\d+)/gm)].map((m) => Number(m[1]));
}

describe('toolbox rotate', () => {
  const { server, session } = useTestServer();

  const rotate = (options: Record<string, unknown>) => [{ rotate: { pages: '1', degrees: 90, pageGroup: 'all', pageOrientation: 'any', orientationDetectMode: 'value', ...options } }];
  const rotated = async (content: Buffer, options: Record<string, unknown>) => {
    const uploaded = await uploadFile(server.rest, session.token, content, 'doc.pdf');
    await toolboxOk(server.rest, session.token, uploaded.documentId, rotate(options));
    return downloadToFile(server.rest, session.token, uploaded.documentId);
  };

  it('turns the selected pages clockwise, adding to their rotation', async () => {
    const first = await rotated(await numberedPdf(4), {});
    expect(rotations(first)).toEqual([90, 0, 0, 0]);
    expect(popplerRotations(first)).toEqual([90, 0, 0, 0]);
    expect(rotations(await rotated(await numberedPdf(4), { pages: '*', degrees: 270 }))).toEqual([270, 270, 270, 270]);
    expect(rotations(await rotated(await numberedPdf(4), { pages: '2-last', degrees: 360 }))).toEqual([0, 0, 0, 0]);
    expect(rotations(await rotated(await mixedPdf(), { pages: '', degrees: 180 }))).toEqual([180, 180, 270, 90]);
  });

  it('keeps only even or odd page numbers with pageGroup', async () => {
    expect(rotations(await rotated(await numberedPdf(5), { pages: '*', pageGroup: 'even' }))).toEqual([0, 90, 0, 90, 0]);
    expect(rotations(await rotated(await numberedPdf(5), { pages: '2-5', pageGroup: 'odd', degrees: 180 }))).toEqual([0, 0, 180, 0, 180]);
  });

  it('filters by orientation, from the /Rotate value or from the displayed size', async () => {
    const mixed = await mixedPdf();
    // value: landscape means /Rotate 90 or 270 (pages 3 and 4), whatever the box.
    expect(rotations(await rotated(mixed, { pages: '*', pageOrientation: 'landscape', orientationDetectMode: 'value' }))).toEqual([0, 0, 180, 0]);
    expect(rotations(await rotated(mixed, { pages: '*', pageOrientation: 'portrait', orientationDetectMode: 'value' }))).toEqual([90, 90, 90, 270]);
    // dimensions: the size as displayed, rotation applied: pages 2 and 3 are shown landscape.
    expect(rotations(await rotated(mixed, { pages: '*', pageOrientation: 'landscape', orientationDetectMode: 'dimensions' }))).toEqual([0, 90, 180, 270]);
    expect(rotations(await rotated(mixed, { pages: '*', pageOrientation: 'portrait', orientationDetectMode: 'dimensions' }))).toEqual([90, 0, 90, 0]);
  });

  it('refuses degrees that are no multiple of 90, bad page ranges and unknown enum values (-14), leaving the document unchanged', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(3), 'three.pdf');
    const cases: [Record<string, unknown>, RegExp | undefined][] = [
      [{ degrees: 45 }, /toolbox\[0\]\.rotate\.degrees: 45 is not a multiple of 90/],
      [{ degrees: 450 }, undefined],
      [{ pages: '2-9' }, /toolbox\[0\]\.rotate\.pages: Page 9 is out of range: the document has 3 pages/],
      [{ pageGroup: 'prime' }, undefined],
      [{ pageOrientation: 'square' }, undefined],
      [{ orientationDetectMode: 'guess' }, undefined],
    ];
    for (const [options, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, rotate(options));
      expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: -14 } });
      if (message) expect(outcome.error?.errorMessage).toMatch(message);
    }
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize, isFileLocked: false });
    expect(rotations(await downloadToFile(server.rest, session.token, uploaded.documentId))).toEqual([0, 0, 0]);
  });

  it('works on a protected PDF with its password (-5008 for a wrong one), keeping the protection, and refuses a damaged one (-7)', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(2));
    execFileSync('qpdf', ['--encrypt', 'pw', 'owner', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    expect((await runToolbox(server.rest, session.token, locked.documentId, rotate({}), { password: { open: 'x' } })).error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, rotate({ pages: '2' }), { password: { open: 'pw' } });
    const result = await downloadToFile(server.rest, session.token, locked.documentId);
    expect(() => rotations(result)).toThrow();
    expect(rotations(result, 'pw')).toEqual([0, 90]);

    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\nnot a PDF body\n'), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, rotate({}))).error).toMatchObject({ errorCode: -7 });
  });
});
