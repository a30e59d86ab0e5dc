import { writeFileSync } from 'node:fs';
import { PDFDocument, StandardFonts, degrees } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageLayouts, pageTexts } from '../../../src/engines/poppler/index.js';
import { PopplerError } from '../../../src/engines/poppler/errors.js';
import { scratchDir } from '../../helpers/pdf-tools.js';

/**
 * The poppler engine's text on real files: plain text per page and the word/line/block layout with
 * boxes in the coordinates of the page as shown. The expected values come from how the test drew the
 * page (pdf-lib), not from the engine.
 */
const scratch = scratchDir('poppler-text');
const run = (name: string, maxBytes = 1024 * 1024) => ({ deadline: Date.now() + 60_000, toolTimeoutMs: 30_000, output: scratch.file(name), maxBytes });
let pdf: string;

beforeAll(async () => {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const first = document.addPage([600, 800]);
  first.drawText('Hello poppler', { x: 100, y: 700, size: 20, font });
  first.drawText('second line here', { x: 100, y: 670, size: 20, font });
  document.addPage([600, 800]).drawText('Grüße, Straße', { x: 72, y: 400, size: 12, font });
  // Turned by 90°: shown landscape; the text runs down the unturned page.
  const turned = document.addPage([600, 800]);
  turned.drawText('SIDEWAYS', { x: 100, y: 100, size: 30, font });
  turned.setRotation(degrees(90));
  pdf = scratch.file('text.pdf');
  writeFileSync(pdf, await document.save());
});
afterAll(() => scratch.remove());

describe('pageTexts', () => {
  it('gives one string per page of the range, in reading order, non-ASCII intact', async () => {
    const texts = await pageTexts(pdf, 1, 2, run('plain.txt'));
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/^Hello poppler\nsecond line here\n/);
    expect(texts[1]).toContain('Grüße, Straße');
  });

  it('refuses text beyond the bound as tooLarge instead of reading it', async () => {
    const error = await pageTexts(pdf, 1, 3, run('bounded.txt', 8)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PopplerError);
    expect((error as PopplerError).kind).toBe('tooLarge');
  });
});

describe('pageLayouts', () => {
  it('places words, lines and blocks where they were drawn: points from the top-left corner, y downwards', async () => {
    const [page] = await pageLayouts(pdf, 1, 1, run('layout.html'));
    const words = page!.blocks.flatMap((b) => b.lines.flatMap((l) => l.words));
    expect(words.map((w) => w.text)).toEqual(['Hello', 'poppler', 'second', 'line', 'here']);
    const hello = words[0]!;
    // Drawn at x 100, baseline 700 of an 800 pt page: the word's box starts at x 100 and ends
    // just below the baseline (100 pt from the top).
    expect(hello.x).toBeCloseTo(100, 0);
    expect(hello.y + hello.height).toBeGreaterThan(100 - 1);
    expect(hello.y + hello.height).toBeLessThan(100 + 6);
    expect(hello.height).toBeGreaterThan(15);
    expect(hello.height).toBeLessThan(26);
    // Two lines, the second 30 pt lower.
    const lines = page!.blocks.flatMap((b) => b.lines);
    expect(lines).toHaveLength(2);
    expect(lines[1]!.y - lines[0]!.y).toBeCloseTo(30, 0);
  });

  it('gives boxes of a turned page in the coordinates of the page as shown', async () => {
    const [page] = await pageLayouts(pdf, 3, 3, run('turned.html'));
    const [word] = page!.blocks.flatMap((b) => b.lines.flatMap((l) => l.words));
    expect(word!.text).toBe('SIDEWAYS');
    // Shown 800 wide and 600 high: the text now runs from top to bottom near the left edge.
    expect(word!.height).toBeGreaterThan(word!.width);
    expect(word!.x).toBeLessThan(150);
  });

  it('gives an empty page for a page without text', async () => {
    const document = await PDFDocument.create();
    document.addPage([200, 200]);
    const blank = scratch.file('blank.pdf');
    writeFileSync(blank, await document.save());
    expect(await pageLayouts(blank, 1, 1, run('blank.html'))).toEqual([{ blocks: [] }]);
  });
});
