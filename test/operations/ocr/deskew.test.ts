import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { postWebService } from '../../helpers/converter.js';
import { useTestServer } from '../../helpers/fixture.js';
import { qpdfCheck, scratchDir } from '../../helpers/pdf-tools.js';
import { bboxWords, imagePdf, scanPage, textPdf, wordAccuracy, type Line } from './scans.js';

/**
 * optimization.deskew on scans the test turns by a known angle (sharp), on a real server: the words
 * are recognised, and the text layer (made from the straightened image) is turned back so that
 * pdftotext -bbox finds each word where the skewed scan shows it.
 */

const { server, session, upload, download } = useTestServer();
const scratch = scratchDir('ocr-deskew');
afterAll(() => scratch.remove());

const LINES: Line[] = [
  { text: 'Searchable scans for everyone', x: 20, y: 150, size: 16 },
  { text: 'The quick brown fox jumps', x: 20, y: 110, size: 16 },
  { text: 'over the lazy dog 1234', x: 20, y: 70, size: 16 },
];
const words = (lines: readonly Line[]) => lines.map((line) => line.text).join(' ');

/** LINES on a 300 × 200 pt page scanned at 300 dpi and turned `angle`° clockwise about its centre, same page size. */
async function skewedScan(name: string, angle: number): Promise<{ pdf: string; source: string }> {
  const source = await textPdf(scratch.file(`${name}-source.pdf`), [LINES]);
  const clean = await scanPage(source, 1, 300, scratch.file(`${name}-clean.png`));
  const turned = await sharp(clean).rotate(angle, { background: '#ffffff' }).greyscale().png().toBuffer({ resolveWithObject: true });
  const left = Math.round((turned.info.width - 1250) / 2);
  const top = Math.round((turned.info.height - 833) / 2);
  const png = scratch.file(`${name}.png`);
  await sharp(turned.data).extract({ left, top, width: 1250, height: 833 }).withMetadata({ density: 300 }).png().toFile(png);
  return { pdf: await imagePdf(scratch.file(`${name}.pdf`), [png], 300, 200), source };
}

/** Where `word` starts on page 1 of `pdf`: left end, bottom of its box (pdftotext -bbox, points from the top-left corner). */
function startOf(pdf: string, word: string): { x: number; y: number } {
  const box = bboxWords(pdf, 1).find((found) => found.text === word);
  if (!box) throw new Error(`${word} not found in ${pdf}`);
  return { x: box.xMin, y: box.yMax };
}

describe('ocr optimization.deskew', () => {
  it.each([3, -4])('reads a scan turned %d° and starts each word of the layer where the turned word starts', async (angle) => {
    const { pdf, source } = await skewedScan(`skew${angle}`, angle);
    const uploaded = await upload(readFileSync(pdf), 'skewed.pdf');
    const outcome = await postWebService(`${server.rest}/ocr/${uploaded.documentId}`, session.token, { ocr: { optimization: { deskew: true } } });
    expect(outcome.status).toBe(303);
    const result = await download(uploaded.documentId);
    qpdfCheck(result);
    // The words of the layer are level (whole for pdftotext), each starting where the turned word starts.
    expect(wordAccuracy(words(LINES), execFileSync('pdftotext', [result, '-'], { encoding: 'utf8' }))).toBeGreaterThanOrEqual(0.98);
    // Where the word starts on the straight page, turned about the page centre as the scan was (y down).
    const radians = (angle * Math.PI) / 180;
    for (const word of ['Searchable', 'quick', 'brown']) {
      const straight = startOf(source, word);
      const dx = straight.x - 150;
      const dy = straight.y - 100;
      const expected = { x: 150 + dx * Math.cos(radians) - dy * Math.sin(radians), y: 100 + dx * Math.sin(radians) + dy * Math.cos(radians) };
      const found = startOf(result, word);
      expect(Math.abs(found.x - expected.x)).toBeLessThan(4);
      expect(Math.abs(found.y - expected.y)).toBeLessThan(4);
    }
  });

  it('text output: a scan turned 5° is read word for word with deskew', async () => {
    const { pdf } = await skewedScan('skew5', 5);
    const uploaded = await upload(readFileSync(pdf), 'skewed.pdf');
    const outcome = await postWebService(`${server.rest}/ocr/${uploaded.documentId}`, session.token, { ocr: { outputFormat: 'text', optimization: { deskew: true } } });
    expect(outcome.status).toBe(303);
    expect(wordAccuracy(words(LINES), readFileSync(await download(uploaded.documentId, 'txt'), 'utf8'))).toBeGreaterThanOrEqual(0.98);
  });
});
