import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { PDFDocument, PDFName, PDFString, StandardFonts, degrees } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentInfo, extractImages, listImages, pageGeometry, readLinks } from '../../../src/engines/poppler/index.js';
import { scratchDir } from '../../helpers/pdf-tools.js';

/**
 * The poppler engine's document facts on real files: page geometry (crop box, rotation) and title
 * from pdfinfo, the images of pages (pdfimages) and link annotations. Expected values are what the
 * test put into the file.
 */
const scratch = scratchDir('poppler-info');
const limits = () => ({ deadline: Date.now() + 60_000, toolTimeoutMs: 30_000 });
let pdf: string;

beforeAll(async () => {
  const document = await PDFDocument.create();
  document.setTitle('Facts «test» ✓');
  const font = await document.embedFont(StandardFonts.Helvetica);
  const [one, two, three] = [document.addPage([595, 842]), document.addPage([595, 842]), document.addPage([400, 300])];
  one.drawText('one', { x: 50, y: 700, size: 12, font });
  two.setCropBox(50, 100, 300, 400);
  two.setRotation(degrees(90));
  three.setRotation(degrees(270));

  // Images on page 1: a PNG (stored Flate, extracted as PNG) and a JPEG (stored as DCT, extracted as is).
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .png()
    .toBuffer();
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 0, g: 0, b: 255 } } })
    .jpeg()
    .toBuffer();
  one.drawImage(await document.embedPng(png), { x: 100, y: 100, width: 40, height: 30 });
  one.drawImage(await document.embedJpg(jpeg), { x: 200, y: 100, width: 128, height: 96 });

  // Links on page 1: a URI, a GoTo to page 3 and a named destination to page 2.
  const { context } = document;
  const dests = context.obj({ chapter: context.obj([two.ref, PDFName.of('Fit')]) });
  document.catalog.set(PDFName.of('Dests'), context.register(dests));
  const link = (rect: number[], entries: Record<string, unknown>) => context.register(context.obj({ Type: 'Annot', Subtype: 'Link', Rect: rect, Border: [0, 0, 0], ...entries } as never));
  const annots = [
    link([10, 10, 110, 30], { A: context.obj({ S: 'URI', URI: PDFString.of('https://example.org/quire') }) }),
    link([10, 40, 110, 60], { Dest: context.obj([three.ref, PDFName.of('XYZ'), 0, 300, 0]) }),
    // A name looks up the catalog's /Dests dictionary (PDF 1.1 style).
    link([10, 70, 110, 90], { Dest: PDFName.of('chapter') }),
  ];
  one.node.set(PDFName.of('Annots'), context.obj(annots));
  pdf = scratch.file('facts.pdf');
  writeFileSync(pdf, await document.save());
});
afterAll(() => scratch.remove());

describe('documentInfo and pageGeometry', () => {
  it('gives the title and, per page, the crop box, the rotation and the size as shown', async () => {
    const info = await documentInfo(pdf, 1, 3, limits());
    expect(info.title).toBe('Facts «test» ✓');
    expect(info.pages).toEqual([
      { page: 1, rotation: 0, cropBox: { x1: 0, y1: 0, x2: 595, y2: 842 }, width: 595, height: 842 },
      { page: 2, rotation: 90, cropBox: { x1: 50, y1: 100, x2: 350, y2: 500 }, width: 400, height: 300 },
      { page: 3, rotation: 270, cropBox: { x1: 0, y1: 0, x2: 400, y2: 300 }, width: 300, height: 400 },
    ]);
    expect(await pageGeometry(pdf, 2, 2, limits())).toEqual([info.pages[1]]);
  });
});

describe('listImages and extractImages', () => {
  it('lists the images drawn on a page with their size, colour space and stored encoding', async () => {
    const images = await listImages(pdf, 1, 3, limits());
    expect(images.map((i) => ({ page: i.page, type: i.type, width: i.width, height: i.height, colorSpace: i.colorSpace, encoding: i.encoding }))).toEqual([
      { page: 1, type: 'image', width: 40, height: 30, colorSpace: 'rgb', encoding: 'image' },
      { page: 1, type: 'image', width: 64, height: 48, colorSpace: 'rgb', encoding: 'jpeg' },
    ]);
    expect(images.every((i) => /^\d+ \d+$/.test(i.objectKey))).toBe(true);
    // Drawn 1:1 at 72 dpi and at twice the size (36 dpi).
    expect(images.map((i) => i.xPpi)).toEqual([72, 36]);
  });

  it('writes the images: JPEG as stored, the rest as PNG, named by page and index', async () => {
    const directory = scratch.file('images');
    mkdirSync(directory);
    const images = await extractImages(pdf, 1, 1, directory, limits());
    expect(images.map((i) => [i.page, i.index, i.suffix])).toEqual([
      [1, 0, 'png'],
      [1, 1, 'jpg'],
    ]);
    expect(execFileSync('file', ['-b', images[0]!.path], { encoding: 'utf8' })).toMatch(/^PNG image data, 40 x 30/);
    expect(execFileSync('file', ['-b', images[1]!.path], { encoding: 'utf8' })).toMatch(/^JPEG image data.*, 64x48,/);
    const red = await sharp(images[0]!.path).stats();
    expect(red.channels.map((c) => Math.round(c.mean))).toEqual([255, 0, 0]);
  });

  it('finds no image on a page without one', async () => {
    expect(await listImages(pdf, 2, 3, limits())).toEqual([]);
  });
});

describe('readLinks', () => {
  it('reads URI, GoTo and named-destination links with their targets and rectangles', async () => {
    const links = await readLinks(pdf, [1, 2], { ...limits(), maxJsonBytes: 16 * 1024 * 1024, maxAnnotations: 1000 });
    expect(links).toEqual([
      expect.objectContaining({ page: 1, kind: 'uri', target: 'https://example.org/quire', rect: [10, 10, 110, 30] }),
      expect.objectContaining({ page: 1, kind: 'goTo', destinationPage: 3, destinationView: 'XYZ', rect: [10, 40, 110, 60] }),
      expect.objectContaining({ page: 1, kind: 'goTo', destinationPage: 2, destinationView: 'Fit', destinationName: 'chapter', rect: [10, 70, 110, 90] }),
    ]);
  });

  it('refuses more annotations than allowed as tooLarge', async () => {
    const error = await readLinks(pdf, [1], { ...limits(), maxJsonBytes: 16 * 1024 * 1024, maxAnnotations: 2 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'tooLarge' });
  });
});
