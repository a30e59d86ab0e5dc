import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ImageEngineError, imageFrameCount, imageToPdf } from '../../../src/engines/image/image-to-pdf.js';
import type { ImageToPdfOptions } from '../../../src/engines/image/image-to-pdf.js';
import { BLUE, GREEN, RED, WHITE, makeImageFixtures, manyColour } from './image-fixtures.js';
import { extractImages, listImages, near, pageSizes, qpdfCheck, renderPage } from './pdf-probe.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-image-to-pdf-'));
const BMP_FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/images/bmp');
let file: (name: string) => string;
let outputs = 0;

const NATURAL: ImageToPdfOptions = { maintainAspectRatio: true, jpegQuality: 85 };
const A4 = { width: 595, height: 842, marginTop: 72, marginRight: 72, marginBottom: 72, marginLeft: 72 };

/** Converts and checks the result with qpdf; returns the PDF's path. */
async function convert(input: string, options: Partial<ImageToPdfOptions> = {}): Promise<string> {
  const output = path.join(dir, `out-${++outputs}.pdf`);
  await imageToPdf(input, output, { ...NATURAL, ...options });
  qpdfCheck(output);
  return output;
}

/** The error kind a conversion fails with; also checks that no partial output is left behind. */
async function failure(input: string, options: Partial<ImageToPdfOptions> = {}): Promise<{ kind: string; message: string }> {
  const output = path.join(dir, `failed-${++outputs}.pdf`);
  try {
    await imageToPdf(input, output, { ...NATURAL, ...options });
  } catch (error) {
    expect(existsSync(output)).toBe(false);
    if (!(error instanceof ImageEngineError)) throw error;
    return { kind: error.kind, message: error.message };
  }
  throw new Error(`${input} converted without error`);
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  file = await makeImageFixtures(dir);
});

describe('imageToPdf: pages and frames', () => {
  it('makes one page per frame of a multi-page TIFF and an animated GIF, in order', async () => {
    for (const name of ['three.tif', 'anim.gif', 'anim.webp']) {
      const pdf = await convert(file(name));
      expect(pageSizes(pdf)).toHaveLength(3);
      const colours = await Promise.all([1, 2, 3].map(async (p) => (await renderPage(pdf, p)).at(20, 15)));
      expect(colours.map((c, i) => near(c, [RED, GREEN, BLUE][i]!))).toEqual([true, true, true]);
    }
  });

  it('outputs only the requested frames, in the requested order', async () => {
    const second = await convert(file('three.tif'), { frames: [2] });
    expect(pageSizes(second)).toHaveLength(1);
    expect(near((await renderPage(second)).at(20, 15), GREEN)).toBe(true);
    expect(await imageToPdf(file('anim.gif'), path.join(dir, 'order.pdf'), { ...NATURAL, frames: [3, 1] })).toEqual({ pages: 2 });
    expect(near((await renderPage(path.join(dir, 'order.pdf'), 1)).at(20, 15), BLUE)).toBe(true);
  });

  it('decodes long animations in batches without mixing up frames', async () => {
    const wanted = [1, 20, 21, 40, 2];
    const pdf = await convert(file('forty.gif'), { frames: wanted });
    expect(pageSizes(pdf)).toEqual(wanted.map(() => [1000, 800]));
    for (const [page, frame] of wanted.entries()) {
      expect(near((await renderPage(pdf, page + 1)).at(500, 400), manyColour(frame - 1), 8)).toBe(true);
    }
    expect(await imageFrameCount(file('forty.gif'))).toBe(40);
  });

  it('names the frame and the count when a frame does not exist', async () => {
    expect(await failure(file('three.tif'), { frames: [1, 4] })).toEqual({ kind: 'frameOutOfRange', message: 'Frame 4 does not exist: the image has 3 frames.' });
    expect((await failure(file('photo.png'), { frames: [2] })).message).toBe('Frame 2 does not exist: the image has 1 frame.');
    expect((await failure(file('photo.png'), { frames: [0] })).kind).toBe('frameOutOfRange');
  });

  it('counts frames from the headers', async () => {
    expect(await imageFrameCount(file('three.tif'))).toBe(3);
    expect(await imageFrameCount(file('anim.gif'))).toBe(3);
    expect(await imageFrameCount(file('photo.jpg'))).toBe(1);
    expect(await imageFrameCount(file('topdown.bmp'))).toBe(1);
    await expect(imageFrameCount(file('text.png'))).rejects.toMatchObject({ kind: 'unreadable' });
  });
});

describe('imageToPdf: page size', () => {
  it('takes 72 dpi when the image states no resolution', async () => {
    expect(pageSizes(await convert(file('photo.png')))).toEqual([[200, 100]]);
    expect(pageSizes(await convert(file('anim.gif')))[0]).toEqual([40, 30]);
  });

  it('gives a 300-dpi image its physical size', async () => {
    expect(pageSizes(await convert(file('scan300.png')))).toEqual([[144, 72]]);
    // Passed through with its ICC profile (sharp embeds sRGB when writing a density).
    const jpeg = await convert(file('scan300.jpg'));
    expect(pageSizes(jpeg)).toEqual([[288, 144]]);
    expect(listImages(jpeg)).toMatchObject([{ encoding: 'jpeg', color: 'icc', xPpi: 300 }]);
    // ImageMagick's 300-dpi BMP (23 × 13 px).
    const [bmp] = pageSizes(await convert(path.join(BMP_FIXTURES, 'rgb24.bmp')));
    expect(bmp![0]).toBeCloseTo((23 * 72) / 300, 1);
  });

  it('keeps x and y resolution apart (a 204 × 98 dpi fax page), in classic TIFF and BigTIFF', async () => {
    for (const name of ['fax.tif', 'fax-big.tif']) {
      const pdf = await convert(file(name));
      expect(pageSizes(pdf)).toEqual([[144, 144]]);
      expect(listImages(pdf)[0]).toMatchObject({ width: 408, height: 196, color: 'gray', xPpi: 204, yPpi: 98 });
    }
  });

  it('fits the image into the printable area of a given page, centred, keeping its aspect ratio', async () => {
    const pdf = await convert(file('photo.png'), { page: A4, maintainAspectRatio: true });
    expect(pageSizes(pdf)).toEqual([[595, 842]]);
    // 200 × 100 px over 451 × 225.5 pt.
    expect(listImages(pdf)[0]).toMatchObject({ xPpi: 32, yPpi: 32 });
    const page = await renderPage(pdf);
    expect(near(page.at(150, 421), RED)).toBe(true);
    expect(near(page.at(450, 421), BLUE)).toBe(true);
    expect(near(page.at(150, 150), WHITE)).toBe(true); // above the image, inside the printable area
    expect(near(page.at(36, 421), WHITE)).toBe(true); // left margin
  });

  it('stretches the image over the printable area without aspect ratio', async () => {
    const pdf = await convert(file('photo.png'), { page: A4, maintainAspectRatio: false });
    expect(listImages(pdf)[0]).toMatchObject({ xPpi: 32, yPpi: 10 });
    const page = await renderPage(pdf);
    expect(near(page.at(150, 80), RED)).toBe(true);
    expect(near(page.at(450, 760), BLUE)).toBe(true);
    expect(near(page.at(36, 421), WHITE)).toBe(true);
    expect(near(page.at(297, 36), WHITE)).toBe(true); // top margin
    expect(near(page.at(297, 806), WHITE)).toBe(true); // bottom margin
  });
});

describe('imageToPdf: JPEG', () => {
  it('embeds a plain JPEG as its original bytes', async () => {
    for (const [name, color] of [
      ['photo.jpg', 'rgb'],
      ['progressive.jpg', 'rgb'],
      ['grey.jpg', 'gray'],
    ]) {
      const pdf = await convert(file(name!));
      expect(listImages(pdf)).toMatchObject([{ encoding: 'jpeg', width: 320, height: 240, color }]);
      const [extracted] = extractImages(pdf, '-j');
      expect(sha(extracted!)).toBe(sha(readFileSync(file(name!))));
    }
  });

  it("leaves out what phones append after the image (a motion photo's video, an MPO's second image)", async () => {
    const jpeg = readFileSync(file('photo.jpg'));
    const video = Buffer.concat([Buffer.from('\0\0\0\x18ftypmp42'), Buffer.alloc(50_000, 0xd9), Buffer.from([0xff, 0xd9]), jpeg]);
    writeFileSync(file('motion.jpg'), Buffer.concat([jpeg, video]));
    const [extracted] = extractImages(await convert(file('motion.jpg')), '-j');
    expect(sha(extracted!)).toBe(sha(jpeg));
  });

  it('embeds an Adobe CMYK JPEG as is, with the inverted /Decode that makes it render right', async () => {
    const pdf = await convert(file('cmyk.jpg'));
    expect(listImages(pdf)).toMatchObject([{ encoding: 'jpeg', color: 'cmyk', components: 4 }]);
    expect(near((await renderPage(pdf)).at(32, 32), RED, 60)).toBe(true);
  });

  it('honours EXIF orientation: 200 × 100 stored with orientation 6 is a portrait page', async () => {
    const pdf = await convert(file('rotated.jpg'));
    expect(pageSizes(pdf)).toEqual([[100, 200]]);
    expect(listImages(pdf)).toMatchObject([{ encoding: 'jpeg', width: 100, height: 200 }]);
    // Orientation 6 turns the stored image 90° clockwise: its left (red) half is on top.
    const page = await renderPage(pdf);
    expect(near(page.at(50, 40), RED)).toBe(true);
    expect(near(page.at(50, 160), BLUE)).toBe(true);
    // Turned first, then down-sampled: 36 dpi of a 72-dpi portrait image is 50 × 100.
    expect(listImages(await convert(file('rotated.jpg'), { maxDpi: 36 }))).toMatchObject([{ width: 50, height: 100 }]);
  });

  it('re-encodes a JPEG that must be down-sampled', async () => {
    // 1200 × 600 at 300 dpi is 4 × 2 in: at most 150 dpi leaves 600 × 300.
    const pdf = await convert(file('scan300.jpg'), { maxDpi: 150 });
    expect(pageSizes(pdf)).toEqual([[288, 144]]);
    expect(listImages(pdf)).toMatchObject([{ encoding: 'jpeg', width: 600, height: 300, xPpi: 150, yPpi: 150 }]);
    expect(sha(extractImages(pdf, '-j')[0]!)).not.toBe(sha(readFileSync(file('scan300.jpg'))));
  });
});

describe('imageToPdf: lossless sources', () => {
  /** The pixels pdfimages extracts equal the source's, exactly. */
  async function expectSamePixels(pdf: string, source: string, channels: 1 | 3): Promise<void> {
    const [png] = extractImages(pdf, '-png');
    const extracted = await sharp(png!)
      .toColourspace(channels === 1 ? 'b-w' : 'srgb')
      .raw()
      .toBuffer();
    const original = await sharp(source)
      .toColourspace(channels === 1 ? 'b-w' : 'srgb')
      .raw()
      .toBuffer();
    expect(extracted.equals(original)).toBe(true);
  }

  it('embeds PNG, GIF, TIFF, lossless WebP and BMP as Flate, pixel for pixel', async () => {
    for (const name of ['photo.png', 'lossless.webp']) {
      const pdf = await convert(file(name));
      expect(listImages(pdf)).toMatchObject([{ encoding: 'image', color: 'rgb', width: 200, height: 100 }]);
      await expectSamePixels(pdf, file(name), 3);
    }
    const gif = await convert(file('anim.gif'), { frames: [1] });
    expect(listImages(gif)).toMatchObject([{ encoding: 'image', width: 40, height: 30 }]);
    const tiff = await convert(file('three.tif'), { frames: [3] });
    await expectSamePixels(
      tiff,
      await sharp(file('three.tif'), { page: 2 })
        .png()
        .toFile(path.join(dir, 'page3.png'))
        .then(() => path.join(dir, 'page3.png')),
      3,
    );
    const bmp = await convert(file('topdown.bmp'));
    expect(pageSizes(bmp)).toEqual([[200, 100]]); // 2835 px/m = 72 dpi
    expect(near((await renderPage(bmp)).at(50, 50), RED)).toBe(true);
    expect(near((await renderPage(bmp)).at(150, 50), BLUE)).toBe(true);
  });

  it('honours the orientation tag of a TIFF too', async () => {
    const pdf = await convert(file('rotated.tif'));
    expect(pageSizes(pdf)).toEqual([[100, 200]]);
    expect(near((await renderPage(pdf)).at(50, 40), RED)).toBe(true);
  });

  it('keeps grey images grey (one channel) and reduces 16-bit to 8-bit', async () => {
    const grey = await convert(file('grey.png'));
    expect(listImages(grey)).toMatchObject([{ color: 'gray', components: 1, bitsPerComponent: 8 }]);
    await expectSamePixels(grey, file('grey.png'), 1);
    expect(listImages(await convert(file('deep16.png')))).toMatchObject([{ color: 'rgb', bitsPerComponent: 8 }]);
  });

  it('keeps alpha as a soft mask, and adds none when the alpha channel is opaque', async () => {
    for (const name of ['alpha.png', 'alpha.webp']) {
      const pdf = await convert(file(name));
      expect(listImages(pdf).map((i) => i.type)).toEqual(['image', 'smask']);
      const page = await renderPage(pdf);
      expect(near(page.at(5, 10), WHITE)).toBe(true); // transparent: the white page shows
      expect(near(page.at(35, 10), BLUE)).toBe(true);
    }
    expect(listImages(await convert(file('opaque-rgba.png'))).map((i) => i.type)).toEqual(['image']);
  });

  it('down-samples to maxDpi with the page size unchanged', async () => {
    // 600 × 300 at 300 dpi is 2 × 1 in.
    const pdf = await convert(file('scan300.png'), { maxDpi: 150 });
    expect(pageSizes(pdf)).toEqual([[144, 72]]);
    expect(listImages(pdf)).toMatchObject([{ width: 300, height: 150, xPpi: 150, yPpi: 150 }]);
    expect(listImages(await convert(file('scan300.png'), { maxDpi: 300 }))).toMatchObject([{ width: 600, height: 300 }]);
  });
});

describe('imageToPdf: refusals', () => {
  it('refuses a corrupt GIF (truncated in the middle, or garbled LZW data) as unreadable', async () => {
    expect((await failure(file('truncated.gif'))).kind).toBe('unreadable');
    expect((await failure(file('garbled.gif'))).kind).toBe('unreadable');
  });

  it('refuses truncated or garbled PNG and JPEG as unreadable, also where the JPEG would be copied as is', async () => {
    for (const name of ['truncated.png', 'truncated.jpg', 'garbled.jpg']) expect(await failure(file(name))).toMatchObject({ kind: 'unreadable' });
  });

  it('refuses a text file named .png and an empty file as unreadable', async () => {
    expect(await failure(file('text.png'))).toEqual({ kind: 'unreadable', message: 'The file is not a PNG, JPEG, GIF, BMP, TIFF or WebP image.' });
    expect((await failure(file('empty.gif'))).kind).toBe('unreadable');
  });

  it('refuses RLE BMP as unsupported', async () => {
    expect(await failure(file('rle.bmp'))).toEqual({ kind: 'unsupported', message: 'RLE-compressed BMP files are not supported.' });
  });

  it('refuses a frame above the pixel limit before decoding it', async () => {
    expect(await failure(file('photo.png'), { maxPixels: 10_000 })).toMatchObject({ kind: 'tooLarge' });
    expect(await failure(file('topdown.bmp'), { maxPixels: 10_000 })).toMatchObject({ kind: 'tooLarge' });
  });

  it('refuses options that cannot work', async () => {
    expect((await failure(file('photo.png'), { jpegQuality: 0 })).kind).toBe('invalidOptions');
    expect((await failure(file('photo.png'), { frames: [] })).kind).toBe('invalidOptions');
    expect((await failure(file('photo.png'), { page: { ...A4, marginTop: 500, marginBottom: 500 } })).kind).toBe('invalidOptions');
  });
});
