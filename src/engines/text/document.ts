import { escapeHtml } from './escape.js';

export interface HtmlDocumentParts {
  /** Shown by nothing but kept by Chromium as the PDF's title. */
  title: string;
  /** Our own style sheet; must come from validated values only (it is not escaped). */
  css: string;
  /** Markup that goes into <head> after our style sheet, e.g. a mail's own style sheets. */
  head?: string;
  /** The body's markup. */
  body: string;
  /**
   * A Content-Security-Policy for the page. Chromium honours it in a <meta> element, so it holds even
   * if a job is run with JavaScript on: a second line of defence behind the escaping and sanitising.
   */
  contentSecurityPolicy: string;
}

/** A complete UTF-8 HTML document (standards mode) from its parts. */
export function htmlDocument(parts: HtmlDocumentParts): string {
  return (
    '<!DOCTYPE html>\n<html><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(parts.contentSecurityPolicy)}">` +
    `<title>${escapeHtml(parts.title)}</title>\n<style>\n${parts.css}</style>\n${parts.head ?? ''}` +
    `</head>\n<body>${parts.body}</body></html>\n`
  );
}
