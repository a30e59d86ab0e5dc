import { loadPdf, savePdf } from '../pdf-lib-io.js';
import { blacken, type BlackenOptions } from './blacken.js';
import { rasterizePages, type RasterEnvironment } from './rasterize.js';
import { sanitize, type SanitizeCategories } from './sanitize.js';

/**
 * The redaction engine (webPDF toolbox `redact`): `blacken` applies the document's redaction
 * annotations by removing the content under them, `sanitize` removes categories of hidden content
 * and can rasterise pages. Works on a decrypted PDF with pdf-lib; the caller rewrites the result with
 * qpdf, which drops every object no longer referenced (the replaced content streams and images).
 */
export interface RedactJob {
  blacken?: BlackenOptions;
  sanitize?: SanitizeCategories & {
    /** Pages (0-based) to replace by a raster of themselves, and its resolution. */
    pages?: { pageIndexes: number[]; dpi: number };
  };
}

export interface RedactReport {
  /** Pages (1-based) that had redaction annotations applied. */
  blackenedPages: number[];
  /** Pages (1-based) rasterised by `blacken` because their content could not be edited glyph by glyph. */
  rasterizedForRedaction: { page: number; reason: string }[];
  /** Pages (1-based) rasterised by `sanitize.pages`. */
  rasterizedForSanitize: number[];
}

export async function redactPdf(input: string, output: string, job: RedactJob, env: RasterEnvironment): Promise<RedactReport> {
  const document = await loadPdf(input);
  const report: RedactReport = { blackenedPages: [], rasterizedForRedaction: [], rasterizedForSanitize: [] };
  if (job.blacken) {
    const result = await blacken(document, job.blacken, env.deadline);
    report.blackenedPages = result.pages.map((index) => index + 1);
    await rasterizePages(document, result.raster, env);
    report.rasterizedForRedaction = result.raster.map((r) => ({ page: r.pageIndex + 1, reason: r.reason }));
  }
  if (job.sanitize) {
    sanitize(document, job.sanitize);
    const pages = job.sanitize.pages;
    if (pages && pages.pageIndexes.length > 0) {
      await rasterizePages(
        document,
        pages.pageIndexes.map((pageIndex) => ({ pageIndex, dpi: pages.dpi, boxes: [] })),
        env,
      );
      report.rasterizedForSanitize = pages.pageIndexes.map((index) => index + 1);
    }
  }
  await savePdf(document, output);
  return report;
}

export type { BlackenOptions } from './blacken.js';
export type { SanitizeCategories } from './sanitize.js';
export type { RasterEnvironment } from './rasterize.js';
export { MAX_RASTER_PIXELS } from './rasterize.js';
export { RedactionError } from './errors.js';
