import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { degrees, PDFDocument } from '@cantoo/pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { realPdf } from '../helpers/documents.js';
import { bearer } from '../helpers/client.js';
import { useTestServer } from '../helpers/fixture.js';
import { fontsOf, scratchDir } from '../helpers/pdf-tools.js';

/**
 * Issue 15: Japanese and Chinese text in a visible signature is embedded (a CFF CJK face as
 * CIDFontType0), renders and extracts. A visible signature on a page with /Rotate stands upright where the viewer sees the page,
 * at the position given on the page as shown. Checked on poppler's rendering (pdftoppm applies
 * /Rotate): where the ink is, and that Tesseract reads the text (it does not read text on its side or
 * upside down).
 */

const scratch = scratchDir('sign-rotate');
afterAll(() => scratch.remove());

/** A 595 × 842 pt page turned by `rotate`, with nothing on it. */
async function rotatedPdf(rotate: number): Promise<Buffer> {
  const document = await PDFDocument.create();
  document.addPage([595, 842]).setRotation(degrees(rotate));
  return Buffer.from(await document.save());
}

/** The bounding box of the dark pixels of a page rendered by pdftoppm at 72 dpi (1 px = 1 pt), in the image's coordinates. */
function inkBox(file: string): { left: number; top: number; right: number; bottom: number; width: number; height: number } {
  const base = scratch.file(`render-${Math.random().toString(36).slice(2)}`);
  execFileSync('pdftoppm', ['-r', '72', '-gray', '-singlefile', file, base]);
  const pgm = readFileSync(`${base}.pgm`);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 64).toString('latin1'))!;
  const [width, height] = [Number(header[1]), Number(header[2])];
  const pixels = pgm.subarray(header[0].length);
  let [left, top, right, bottom] = [width, height, -1, -1];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (pixels[y * width + x]! < 128) {
        left = Math.min(left, x);
        right = Math.max(right, x);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
  return { left, top, right, bottom, width, height };
}

/** Tesseract's reading of a region of the rendered page (at 300 dpi). */
function ocr(file: string, box: { left: number; top: number; right: number; bottom: number }): string {
  const scale = 300 / 72;
  const base = scratch.file(`crop-${Math.random().toString(36).slice(2)}`);
  const region = [box.left - 4, box.top - 4, box.right - box.left + 8, box.bottom - box.top + 8].map((n) => String(Math.round(n * scale)));
  execFileSync('pdftoppm', ['-r', '300', '-gray', '-singlefile', '-x', region[0]!, '-y', region[1]!, '-W', region[2]!, '-H', region[3]!, file, base]);
  return spawnSync('tesseract', [`${base}.pgm`, '-', '--psm', '6'], { encoding: 'utf8' }).stdout;
}

describe('visible signatures', () => {
  const { server, session, upload, download } = useTestServer();
  const signVisible = (documentId: string, appearance: Record<string, unknown>) =>
    fetch(`${server.rest}/signature/${documentId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      body: JSON.stringify({ signature: { add: { certificationLevel: 'none', appearance } } }),
    });

  for (const rotate of [0, 90, 180, 270]) {
    it(`stands upright at the position given on a page turned by ${rotate}°`, async () => {
      const document = await upload(await rotatedPdf(rotate), `rotate-${rotate}.pdf`);
      const response = await signVisible(document.documentId, {
        page: 1,
        position: { x: 40, y: 50, width: 300, height: 80, metrics: 'pt', coordinates: 'user' },
        name: 'UPRIGHT',
        identifier: 'QUIRE SIGNED',
      });
      expect(response.status, await response.text()).toBe(303);
      const file = await download(document.documentId, 'pdf');
      const ink = inkBox(file);
      // The page as shown: portrait for 0/180, landscape for 90/270.
      expect([ink.width, ink.height]).toEqual(rotate % 180 === 0 ? [595, 842] : [842, 595]);
      // The ink lies inside the 300 × 80 area 40 pt from the left and 50 pt from the top of the page as shown.
      expect(ink.left).toBeGreaterThanOrEqual(39);
      expect(ink.top).toBeGreaterThanOrEqual(49);
      expect(ink.right).toBeLessThanOrEqual(341);
      expect(ink.bottom).toBeLessThanOrEqual(131);
      expect(ink.right - ink.left).toBeGreaterThan(ink.bottom - ink.top);
      const text = ocr(file, ink);
      expect(text).toContain('UPRIGHT');
      expect(text).toContain('QUIRE');
    });
  }

  it('embeds a CJK face for text the Latin one lacks: pdffonts shows it embedded, pdftotext extracts the text, poppler draws it', async () => {
    const document = await upload(await realPdf(1), 'cjk.pdf');
    const response = await signVisible(document.documentId, {
      page: 1,
      position: { x: 40, y: 40, width: 300, height: 80, metrics: 'pt', coordinates: 'user' },
      name: '山田太郎',
      identifier: '署名者 東京 中文签名',
    });
    expect(response.status, await response.text()).toBe(303);
    const file = await download(document.documentId, 'pdf');
    const fonts = fontsOf(file);
    expect(fonts).toEqual([expect.objectContaining({ type: 'CID Type 0C', embedded: true })]);
    expect(fonts[0]!.name).toMatch(/^[A-Z]{6}\+NotoS(ans|erif)CJK/);
    const text = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, '');
    for (const word of ['山田太郎', '署名者', '東京', '中文签名']) expect(text).toContain(word);
    // poppler finds the glyphs (no "Couldn't find" / font errors) and draws ink.
    const render = spawnSync('pdftoppm', ['-r', '72', '-gray', '-singlefile', file], { encoding: 'latin1' });
    expect(render.stderr).toBe('');
    const pgm = Buffer.from(render.stdout, 'latin1');
    expect(pgm.subarray(20).some((byte) => byte < 100)).toBe(true);
  });
});
