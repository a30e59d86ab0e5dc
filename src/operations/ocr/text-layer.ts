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
