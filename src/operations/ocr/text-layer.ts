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
 * grown), turned by `angle` again about the centre and put on a page of the original image's size
 * (`width` × `height` points): the invisible words then lie over the still-skewed words of the page
 * the user sees. pdf-lib draws Tesseract's page as a form XObject under a rotation matrix; the text
 * itself (render mode 3, glyphless font) is copied as it is.
 */
export async function turnTextLayer(input: string, output: string, angle: number, width: number, height: number): Promise<void> {
  const { PDFDocument, degrees } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.create();
  const [form] = await document.embedPdf(await readFile(input), [0]);
  if (!form) throw new Error('Tesseract wrote a text page without pages');
  const page = document.addPage([width, height]);
  // PDF turns counter-clockwise for a positive angle (y up); the image's lines run clockwise by `angle`.
  const theta = (-angle * Math.PI) / 180;
  const [u, v] = [form.width / 2, form.height / 2];
  page.drawPage(form, { x: width / 2 - (u * Math.cos(theta) - v * Math.sin(theta)), y: height / 2 - (u * Math.sin(theta) + v * Math.cos(theta)), rotate: degrees(-angle) });
  await writeFile(output, await document.save());
}
