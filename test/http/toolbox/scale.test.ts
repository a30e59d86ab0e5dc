import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, StandardFonts, degrees } from '@cantoo/pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { downloadToFile } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-scale-'));
const MM = 72 / 25.4;

/** An A4 page with "PAGE-1" and a link annotation over it; optionally turned by /Rotate 90. */
async function pageWithLink(rotation = 0): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([595, 842]);
  page.drawText('PAGE-1', { x: 50, y: 700, size: 24, font });
  page.setRotation(degrees(rotation));
  const link = document.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 700, 150, 724], Border: [0, 0, 0] });
  page.node.set(PDFName.of('Annots'), document.context.obj([document.context.register(link)]));
  return Buffer.from(await document.save());
}

/** pdfinfo -box of page 1: displayed size, rotation and the media box. */
function box(pdf: string): { width: number; height: number; rotation: number; media: number[] } {
  const out = execFileSync('pdfinfo', ['-box', '-f', '1', '-l', '1', pdf], { encoding: 'utf8' });
  const size = /^Page\s+1 size:\s+([\d.]+) x ([\d.]+)/m.exec(out)!;
  return {
    width: Number(size[1]),
    height: Number(size[2]),
    rotation: Number(/^Page\s+1 rot:\s+(\d+)/m.exec(out)![1]),
    media: /^Page\s+1 MediaBox:\s+(.*)$/m.exec(out)![1]!.trim().split(/\s+/).map(Number),
  };
}

/** Where poppler finds the word on page 1, as displayed (origin top left). */
function word(pdf: string, text = 'PAGE-1'): { x: number; y: number; height: number } {
  const html = execFileSync('pdftotext', ['-bbox', '-f', '1', '-l', '1', pdf, '-'], { encoding: 'utf8' });
  const match = new RegExp(`xMin="([\\d.]+)" yMin="([\\d.]+)" xMax="[\\d.]+" yMax="([\\d.]+)">${text}<`).exec(html)!;
  return { x: Number(match[1]), y: Number(match[2]), height: Number(match[3]) - Number(match[2]) };
}

/** The /Rect of the first annotation of page 1, as qpdf reads it. */
function linkRect(pdf: string): number[] {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', pdf], { encoding: 'utf8' })) as { qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>] };
  const annot = Object.values(json.qpdf[1]).find((o) => o.value?.['/Subtype'] === '/Link');
  return annot!.value!['/Rect'] as number[];
}

describe('toolbox scale', () => {
  const { server, session } = useTestServer();
  let original: { x: number; y: number; height: number };

  beforeAll(async () => {
    const file = path.join(scratch, 'original.pdf');
    writeFileSync(file, await pageWithLink());
    original = word(file);
  });

  const scale = (dimensions: Record<string, unknown>, options: Record<string, unknown> = {}) => [
    {
      scale: {
        scalePages: {
          pages: '',
          preserveAspectRatio: true,
          scaleBoxes: true,
          horizontalAlignment: 'left',
          verticalAlignment: 'top',
          ...options,
          dimensions: { left: 0, right: 0, top: 0, bottom: 0, coordinates: 'user', metrics: 'mm', width: 0, height: 0, ...dimensions },
        },
      },
    },
  ];
  const scaled = async (content: Buffer, dimensions: Record<string, unknown>, options: Record<string, unknown> = {}) => {
    const uploaded = await uploadFile(server.rest, session.token, content, 'page.pdf');
    await toolboxOk(server.rest, session.token, uploaded.documentId, scale(dimensions, options));
    return downloadToFile(server.rest, session.token, uploaded.documentId);
  };

  it('gives the page the target size and scales content and annotations into it, keeping the aspect ratio', async () => {
    const result = await scaled(await pageWithLink(), { width: 148, height: 210 });
    const factor = Math.min((148 * MM) / 595, (210 * MM) / 842);
    expect(box(result)).toMatchObject({ width: expect.closeTo(148 * MM, 1), height: expect.closeTo(210 * MM, 1), rotation: 0 });
    const moved = word(result);
    expect(moved.x).toBeCloseTo(original.x * factor, 0);
    expect(moved.y).toBeCloseTo(original.y * factor, 0);
    expect(moved.height).toBeCloseTo(original.height * factor, 0);
    const [x1, , x2, y2] = linkRect(result);
    expect(x1).toBeCloseTo(50 * factor, 1);
    expect(x2! - x1!).toBeCloseTo(100 * factor, 1);
    expect(210 * MM - y2!).toBeCloseTo((842 - 724) * factor, 1);
  });

  it('keeps the page size with scaleBoxes false, stretches without preserveAspectRatio, follows the ratio for a missing side', async () => {
    const factor = Math.min((148 * MM) / 595, (210 * MM) / 842);
    const kept = await scaled(await pageWithLink(), { width: 148, height: 210 }, { scaleBoxes: false });
    expect(box(kept)).toMatchObject({ width: 595, height: 842 });
    expect(word(kept).x).toBeCloseTo(original.x * factor, 0);
    expect(word(kept).y).toBeCloseTo(original.y * factor, 0);

    const stretched = await scaled(await pageWithLink(), { width: 100, height: 100 }, { preserveAspectRatio: false });
    expect(box(stretched)).toMatchObject({ width: expect.closeTo(100 * MM, 1), height: expect.closeTo(100 * MM, 1) });
    expect(word(stretched).x).toBeCloseTo((original.x * 100 * MM) / 595, 0);
    expect(word(stretched).height).toBeCloseTo((original.height * 100 * MM) / 842, 0);

    const widthOnly = await scaled(await numberedPdf(2), { width: 105, metrics: 'mm' }, { pages: '2' });
    expect(box(widthOnly)).toMatchObject({ width: 595, height: 842 }); // page 1 not selected
    const second = execFileSync('pdfinfo', ['-f', '2', '-l', '2', widthOnly], { encoding: 'utf8' });
    const [, w, h] = /^Page\s+2 size:\s+([\d.]+) x ([\d.]+)/m.exec(second)!;
    expect(Number(w)).toBeCloseTo(105 * MM, 0);
    expect(Number(h)).toBeCloseTo((105 * MM * 842) / 595, 0);
  });

  it('leaves the padding free and aligns the content where the ratio leaves room (points and inches too)', async () => {
    const result = await scaled(
      await pageWithLink(),
      { width: 595, height: 842, left: 20, right: 20, top: 20, bottom: 20, metrics: 'pt' },
      { verticalAlignment: 'center', horizontalAlignment: 'center' },
    );
    const factor = Math.min(555 / 595, 802 / 842);
    const spareY = 802 - 842 * factor;
    expect(box(result)).toMatchObject({ width: 595, height: 842 });
    expect(word(result).x).toBeCloseTo(20 + original.x * factor, 0);
    expect(word(result).y).toBeCloseTo(20 + spareY / 2 + original.y * factor, 0);

    const bottomRight = await scaled(await pageWithLink(), { width: 10, height: 10, metrics: 'in' }, { verticalAlignment: 'bottom', horizontalAlignment: 'right' });
    const f = Math.min(720 / 595, 720 / 842);
    expect(box(bottomRight)).toMatchObject({ width: 720, height: 720 });
    expect(word(bottomRight).x).toBeCloseTo(720 - 595 * f + original.x * f, 0);
    expect(word(bottomRight).y).toBeCloseTo(original.y * f, 0);
  });

  it('takes sizes and alignment as displayed on a rotated page', async () => {
    const file = path.join(scratch, 'rotated.pdf');
    writeFileSync(file, await pageWithLink(90));
    const before = word(file);
    const result = await scaled(readFileSync(file), { width: 148, height: 105 });
    const factor = Math.min((148 * MM) / 842, (105 * MM) / 595);
    const after = box(result);
    // pdfinfo gives the box unturned: it stays portrait, 105 × 148 mm, shown turned as 148 × 105 mm.
    expect(after).toMatchObject({ rotation: 90, width: expect.closeTo(105 * MM, 1), height: expect.closeTo(148 * MM, 1) });
    expect(after.media).toEqual([0, 0, expect.closeTo(105 * MM, 1), expect.closeTo(148 * MM, 1)]);
    expect(word(result).x).toBeCloseTo(before.x * factor, 0);
    expect(word(result).y).toBeCloseTo(before.y * factor, 0);

    // Bottom right in a square target: the spare room is left and above, however the page is turned.
    for (const rotation of [90, 180, 270]) {
      writeFileSync(file, await pageWithLink(rotation));
      const shown = word(file);
      const turned = rotation !== 180;
      const [width, height] = turned ? [842, 595] : [595, 842];
      const f = 400 / Math.max(width, height);
      const placed = word(await scaled(readFileSync(file), { width: 400, height: 400, metrics: 'pt' }, { horizontalAlignment: 'right', verticalAlignment: 'bottom' }));
      expect(placed.x, `rotation ${rotation}`).toBeCloseTo(400 - width * f + shown.x * f, 0);
      expect(placed.y, `rotation ${rotation}`).toBeCloseTo(400 - height * f + shown.y * f, 0);
    }
  });

  it('refuses missing or impossible dimensions, bad pages and unknown values (-14), leaving the document unchanged', async () => {
    const uploaded = await uploadFile(server.rest, session.token, await numberedPdf(2), 'two.pdf');
    const cases: [unknown[], RegExp | undefined][] = [
      [[{ scale: {} }], /toolbox\[0\]\.scale\.scalePages: required/],
      [[{ scale: { scalePages: { pages: '' } } }], /toolbox\[0\]\.scale\.scalePages\.dimensions: required/],
      [scale({}), /toolbox\[0\]\.scale\.scalePages\.dimensions: give the target width and height/],
      [scale({ width: 100 }, { preserveAspectRatio: false }), /without preserveAspectRatio both width and height/],
      [scale({ width: 100, height: 100, left: 60, right: 50 }), /toolbox\[0\]\.scale\.scalePages\.dimensions: the padding leaves no room on page 1/],
      [scale({ width: 100, height: 100 }, { pages: '3' }), /toolbox\[0\]\.scale\.scalePages\.pages: Page 3 is out of range: the document has 2 pages/],
      [scale({ width: 100, height: 100, metrics: 'cm' }), undefined],
      [scale({ width: 100, height: 100 }, { horizontalAlignment: 'middle' }), undefined],
      [scale({ width: -5, height: 100 }), undefined],
    ];
    for (const [toolbox, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, uploaded.documentId, toolbox);
      expect(outcome, JSON.stringify(toolbox)).toMatchObject({ status: 400, error: { errorCode: -14 } });
      if (message) expect(outcome.error?.errorMessage).toMatch(message);
    }
    expect(await info(server.rest, session.token, uploaded.documentId)).toMatchObject({ fileSize: uploaded.fileSize, isFileLocked: false });
    expect(box(await downloadToFile(server.rest, session.token, uploaded.documentId))).toMatchObject({ width: 595, height: 842 });
  });

  it('scales a protected PDF with its password (-5008 for a wrong one) and refuses a damaged one (-7)', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(1));
    execFileSync('qpdf', ['--encrypt', 'pw', 'owner', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    const a5 = scale({ width: 148, height: 210 });
    expect((await runToolbox(server.rest, session.token, locked.documentId, a5, { password: { open: 'x' } })).error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, a5, { password: { open: 'pw' } });
    const result = await downloadToFile(server.rest, session.token, locked.documentId);
    const out = execFileSync('pdfinfo', ['-upw', 'pw', result], { encoding: 'utf8' });
    expect(out).toMatch(/^Encrypted:\s+yes/m);
    expect(Number(/^Page size:\s+([\d.]+)/m.exec(out)![1])).toBeCloseTo(148 * MM, 0);

    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\nnot a PDF body\n'), 'damaged.pdf');
    expect((await runToolbox(server.rest, session.token, damaged.documentId, a5)).error).toMatchObject({ errorCode: -7 });
  });
});
