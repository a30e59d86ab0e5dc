import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

/** poppler and qpdf as independent readers of the PDFs the image engine writes. */

export interface ListedImage {
  page: number;
  type: string;
  width: number;
  height: number;
  color: string;
  components: number;
  bitsPerComponent: number;
  encoding: string;
  xPpi: number;
  yPpi: number;
}

/** `pdfimages -list`, one entry per image (soft masks included, with type `smask`). */
export function listImages(pdf: string): ListedImage[] {
  const lines = execFileSync('pdfimages', ['-list', pdf], { encoding: 'utf8' }).trim().split('\n').slice(2);
  return lines.map((line) => {
    const c = line.trim().split(/\s+/);
    return {
      page: Number(c[0]),
      type: c[2]!,
      width: Number(c[3]),
      height: Number(c[4]),
      color: c[5]!,
      components: Number(c[6]),
      bitsPerComponent: Number(c[7]),
      encoding: c[8]!,
      xPpi: Number(c[12]),
      yPpi: Number(c[13]),
    };
  });
}

/** Page sizes in points, from pdfinfo. */
export function pageSizes(pdf: string): Array<[number, number]> {
  const out = execFileSync('pdfinfo', ['-f', '1', '-l', '100000', pdf], { encoding: 'utf8' });
  return [...out.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => [Number(m[1]), Number(m[2])]);
}

/** qpdf's structural check; throws on any error or warning. */
export function qpdfCheck(pdf: string): void {
  execFileSync('qpdf', ['--check', pdf], { encoding: 'utf8' });
}

/** The images of a PDF extracted by pdfimages; `-j` keeps DCT streams as the original .jpg bytes. */
export function extractImages(pdf: string, mode: '-j' | '-png'): Buffer[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-pdfimages-'));
  execFileSync('pdfimages', [mode, pdf, path.join(dir, 'img')]);
  return readdirSync(dir)
    .sort()
    .map((f) => readFileSync(path.join(dir, f)));
}

/** Renders one page at 72 dpi (one pixel per point) and returns an RGB reader, origin top-left. */
export async function renderPage(pdf: string, page = 1): Promise<{ width: number; height: number; at: (x: number, y: number) => [number, number, number] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-render-'));
  execFileSync('pdftoppm', ['-r', '72', '-f', String(page), '-l', String(page), '-singlefile', '-png', pdf, path.join(dir, 'page')]);
  const { data, info } = await sharp(path.join(dir, 'page.png')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x, y) => {
      const i = (Math.round(y) * info.width + Math.round(x)) * info.channels;
      return [data[i]!, data[i + 1]!, data[i + 2]!];
    },
  };
}

/** True when every channel is within `tolerance` of the expected colour. */
export function near(actual: [number, number, number], expected: [number, number, number], tolerance = 24): boolean {
  return actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance);
}
