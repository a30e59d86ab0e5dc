import type { PDFOptions } from 'puppeteer-core';
import { HtmlEngineError } from './errors.js';
import type { HtmlJob } from './types.js';

/** Chromium's print options for a job. */
export function pdfOptions(job: HtmlJob): PDFOptions {
  const { page } = job;
  for (const [name, value] of Object.entries(page)) {
    const positive = name === 'width' || name === 'height';
    if (!Number.isFinite(value) || value < 0 || (positive && value === 0)) {
      throw new HtmlEngineError('invalidOption', `The page ${name} must be a ${positive ? 'positive' : 'non-negative'} number of millimetres, not ${value}.`);
    }
  }
  const headerFooter = job.headerHtml !== undefined || job.footerHtml !== undefined;
  return {
    width: `${page.width}mm`,
    height: `${page.height}mm`,
    margin: { top: `${page.marginTop}mm`, right: `${page.marginRight}mm`, bottom: `${page.marginBottom}mm`, left: `${page.marginLeft}mm` },
    preferCSSPageSize: job.preferCSSPageSize,
    printBackground: job.printBackground,
    ...(job.pageRanges?.trim() ? { pageRanges: job.pageRanges.trim() } : {}),
    ...(headerFooter
      ? {
          displayHeaderFooter: true,
          // An absent template must still be given: Chromium would print its own (date, title, URL).
          headerTemplate: template(job.headerHtml),
          footerTemplate: template(job.footerHtml),
        }
      : {}),
    // The pool's job time limit governs; puppeteer's own 30 s default would cut long jobs short.
    timeout: 0,
  };
}

/**
 * Chromium renders header and footer templates with a default font size so small that text does not
 * show; a template that sets no font size of its own gets 10px. (They print inside the page margins:
 * a zero top or bottom margin hides them.)
 */
function template(html: string | undefined): string {
  if (html === undefined || html === '') return '<span></span>';
  return /font-size/i.test(html) ? html : `<div style="font-size:10px;width:100%">${html}</div>`;
}
