import { readFile, writeFile } from 'node:fs/promises';
import type { PdfStructureTool } from '../../engines/contracts.js';

/**
 * Grafts Tesseract's text-only pages (invisible text, render mode 3, no image) over the original
 * pages with qpdf's overlay: each text page becomes a form XObject drawn after the page's own
 * content, whose streams stay byte for byte as they were (qpdf wraps them in q/Q streams of its own,
 * it does not rewrite them). The text page is the rendered page's size (pixels × 72 / dpi), so qpdf's
 * fit to the page box is a scale of 1 up to the rounding of one pixel.
 */
export async function graftTextLayers(
  qpdf: PdfStructureTool,
  input: string,
  layers: readonly { page: number; pdf: string }[],
  scratchFile: () => string,
  output: string,
  deadline: number,
): Promise<void> {
  if (layers.length === 0) {
    await qpdf.run([input, output], { deadline });
    return;
  }
  const merged = scratchFile();
  await qpdf.run(['--empty', '--pages', ...layers.map((layer) => layer.pdf), '--', merged], { deadline });
  const to = layers.map((layer) => layer.page).join(',');
  await qpdf.run([input, '--overlay', merged, `--to=${to}`, `--from=1-${layers.length}`, '--', output], { deadline });
}

/**
 * The text page Tesseract wrote for a deskewed image (deskew.ts: turned back by `angle`, its canvas
 * grown) made the layer of the original, still skewed image: a page of that image's size (`width` ×
 * `height` points) on which each word starts where the turned word starts (its origin turned by
 * `angle` about the page centre), its glyphs left level. Level words, not a turned layer: poppler
 * (pdftotext, Evince's search) assembles words of turned glyphs by baselines that drift along the
 * line and splits words; level words stay whole (the box of a long word is off the slanted word
 * by its width × sin(angle) at its end).
 *
 * Tesseract's text-only page is BT … ET with `Tm` once per block and `Td` moves per word (text
 * render mode 3, its glyphless font); the rewrite tracks the line matrix and replaces each move by
 * an absolute `Tm` at the turned origin; fonts, sizes and horizontal scaling stay as Tesseract wrote
 * them (its page, resources and all, copied by pdf-lib).
 */
export async function turnTextLayer(input: string, output: string, angle: number, width: number, height: number): Promise<void> {
  const { PDFDocument, PDFName, PDFRawStream, PDFArray, decodePDFRawStream } = await import('@cantoo/pdf-lib');
  const source = await PDFDocument.load(await readFile(input));
  const sourcePage = source.getPage(0);
  const { width: formWidth, height: formHeight } = sourcePage.getSize();
  const contents = sourcePage.node.Contents();
  const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => source.context.lookup(ref)) : [contents];
  const text = streams.map((stream) => (stream instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1') : '')).join('\n');
  // The page centre of the straightened image goes to the centre of the original, turned by `angle`
  // (clockwise as seen; PDF's y runs up, so a clockwise turn is a negative PDF angle).
  const theta = (-angle * Math.PI) / 180;
  const [cos, sin] = [Math.cos(theta), Math.sin(theta)];
  const place = (u: number, v: number): [number, number] => {
    const [du, dv] = [u - formWidth / 2, v - formHeight / 2];
    return [width / 2 + du * cos - dv * sin, height / 2 + du * sin + dv * cos];
  };
  const document = await PDFDocument.create();
  const [page] = await document.copyPages(source, [0]);
  if (!page) throw new Error('Tesseract wrote a text page without pages');
  document.addPage(page);
  page.setSize(width, height);
  page.node.set(PDFName.of('Contents'), document.context.register(document.context.flateStream(levelWords(text, place))));
  await writeFile(output, await document.save());
}

/** Tesseract's text operators with every word at an absolute, placed origin (see turnTextLayer). */
function levelWords(content: string, place: (u: number, v: number) => [number, number]): string {
  const tokens = content.match(/\[[^\]]*\]|<[^>]*>|\([^)]*\)|\/[^\s/[\]<>()]+|[-+]?(?:\d+\.?\d*|\.\d+)|[A-Za-z'"*]+/g) ?? [];
  const out: string[] = [];
  let operands: string[] = [];
  // The line matrix [a b c d e f] of the text object.
  let line = [1, 0, 0, 1, 0, 0];
  const fixed = (value: number) => (Math.round(value * 1000) / 1000).toString();
  for (const token of tokens) {
    if (!/^[A-Za-z'"*]+$/.test(token)) {
      operands.push(token);
      continue;
    }
    const numbers = operands.map(Number);
    if (token === 'BT') line = [1, 0, 0, 1, 0, 0];
    if (token === 'Tm' && numbers.length === 6) {
      line = numbers;
    } else if (token === 'Td' && numbers.length === 2) {
      const [tx, ty] = numbers as [number, number];
      const [a, b, c, d, e, f] = line as [number, number, number, number, number, number];
      line = [a, b, c, d, e + tx * a + ty * c, f + tx * b + ty * d];
    } else if (token === 'TJ' || token === 'Tj') {
      const [x, y] = place(line[4]!, line[5]!);
      out.push(`${line.slice(0, 4).map(fixed).join(' ')} ${fixed(x)} ${fixed(y)} Tm`, ...operands, token);
    } else if (token !== 'cm' && token !== 'q' && token !== 'Q') {
      // BT, ET, Tr, Tf, Tz and the like pass as they are; the page-sized q … cm … Q Tesseract draws
      // first is of the straightened page's size and is left out.
      out.push(...operands, token);
    }
    operands = [];
  }
  return out.join(' ');
}
