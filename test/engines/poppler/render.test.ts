import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePage, renderPages, renderSvg } from '../../../src/engines/poppler/index.js';
import { PopplerError } from '../../../src/engines/poppler/errors.js';
import { labelledPdf, scratchDir } from '../../helpers/pdf-tools.js';

/**
 * The poppler engine's rendering on real files: pdftoppm pages at an exact pixel size, their
 * encoding into the output formats, and SVG pages. Results are judged by file(1), tiffinfo and the
 * pixels themselves.
 */
const scratch = scratchDir('poppler-render');
const limits = () => ({ deadline: Date.now() + 60_000, toolTimeoutMs: 30_000 });
let pdf: string;

/** PPM/PGM header: magic, width, height. */
function pnmHeader(file: string): { magic: string; width: number; height: number } {
  const m = /^(P[56])\s+(?:#.*\s+)*(\d+)\s+(\d+)\s/.exec(readFileSync(file).subarray(0, 64).toString('latin1'));
  if (!m) throw new Error(`${file} is no binary PNM`);
  return { magic: m[1]!, width: Number(m[2]), height: Number(m[3]) };
}

/** The share of dark pixels of a binary PNM (any channel below 128). */
function darkShare(file: string): number {
  const { magic, width, height } = pnmHeader(file);
  const bytes = readFileSync(file);
  const channels = magic === 'P6' ? 3 : 1;
  const pixels = bytes.subarray(bytes.length - width * height * channels);
  let dark = 0;
  for (let i = 0; i < pixels.length; i += channels) if (pixels[i]! < 128) dark++;
  return dark / (width * height);
}

const fileKind = (file: string): string => execFileSync('file', ['-b', file], { encoding: 'utf8' }).trim();

beforeAll(async () => {
  pdf = await labelledPdf(scratch.file('labelled.pdf'), [
    [595, 842],
    [842, 595],
    [300, 300],
  ]);
});
afterAll(() => scratch.remove());

describe('renderPages', () => {
  it('renders the pages asked for, in order, at exactly the pixel size asked for, with the text drawn', async () => {
    const pages = await renderPages(pdf, 1, 2, { ...limits(), directory: scratch.file('colour'), width: 298, height: 421, dpi: 36, sideways: false });
    expect(pages.map((p) => p.page)).toEqual([1, 2]);
    expect(pnmHeader(pages[0]!.path)).toEqual({ magic: 'P6', width: 298, height: 421 });
    // Page 2 is landscape, scaled to the same exact size.
    expect(pnmHeader(pages[1]!.path)).toMatchObject({ width: 298, height: 421 });
    // "PAGE-1" in black on white: some pixels dark, most light.
    const share = darkShare(pages[0]!.path);
    expect(share).toBeGreaterThan(0.0005);
    expect(share).toBeLessThan(0.05);
  });

  it('renders grey pages (PGM) for black-and-white output, and swaps the size for sideways pages', async () => {
    const [page] = await renderPages(pdf, 3, 3, { ...limits(), directory: scratch.file('grey'), width: 200, height: 100, dpi: 48, sideways: true, gray: true });
    // Sideways: pdftoppm scales the unturned page, so width and height are given swapped.
    expect(pnmHeader(page!.path)).toEqual({ magic: 'P5', width: 100, height: 200 });
  });

  it('refuses a damaged file as damaged, and a call whose time is spent before it starts as timeout', async () => {
    const broken = scratch.file('broken.pdf');
    writeFileSync(broken, '%PDF-1.7\nthis is no PDF at all\n');
    const damaged = await renderPages(broken, 1, 1, { ...limits(), directory: scratch.file('broken'), width: 10, height: 10, dpi: 72, sideways: false }).catch((e: unknown) => e);
    expect(damaged).toBeInstanceOf(PopplerError);
    expect((damaged as PopplerError).kind).toBe('damaged');
    const late = await renderPages(pdf, 1, 1, { deadline: Date.now() - 1, toolTimeoutMs: 30_000, directory: scratch.file('late'), width: 10, height: 10, dpi: 72, sideways: false }).catch(
      (e: unknown) => e,
    );
    expect(late).toBeInstanceOf(PopplerError);
    expect((late as PopplerError).kind).toBe('timeout');
  });
});

describe('encodePage', () => {
  let rendered: string;
  let grey: string;
  beforeAll(async () => {
    rendered = (await renderPages(pdf, 1, 1, { ...limits(), directory: scratch.file('enc'), width: 298, height: 421, dpi: 36, sideways: false }))[0]!.path;
    grey = (await renderPages(pdf, 1, 1, { ...limits(), directory: scratch.file('enc-grey'), width: 298, height: 421, dpi: 36, sideways: false, gray: true }))[0]!.path;
  });

  it.each([
    ['png', { format: 'png' } as const, /^PNG image data, 298 x 421, 8-bit\/color RGB/],
    ['jpg', { format: 'jpeg', quality: 80 } as const, /^JPEG image data.*, 298x421,/],
    ['gif', { format: 'gif' } as const, /^GIF image data, version 8\da, 298 x 421/],
    ['bmp', { format: 'bmp' } as const, /^PC bitmap, Windows 3\.x format, 298 x 421 x 24/],
  ])('writes %s that file(1) recognises with the page size', async (extension, encoding, expected) => {
    const output = scratch.file(`page.${extension}`);
    await encodePage(rendered, output, encoding, 36);
    expect(fileKind(output)).toMatch(expected);
  });

  it('writes TIFF with the compression asked for, including the CCITT ones, as tiffinfo reads them', async () => {
    const cases = [
      ['lzw', 'LZW'],
      ['deflate', 'AdobeDeflate'],
      ['packbits', 'PackBits'],
      ['group4', 'CCITT Group 4'],
      ['group3', 'CCITT Group 3'],
      ['rle', 'CCITT RLE'],
    ] as const;
    for (const [compression, described] of cases) {
      const output = scratch.file(`page-${compression}.tif`);
      await encodePage(compression.startsWith('group') || compression === 'rle' ? grey : rendered, output, { format: 'tiff', compression, quality: 80, blackAndWhite: 'middle' }, 36);
      const info = execFileSync('tiffinfo', [output], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      expect(info, compression).toMatch(/Image Width: 298 Image Length: 421/);
      expect(info, compression).toContain(`Compression Scheme: ${described}`);
      expect(info, compression).toMatch(/Resolution: 36, 36 pixels\/inch/);
      if (compression.startsWith('group') || compression === 'rle') expect(info, compression).toMatch(/Bits\/Sample: 1/);
    }
  });

  it('lowers the JPEG quality until the file fits the size asked for', async () => {
    const big = scratch.file('q100.jpg');
    const medium = scratch.file('q50.jpg');
    const small = scratch.file('optimised.jpg');
    await encodePage(rendered, big, { format: 'jpeg', quality: 100 }, 36);
    await encodePage(rendered, medium, { format: 'jpeg', quality: 50 }, 36);
    // Reachable: quality 50 is five steps of 10 below 100.
    const maxSize = readFileSync(medium).length;
    expect(readFileSync(big).length).toBeGreaterThan(maxSize);
    await encodePage(rendered, small, { format: 'jpeg', quality: 100, sizeOptimization: { maxRetries: 20, maxSize, stepSize: 10 } }, 36);
    expect(readFileSync(small).length).toBeLessThanOrEqual(maxSize);
    expect(fileKind(small)).toMatch(/^JPEG image data/);
  });
});

describe('renderSvg', () => {
  it('writes one page as SVG of the page size, text as glyph outlines', async () => {
    const output = scratch.file('page-2.svg');
    const diagnostics = await renderSvg(pdf, 2, output, limits());
    expect(diagnostics).toEqual([]);
    const svg = readFileSync(output, 'utf8');
    expect(svg).toMatch(/<svg[^>]+width="842(pt)?" height="595(pt)?"/);
    // Glyphs are paths (<symbol>/<path>), so the text is not in the markup as characters.
    expect(svg).toMatch(/<path /);
    expect(svg).not.toContain('PAGE-2');
  });
});
