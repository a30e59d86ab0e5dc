import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { degrees, PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fonts, pageText, pdfFacts } from '../../helpers/converter.js';
import { info } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf, runToolbox, toolboxOk } from '../../helpers/toolbox.js';
import { wordBoxes } from '../../helpers/pdf-tools.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-watermark-'));
const MM = 72 / 25.4;

type QpdfObject = { value?: Record<string, unknown>; stream?: { dict: Record<string, unknown> } };

/** Every object of a PDF as qpdf (an independent reader) sees it. */
function objects(file: string): Record<string, QpdfObject> {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 << 20 })) as { qpdf: [unknown, Record<string, QpdfObject>] };
  return json.qpdf[1];
}

/** Every dictionary of a PDF, direct ones nested in others included. */
function dictionaries(file: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      found.push(value as Record<string, unknown>);
      Object.values(value).forEach(visit);
    }
  };
  for (const o of Object.values(objects(file))) visit(o.value ?? o.stream?.dict);
  return found;
}

/** The watermark form XObjects (Acrobat's marking: /PieceInfo /ADBE_CompoundType /Private /Watermark). */
function watermarkForms(file: string): Record<string, unknown>[] {
  return dictionaries(file).filter((d) => (d['/PieceInfo'] as { '/ADBE_CompoundType'?: { '/Private'?: string } } | undefined)?.['/ADBE_CompoundType']?.['/Private'] === '/Watermark');
}

/** Page n's XObject names (resources), from qpdf. */
function pageXObjects(file: string, page: number): string[] {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=pages', file], { encoding: 'utf8' })) as { pages: { object: string }[] };
  const all = objects(file);
  // /Resources may be inherited from the page tree.
  let node = all[`obj:${json.pages[page - 1]!.object}`]!.value!;
  while (!node['/Resources'] && typeof node['/Parent'] === 'string') node = all[`obj:${node['/Parent']}`]!.value!;
  let resources = node['/Resources'] as Record<string, unknown> | string;
  if (typeof resources === 'string') resources = all[`obj:${resources}`]!.value!;
  return Object.keys((resources['/XObject'] as Record<string, unknown> | undefined) ?? {});
}

/** The page rendered by poppler, as RGB pixels. */
function render(file: string, page: number, dpi = 36): { width: number; height: number; pixel(x: number, y: number): [number, number, number] } {
  const out = path.join(scratch, `render-${Date.now()}-${Math.random().toString(16).slice(2)}`);
  execFileSync('pdftoppm', ['-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', file, out]);
  const ppm = readFileSync(`${out}.ppm`);
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.toString('latin1', 0, 40))!;
  const [width, height, offset] = [Number(header[1]), Number(header[2]), header[0].length];
  return {
    width,
    height,
    pixel: (x, y) => {
      const at = offset + 3 * (Math.round(y) * width + Math.round(x));
      return [ppm[at]!, ppm[at + 1]!, ppm[at + 2]!];
    },
  };
}

describe('toolbox watermark', () => {
  const { server, session, upload, download } = useTestServer();

  it('stamps the client example (page 2, 180°, default font) on page 2 only, as a watermark artifact', async () => {
    const doc = await upload(await numberedPdf(3));
    await toolboxOk(server.rest, session.token, doc.documentId, [{ watermark: { pages: '2', angle: 180, text: { text: 'testText' } } }]);
    const file = await download(doc.documentId);
    expect(pdfFacts(file).pages).toBe(3);
    expect(pageText(file, 2)).toContain('testText');
    expect(pageText(file, 1)).not.toContain('testText');
    expect(pageText(file, 3)).not.toContain('testText');
    expect(pageText(file, 2)).toContain('PAGE-2');
    // Defaults: Helvetica (standard font, not embedded), one form marked as Acrobat marks watermarks.
    expect(fonts(file)).toMatch(/Helvetica\s+Type 1\s+WinAnsi\s+no/);
    expect(watermarkForms(file)).toHaveLength(1);
    expect(pageXObjects(file, 2)).toEqual(['/QWm1']);
    expect(pageXObjects(file, 1)).toEqual([]);
  });

  it('draws text in the given colour, size and opacity (ExtGState), centred by default', async () => {
    const doc = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, doc.documentId, [{ watermark: { angle: 0, text: { text: 'MMMMMM', font: { size: 72, color: '#FF0000', opacity: 50 } } } }]);
    const file = await download(doc.documentId);
    const states = dictionaries(file).filter((d) => d['/Type'] === '/ExtGState');
    expect(states).toEqual([expect.objectContaining({ '/ca': 0.5, '/CA': 0.5 })]);
    const [word] = wordBoxes(file, 1).filter((w) => w.text === 'MMMMMM');
    expect(word).toBeDefined();
    // 72 pt text centred on the A4 page (595 × 842).
    expect((word!.xMin + word!.xMax) / 2).toBeCloseTo(297.5, -1);
    expect((word!.yMin + word!.yMax) / 2).toBeCloseTo(421, -1);
    expect(word!.yMax - word!.yMin).toBeGreaterThan(60);
    // Half-transparent red over white: pink where the glyphs are.
    const image = render(file, 1);
    const samples = Array.from({ length: 40 }, (_, i) => image.pixel((word!.xMin + (i / 40) * (word!.xMax - word!.xMin)) / 2, (word!.yMin + word!.yMax) / 2 / 2));
    expect(samples.some(([r, g, b]) => r > 200 && g < 180 && g > 60 && Math.abs(g - b) < 20)).toBe(true);
    expect(samples.every(([r, g]) => r >= g)).toBe(true);
  });

  it('places text at presets and custom positions in the given unit, on rotated pages as displayed', async () => {
    const document = await PDFDocument.create();
    const font = await document.embedFont(StandardFonts.Helvetica);
    document.addPage([595, 842]).drawText('upright', { x: 50, y: 700, size: 12, font });
    document.addPage([595, 842]).setRotation(degrees(90));
    const doc = await upload(Buffer.from(await document.save()));
    await toolboxOk(server.rest, session.token, doc.documentId, [
      { watermark: { angle: 0, text: { text: 'TopLeft', font: { size: 20 }, position: { position: 'top_left', x: 10, y: 20, metrics: 'mm' } } } },
      { watermark: { angle: 0, text: { text: 'BottomRight', font: { size: 20 }, position: { position: 'bottom_right', x: 36, y: 72, metrics: 'pt' } } } },
      { watermark: { angle: 0, text: { text: 'Custom', font: { size: 20 }, position: { position: 'custom', x: 2, y: 3, metrics: 'in' } } } },
    ]);
    const file = await download(doc.documentId);
    for (const [page, width, height] of [
      [1, 595, 842],
      [2, 842, 595],
    ] as const) {
      const found = Object.fromEntries(wordBoxes(file, page).map((w) => [w.text, w]));
      expect(found.TopLeft!.xMin, `page ${page}`).toBeCloseTo(10 * MM, 0);
      expect(found.TopLeft!.yMin).toBeGreaterThan(20 * MM - 2);
      expect(found.TopLeft!.yMin).toBeLessThan(20 * MM + 4);
      expect(found.BottomRight!.xMax).toBeGreaterThan(width - 36 - 3);
      expect(found.BottomRight!.xMax).toBeLessThanOrEqual(width - 36 + 0.5);
      expect(found.BottomRight!.yMax).toBeGreaterThan(height - 72 - 6);
      expect(found.BottomRight!.yMax).toBeLessThanOrEqual(height - 72 + 0.5);
      expect(found.Custom!.xMin).toBeCloseTo(144, 0);
      expect(found.Custom!.yMin).toBeGreaterThan(216 - 2);
      expect(found.Custom!.yMin).toBeLessThan(216 + 4);
    }
  });

  it('handles inherited resources, shared content streams and content that leaves its coordinate system changed', async () => {
    // Both pages inherit /Resources, /MediaBox from the page tree and share one content stream that
    // ends with an unbalanced "q … cm" (readers tolerate it); page 2 is turned upside down.
    const content = 'q 1 0 0 1 50 50 cm 2 0 0 2 0 0 cm BT /F1 12 Tf 0 0 Td (Shared) Tj ET';
    const raw = [
      '%PDF-1.4',
      '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
      '2 0 obj << /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /Resources << /Font << /F1 5 0 R >> >> /MediaBox [0 0 300 400] >> endobj',
      '3 0 obj << /Type /Page /Parent 2 0 R /Contents 6 0 R >> endobj',
      '4 0 obj << /Type /Page /Parent 2 0 R /Contents 6 0 R /Rotate 180 >> endobj',
      '5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj',
      `6 0 obj << /Length ${content.length} >> stream\n${content}\nendstream endobj`,
      'trailer << /Root 1 0 R >>',
      '%%EOF',
    ].join('\n');
    const source = path.join(scratch, 'shared.raw.pdf');
    writeFileSync(source, raw);
    // qpdf writes the cross-reference table the hand-made file lacks.
    const fixed = path.join(scratch, 'shared.pdf');
    try {
      execFileSync('qpdf', [source, fixed], { stdio: 'ignore' });
    } catch {
      // exit 3: repaired with warnings
    }
    const doc = await upload(readFileSync(fixed));
    await toolboxOk(server.rest, session.token, doc.documentId, [
      { watermark: { angle: 0, text: { text: 'Stamp', font: { size: 20 }, position: { position: 'top_left', x: 20, y: 30, metrics: 'pt' } } } },
    ]);
    const file = await download(doc.documentId);
    for (const n of [1, 2]) {
      const stamp = wordBoxes(file, n).find((w) => w.text === 'Stamp');
      expect(stamp, `page ${n}`).toBeDefined();
      expect(stamp!.xMin).toBeCloseTo(20, 0);
      expect(stamp!.yMin).toBeGreaterThan(28);
      expect(stamp!.yMin).toBeLessThan(34);
      expect(stamp!.yMax - stamp!.yMin).toBeLessThan(25);
      expect(pageText(file, n)).toContain('Shared');
    }
    // One form, one resource name for it in the shared resources.
    expect(watermarkForms(file)).toHaveLength(1);
    expect(pageXObjects(file, 1)).toEqual(['/QWm1']);
    expect(pageXObjects(file, 2)).toEqual(['/QWm1']);
  });

  it('embeds a TrueType subset for text a standard font cannot show, and for installed fonts by name', async () => {
    const doc = await upload(await numberedPdf(1));
    await toolboxOk(server.rest, session.token, doc.documentId, [
      { watermark: { angle: 0, text: { text: 'Привет Ελλάδα', font: { size: 30 }, position: { position: 'top_center', y: 20 } } } },
      { watermark: { angle: 0, text: { text: 'Serif bold', font: { name: 'DejaVu Serif', bold: true, size: 30 }, position: { position: 'bottom_center', y: 20 } } } },
      { watermark: { angle: 0, text: { text: 'Outlined', font: { name: 'Times', italic: true, outline: true, size: 30 } } } },
    ]);
    const file = await download(doc.documentId);
    const text = pageText(file, 1);
    expect(text).toContain('Привет Ελλάδα');
    expect(text).toContain('Serif bold');
    expect(text).toContain('Outlined');
    const list = fonts(file);
    expect(list).toMatch(/[A-Z]{6}\+\S+\s+CID TrueType\s+Identity-H\s+yes yes yes/);
    expect(list).toMatch(/[A-Z]{6}\+DejaVuSerif-Bold\s+CID TrueType/);
    expect(list).toMatch(/Times-Italic\s+Type 1/);
    // Outline = text rendering mode 1 in the form's content.
    const qdf = path.join(scratch, 'outline.qdf.pdf');
    execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, qdf]);
    expect(readFileSync(qdf, 'latin1')).toMatch(/\n1 Tr\n/);
  });

  it('stamps an image (PNG with alpha, JPEG) at its opacity and size on the selected pages', async () => {
    const png = await sharp({ create: { width: 40, height: 20, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.8 } } })
      .png()
      .toBuffer();
    const jpeg = await sharp({ create: { width: 30, height: 30, channels: 3, background: { r: 0, g: 128, b: 0 } } })
      .jpeg()
      .toBuffer();
    const doc = await upload(await numberedPdf(3));
    await toolboxOk(server.rest, session.token, doc.documentId, [
      { watermark: { pages: '1,3', angle: 0, image: { data: { value: png.toString('base64') }, position: { position: 'top_left', width: 100, height: 100, metrics: 'pt' } } } },
      { watermark: { pages: 'last', angle: 30, image: { data: { source: 'value', value: jpeg.toString('base64') }, opacity: 100, scale: 200 } } },
    ]);
    const file = await download(doc.documentId);
    const list = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' });
    const rows = list
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((line) => line.trim().split(/\s+/));
    // page, num, type, width, height, color, comp, bpc, enc
    expect(rows.filter((r) => r[2] === 'image' && r[3] === '40' && r[4] === '20').map((r) => r[0])).toEqual(['1', '3']);
    expect(rows.filter((r) => r[2] === 'smask').map((r) => r[0])).toEqual(['1', '3']);
    expect(rows.filter((r) => r[3] === '30' && r[4] === '30').map((r) => [r[0], r[8]])).toEqual([['3', 'jpeg']]);
    expect(pdfFacts(file).text).toContain('PAGE-2');
    // The PNG watermark's default opacity (25 %) and the JPEG's 100 % (no ExtGState for it).
    expect(dictionaries(file).filter((d) => d['/Type'] === '/ExtGState')).toEqual([expect.objectContaining({ '/ca': 0.25 })]);
    // Forced 100 × 100 pt with the aspect ratio kept: 100 × 50 at the top left.
    const image = render(file, 1, 72);
    const [r, g, b] = image.pixel(50, 25);
    expect(b).toBeGreaterThan(r + 20);
    expect(b).toBeGreaterThan(g + 20);
    expect(image.pixel(50, 70)).toEqual([255, 255, 255]);
    expect(image.pixel(120, 25)).toEqual([255, 255, 255]);
  });

  it('refuses what it cannot do (-14 / -104 / -106), and a failed call leaves the document as it was', async () => {
    const doc = await upload(await numberedPdf(2));
    const cases: [unknown, number, RegExp][] = [
      [{ pages: '5', text: { text: 'x' } }, -14, /toolbox\[0\]\.watermark\.pages: .*the document has 2 pages/],
      [{ text: { text: 'x', position: { position: 'middle' } } }, -14, /position/],
      [{ text: { text: 'x', font: { color: 'red' } } }, -14, /color/],
      [{ angle: 400, text: { text: 'x' } }, -14, /angle/],
      [{ pages: '1' }, -14, /toolbox\[0\]\.watermark: give a text or an image/],
      [{ text: { text: '' } }, -14, /toolbox\[0\]\.watermark\.text\.text: the watermark text is empty/],
      [{ text: { text: 'مرحبا' } }, -104, /toolbox\[0\]\.watermark\.text\.text cannot be honoured: .*shaping/],
      [{ text: { text: 'private \u{10FFFD}' } }, -104, /toolbox\[0\]\.watermark\.text\.text cannot be honoured: no installed TrueType font/],
      [{ text: { text: 'x', font: { name: 'Nimbus Sans' } } }, -104, /toolbox\[0\]\.watermark\.text\.font\.name cannot be honoured: .*CFF/],
      [{ image: { data: { source: 'uri', uri: 'http://example.com/x.png' } } }, -104, /toolbox\[0\]\.watermark\.image\.data\.source/],
      [{ image: { data: { value: Buffer.from('not an image at all').toString('base64') } } }, -106, /image/i],
    ];
    for (const [options, code, message] of cases) {
      const outcome = await runToolbox(server.rest, session.token, doc.documentId, [{ watermark: options }]);
      expect(outcome, JSON.stringify(options)).toMatchObject({ status: 400, error: { errorCode: code } });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(message);
    }
    // A later step failing undoes the watermark of an earlier one.
    const chained = await runToolbox(server.rest, session.token, doc.documentId, [{ watermark: { text: { text: 'kept?' } } }, { delete: { pages: '9' } }]);
    expect(chained.error).toMatchObject({ errorCode: -14 });
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ fileSize: doc.fileSize, isFileLocked: false });
    const file = await download(doc.documentId);
    expect(pdfFacts(file).text).not.toMatch(/kept|Confidential/);
    expect(watermarkForms(file)).toHaveLength(0);
  });

  it('works on protected PDFs with their password (wrong one: -5008) and rejects damaged ones (-7)', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await numberedPdf(2));
    execFileSync('qpdf', ['--encrypt', 'user-pw', 'owner-pw', '256', '--', plain, `${plain}.enc`]);
    const locked = await upload(readFileSync(`${plain}.enc`), 'locked.pdf');
    const wrong = await runToolbox(server.rest, session.token, locked.documentId, [{ watermark: { text: { text: 'Secret' } } }], { password: { open: 'x' } });
    expect(wrong.error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [{ watermark: { angle: 0, text: { text: 'Secret' } } }], { password: { open: 'user-pw' } });
    const file = await download(locked.documentId);
    expect(() => pdfFacts(file)).toThrow();
    expect(pdfFacts(file, 'user-pw').text).toContain('Secret');

    const damaged = await upload(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2000, 'garbage ')]), 'damaged.pdf');
    const outcome = await runToolbox(server.rest, session.token, damaged.documentId, [{ watermark: { text: { text: 'x' } } }]);
    expect(outcome).toMatchObject({ status: 400, error: { errorCode: -7 } });
  });
});
