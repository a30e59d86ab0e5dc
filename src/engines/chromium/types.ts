import type { AddressPolicyOptions } from '../net/address-policy.js';

import type { PageSetup } from '../../core/page-setup.js';

/** Paper and margins, in millimetres. */
export type { PageSetup };

/** What an HTML document may load. The default for uploaded HTML is `allowRemote: false`: no network at all. */
export interface HtmlNetwork {
  /** Load http(s) resources at all (still subject to `policy`). `file:` is never loaded. */
  allowRemote: boolean;
  /** Inserted as `<base href>`, so that relative references resolve against it. */
  baseURL?: string;
  /** Which hosts remote resources may come from. */
  policy: AddressPolicyOptions;
}

/** One HTML → PDF conversion. */
export interface HtmlJob {
  /** The HTML file (its charset is taken from a BOM or `<meta charset>`, else UTF-8). */
  inputPath: string;
  /** Where the PDF is written (complete or not at all: it appears by rename once finished). */
  outputPath: string;
  page: PageSetup;
  /** Chromium header template (classes date, title, url, pageNumber, totalPages are filled in). */
  headerHtml?: string;
  footerHtml?: string;
  /** An `@page { size }` of the document wins over `page.width`/`page.height`. */
  preferCSSPageSize: boolean;
  printBackground: boolean;
  /** Chromium syntax, e.g. "1-3,5"; all pages when absent or empty. */
  pageRanges?: string;
  /** Run the document's scripts. */
  javascript: boolean;
  network: HtmlNetwork;
  /** Larger HTML files are refused (`inputTooLarge`); default 64 MiB. */
  maxHtmlBytes?: number;
  /**
   * How long to wait for the page's resources before printing what has arrived; the engine's
   * default (half the job's time limit, at most `loadTimeoutMs`) when absent.
   */
  loadTimeoutMs?: number;
}

export interface HtmlResult {
  /** URLs (or "host:port" of tunnels) refused by the network rules. */
  blocked: string[];
  /** URLs that failed to load: network errors, HTTP status 400 and above, or still loading when the wait ended. */
  failed: string[];
}
