import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import sharp from 'sharp';

/**
 * Scans made by the tests: known text drawn into a PDF with pdf-lib (Helvetica, WinAnsi: umlauts and
 * ß), rendered by pdftoppm at a known resolution — the "scanner" — and, for PDF inputs, put back into
 * an image-only PDF page of the same size. Small pages keep Tesseract's work short.
 */

export interface Line {
  text: string;
  /** Baseline start, PDF points from the bottom-left corner. */
  x: number;
  y: number;
  size: number;
}

/** A page of `width`×`height` points with the lines drawn in Helvetica. */
export async function textPdf(file: string, pages: readonly (readonly Line[])[], width = 300, height = 200): Promise<string> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = document.addPage([width, height]);
    for (const line of lines) page.drawText(line.text, { x: line.x, y: line.y, size: line.size, font });
  }
  writeFileSync(file, await document.save());
  return file;
}

/** Page `page` of `pdf` as a grey PNG at `dpi` (pdftoppm), with the resolution written into the PNG. */
export async function scanPage(pdf: string, page: number, dpi: number, output: string): Promise<string> {
  const base = output.replace(/\.png$/, '');
  execFileSync('pdftoppm', ['-q', '-gray', '-png', '-r', String(dpi), '-singlefile', '-f', String(page), '-l', String(page), pdf, `${base}-raw`]);
  await sharp(`${base}-raw.png`).withMetadata({ density: dpi }).png().toFile(output);
  return output;
}

/** An image-only PDF: each PNG fills a page of `width`×`height` points (its resolution is pixels ÷ inches). */
export async function imagePdf(file: string, pngs: readonly string[], width = 300, height = 200, textPages: readonly (readonly Line[] | undefined)[] = []): Promise<string> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const [i, png] of pngs.entries()) {
    const page = document.addPage([width, height]);
    const lines = textPages[i];
    if (lines) {
      for (const line of lines) page.drawText(line.text, { x: line.x, y: line.y, size: line.size, font });
      continue;
    }
    const image = await document.embedPng(readFileSync(png));
    page.drawImage(image, { x: 0, y: 0, width, height });
  }
  writeFileSync(file, await document.save());
  return file;
}

/** The words pdftotext -bbox finds: text and box in points from the top-left corner. */
export function bboxWords(pdf: string, page?: number): { text: string; xMin: number; yMin: number; xMax: number; yMax: number }[] {
  const range = page === undefined ? [] : ['-f', String(page), '-l', String(page)];
  const html = execFileSync('pdftotext', ['-bbox', ...range, pdf, '-'], { encoding: 'utf8' });
  return [...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
    xMin: Number(m[1]),
    yMin: Number(m[2]),
    xMax: Number(m[3]),
    yMax: Number(m[4]),
    text: m[5]!
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'"),
  }));
}

/** Share of `expected`'s words found in `found`, in order-free multiset terms (word accuracy). */
export function wordAccuracy(expected: string, found: string): number {
  const want = expected.split(/\s+/).filter(Boolean);
  const have = new Map<string, number>();
  for (const word of found.split(/\s+/).filter(Boolean)) have.set(word, (have.get(word) ?? 0) + 1);
  let hits = 0;
  for (const word of want) {
    const n = have.get(word) ?? 0;
    if (n > 0) {
      hits++;
      have.set(word, n - 1);
    }
  }
  return want.length === 0 ? 1 : hits / want.length;
}
