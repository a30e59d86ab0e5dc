import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { estimateSkew } from '../../../src/operations/ocr/deskew.js';
import { scratchDir } from '../../helpers/pdf-tools.js';
import { scanPage, textPdf } from './scans.js';

/** The projection-profile skew estimate on scans turned by known angles (sharp), no server. */

const scratch = scratchDir('ocr-deskew-estimate');
afterAll(() => scratch.remove());

describe('estimateSkew', () => {
  it('finds the angle a scan was turned by, within 0.15°, and 0 for a straight one', async () => {
    const lines = ['Invoices received before the fifteenth', 'of each month are paid within thirty', 'days. Please return the signed contract', 'together with a copy of your card.'];
    const source = await textPdf(scratch.file('source.pdf'), [lines.map((text, i) => ({ text, x: 20, y: 160 - i * 30, size: 14 }))]);
    const clean = await scanPage(source, 1, 300, scratch.file('clean.png'));
    expect(Math.abs(await estimateSkew(clean))).toBeLessThan(0.15);
    for (const angle of [2.5, -6.3, 9]) {
      const turned = scratch.file(`turned${angle}.png`);
      await sharp(clean).rotate(angle, { background: '#ffffff' }).png().toFile(turned);
      expect(Math.abs((await estimateSkew(turned)) - angle)).toBeLessThan(0.15);
    }
  });
});
