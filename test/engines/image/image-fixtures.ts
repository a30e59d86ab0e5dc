import { writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { writeBmp } from './bmp-writer.js';

/**
 * The images of image-to-pdf.test.ts, generated with sharp (and our BMP writer). Most are split in
 * two: left half red, right half blue, so that orientation and placement show when rendered.
 */

export const RED: [number, number, number] = [255, 0, 0];
export const GREEN: [number, number, number] = [0, 255, 0];
export const BLUE: [number, number, number] = [0, 0, 255];
export const WHITE: [number, number, number] = [255, 255, 255];

/** Raw RGB pixels: left half red, right half blue. */
function halves(width: number, height: number): Buffer {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(x < width / 2 ? RED : BLUE, (y * width + x) * 3);
  return raw;
}

/** Deterministic noise, so that compressed data is long enough to damage in the middle. */
function noise(width: number, height: number): Buffer {
  const raw = Buffer.alloc(width * height * 3);
  let s = 12345;
  for (let i = 0; i < raw.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    raw[i] = s >> 23;
  }
  return raw;
}

/** The colour of frame `i` (0-based) of forty.gif: distinct, and exact in a GIF palette. */
export const manyColour = (i: number): [number, number, number] => [i * 6, 255 - i * 6, i % 2 === 0 ? 0 : 255];

const solid = (width: number, height: number, colour: [number, number, number]) => sharp({ create: { width, height, channels: 3, background: { r: colour[0], g: colour[1], b: colour[2] } } });

export async function makeImageFixtures(dir: string) {
  const file = (name: string) => path.join(dir, name);
  const split = (w: number, h: number) => sharp(halves(w, h), { raw: { width: w, height: h, channels: 3 } });

  await split(200, 100).png().toFile(file('photo.png'));
  await split(600, 300).png().withMetadata({ density: 300 }).toFile(file('scan300.png'));
  await split(200, 100).toColourspace('b-w').png().toFile(file('grey.png'));
  await split(200, 100).toColourspace('rgb16').png().toFile(file('deep16.png'));
  // Left half transparent, right half opaque blue.
  const rgba = Buffer.alloc(40 * 20 * 4);
  for (let i = 0; i < 40 * 20; i++) rgba.set(i % 40 < 20 ? [255, 0, 0, 0] : [0, 0, 255, 255], i * 4);
  await sharp(rgba, { raw: { width: 40, height: 20, channels: 4 } })
    .png()
    .toFile(file('alpha.png'));
  await split(40, 20).ensureAlpha().png().toFile(file('opaque-rgba.png'));

  await split(320, 240).jpeg({ quality: 90 }).toFile(file('photo.jpg'));
  await split(320, 240).jpeg({ quality: 90, progressive: true }).toFile(file('progressive.jpg'));
  await split(200, 100).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toFile(file('rotated.jpg'));
  await split(1200, 600).jpeg({ quality: 90 }).withMetadata({ density: 300 }).toFile(file('scan300.jpg'));
  await split(320, 240).toColourspace('b-w').jpeg({ quality: 90 }).toFile(file('grey.jpg'));
  await split(200, 100).tiff().withMetadata({ orientation: 6 }).toFile(file('rotated.tif'));
  await solid(64, 64, RED).toColourspace('cmyk').jpeg({ quality: 95 }).toFile(file('cmyk.jpg'));

  const frames = await Promise.all([RED, GREEN, BLUE].map((c) => solid(40, 30, c).png().toBuffer()));
  await sharp(frames, { join: { animated: true } })
    .gif()
    .toFile(file('anim.gif'));
  await sharp(frames, { join: { animated: true } })
    .tiff()
    .toFile(file('three.tif'));
  await sharp(frames, { join: { animated: true } })
    .webp({ lossless: true })
    .toFile(file('anim.webp'));
  // 40 frames of 0.8 MP: decoded in batches of 20 (16 MP), so frames 20 and 21 sit on either side of a boundary.
  const many = await Promise.all(Array.from({ length: 40 }, (_, i) => solid(1000, 800, manyColour(i)).png().toBuffer()));
  await sharp(many, { join: { animated: true } })
    .gif()
    .toFile(file('forty.gif'));
  await split(200, 100).webp({ lossless: true }).toFile(file('lossless.webp'));
  await sharp(rgba, { raw: { width: 40, height: 20, channels: 4 } })
    .webp({ lossless: true })
    .toFile(file('alpha.webp'));
  // A fax page: 204 × 98 dpi (sharp takes pixels per mm), 2 × 2 inches.
  await split(408, 196)
    .toColourspace('b-w')
    .tiff({ xres: 204 / 25.4, yres: 98 / 25.4, resolutionUnit: 'inch' })
    .toFile(file('fax.tif'));
  await split(408, 196)
    .toColourspace('b-w')
    .tiff({ xres: 204 / 25.4, yres: 98 / 25.4, resolutionUnit: 'inch', bigtiff: true })
    .toFile(file('fax-big.tif'));

  writeFileSync(file('topdown.bmp'), writeBmp({ width: 200, height: 100, bitsPerPixel: 24, topDown: true, pixelsPerMetre: 2835, value: (x) => (x < 100 ? 0xff0000 : 0x0000ff) }));
  writeFileSync(file('rle.bmp'), writeBmp({ width: 1, height: 1, bitsPerPixel: 8, compression: 1, palette: [[0, 0, 0]], value: () => 0 }));

  // Damaged files: the decoders must refuse them, not draw a partial or blank page.
  const noisy = (w: number, h: number) => sharp(noise(w, h), { raw: { width: w, height: h, channels: 3 } });
  const gif = await noisy(300, 200).gif().toBuffer();
  writeFileSync(file('truncated.gif'), gif.subarray(0, gif.length >> 1));
  const garbled = Buffer.from(gif);
  for (let i = Math.floor(gif.length * 0.4); i < Math.floor(gif.length * 0.45); i++) garbled[i] = (i * 13) & 0xff;
  writeFileSync(file('garbled.gif'), garbled);
  const png = await noisy(300, 200).png().toBuffer();
  writeFileSync(file('truncated.png'), png.subarray(0, png.length >> 1));
  const jpeg = await noisy(300, 200).jpeg().toBuffer();
  writeFileSync(file('truncated.jpg'), jpeg.subarray(0, jpeg.length >> 1));
  const garbledJpeg = Buffer.from(jpeg);
  for (let i = Math.floor(jpeg.length * 0.4); i < Math.floor(jpeg.length * 0.45); i++) garbledJpeg[i] = (i * 13) & 0xff;
  writeFileSync(file('garbled.jpg'), garbledJpeg);
  writeFileSync(file('text.png'), 'This is a text file with a .png name.\n'.repeat(20));
  writeFileSync(file('empty.gif'), '');

  return file;
}
