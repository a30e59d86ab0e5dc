import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { imageMetadata } from '../../../src/engines/image/image-metadata.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-image-'));
const file = (name: string) => path.join(dir, name);

describe('imageMetadata', () => {
  beforeAll(async () => {
    await sharp({ create: { width: 300, height: 200, channels: 3, background: '#ff0000' } })
      .jpeg()
      .withMetadata({ density: 150, orientation: 6 })
      .toFile(file('rotated.jpg'));
    await sharp({ create: { width: 30, height: 20, channels: 4, background: '#00ff0080' } })
      .png()
      .toFile(file('alpha.png'));
    // A two-page TIFF: two frames stacked, written as pages.
    const page = (color: string) =>
      sharp({ create: { width: 40, height: 30, channels: 3, background: color } })
        .raw()
        .toBuffer();
    const frames = Buffer.concat([await page('#0000ff'), await page('#ffff00')]);
    await sharp(frames, { raw: { width: 40, height: 60, channels: 3, pageHeight: 30 } as never })
      .tiff()
      .toFile(file('two-pages.tiff'));
  });

  it('reads size, resolution, orientation and colour depth from the headers', async () => {
    expect(await imageMetadata(file('rotated.jpg'))).toEqual([
      expect.objectContaining({ width: 300, height: 200, xRes: 150, yRes: 150, unit: 'inch', colorDepth: 24, orientation: 'rightTop', isAnimated: false }),
    ]);
    expect(await imageMetadata(file('alpha.png'))).toEqual([expect.objectContaining({ width: 30, height: 20, colorDepth: 32, orientation: 'topLeft' })]);
  });

  it('gives one entry per page of a multi-page TIFF, bounded', async () => {
    const pages = await imageMetadata(file('two-pages.tiff'));
    expect(pages.map((p) => [p.width, p.height])).toEqual([
      [40, 30],
      [40, 30],
    ]);
    expect(await imageMetadata(file('two-pages.tiff'), 1)).toHaveLength(1);
  });

  it('throws on data that is no image', async () => {
    await expect(imageMetadata(path.join(import.meta.dirname, 'image-metadata.test.ts'))).rejects.toThrow();
  });
});
