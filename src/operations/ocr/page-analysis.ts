import { readFile } from 'node:fs/promises';
import { runTool, type ToolLimits } from '../../engines/poppler/tool.js';

/**
 * What the OCR needs to know of a PDF before it rasterises anything, read with poppler: how many
 * pages, which already carry text (pdftotext), and the resolution of the images on each page
 * (pdfimages -list), for `checkResolution` and the warnings.
 */
export interface PageFacts {
  page: number;
  /** The page's extractable text ("" when none). */
  text: string;
  /** The lowest resolution of the page's images, in dpi; undefined when the page has no image. */
  minDpi: number | undefined;
}

/** Pages of `file`, one entry each. `textFile` is a scratch path for pdftotext's output. */
export async function analysePages(file: string, textFile: string, limits: ToolLimits): Promise<PageFacts[]> {
  const [texts, dpis] = await Promise.all([allTexts(file, textFile, limits), imageResolutions(file, limits)]);
  const count = await pageCount(file, limits);
  return Array.from({ length: count }, (_, i) => ({ page: i + 1, text: texts[i] ?? '', minDpi: dpis.get(i + 1) }));
}

async function pageCount(file: string, limits: ToolLimits): Promise<number> {
  const result = await runTool('pdfinfo', [file], { ...limits, maxOutputBytes: 256 * 1024 });
  const match = /^Pages:\s+(\d+)/m.exec(result.stdout.toString('utf8'));
  return match ? Number(match[1]) : 0;
}

async function allTexts(file: string, output: string, limits: ToolLimits): Promise<string[]> {
  await runTool('pdftotext', ['-q', '-enc', 'UTF-8', '-eol', 'unix', file, output], limits);
  // pdftotext ends every page with a form feed.
  return (await readFile(output, 'utf8')).split('\f');
}

/**
 * The lowest x/y ppi of the images of each page (pdfimages -list; smasks and stencil masks are
 * left out: they are not what the scan's resolution is).
 */
async function imageResolutions(file: string, limits: ToolLimits): Promise<Map<number, number>> {
  const result = await runTool('pdfimages', ['-list', file], { ...limits, maxOutputBytes: 8 * 1024 * 1024 });
  const lowest = new Map<number, number>();
  for (const line of result.stdout.toString('utf8').split('\n').slice(2)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 14) continue;
    const [page, , type] = cols;
    if (type !== 'image') continue;
    const xppi = Number(cols[12]);
    const yppi = Number(cols[13]);
    if (!Number.isFinite(xppi) || !Number.isFinite(yppi)) continue;
    const dpi = Math.min(xppi, yppi);
    const at = Number(page);
    lowest.set(at, Math.min(lowest.get(at) ?? Infinity, dpi));
  }
  return lowest;
}

/**
 * Whether every font of page `page` is Tesseract's GlyphLessFont (pdffonts): its text is an OCR
 * layer (Quire's or another Tesseract-based tool's) over a scan, not text of its own. Recognising
 * such a page again (forceEachPage) would lay a second layer over the same words.
 */
export async function onlyOcrLayer(file: string, page: number, limits: ToolLimits): Promise<boolean> {
  const result = await runTool('pdffonts', ['-f', String(page), '-l', String(page), file], { ...limits, maxOutputBytes: 256 * 1024 });
  const names = result.stdout
    .toString('utf8')
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
  return names.length > 0 && names.every((name) => /(^|\+)GlyphLessFont$/.test(name));
}
