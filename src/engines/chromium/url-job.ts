import type { AddressPolicyOptions } from '../net/address-policy.js';
import type { JobOptions } from '../contracts.js';
import { HtmlEngineError } from './errors.js';
import type { HtmlResult, PageSetup } from './types.js';

/** One web page → PDF: the page is loaded from `url` under the address policy and printed. */
export interface UrlJob {
  /** An absolute http(s) URL; its host was checked by the caller and is checked again by the browser's guard. */
  url: string;
  outputPath: string;
  page: PageSetup;
  /** Chromium header/footer templates (classes date, title, url, pageNumber, totalPages are filled in). */
  headerHtml?: string;
  footerHtml?: string;
  /** Which hosts the page and everything it loads may come from. */
  policy: AddressPolicyOptions;
  /** Sent as `Authorization: Basic` to the target's origin only (scheme, host and port of `url`). */
  basicAuth?: { userName: string; password: string };
  /** Extra request headers, sent to the target's origin only (like the credentials). */
  headers?: Record<string, string>;
  userAgent?: string;
  /** An HTTP proxy every request goes through (its address judged by the caller); targets are still judged by the policy. */
  proxy?: { address: string; port: number; userName: string; password: string };
  /** Follow redirects of the page itself (each hop is judged by the policy); false: a redirect fails the job. */
  followRedirects: boolean;
  /** Most bytes the page may download (as they reach the policy proxy); past it the job fails (`UrlLoadError` `limit`). */
  maxBytes: number;
  /** Most requests the page may make; past it the job fails. */
  maxRequests: number;
  /** Most pages the page may print to, estimated from its laid-out height before printing; past it the job fails. */
  maxPages: number;
  /** After `load`, how long to wait for the network to go quiet before printing what is there, ms. */
  networkIdleTimeoutMs: number;
}

export interface UrlResult extends HtmlResult {
  /** The page's `<title>`, trimmed; '' when it has none. */
  title: string;
  /** Where the page ended up after redirects. */
  finalUrl: string;
}

/** The URL conversions of the Chromium engine (the pool's own failures arrive as `PoolError`). */
export interface UrlRenderer {
  convertUrl(job: UrlJob, options?: JobOptions): Promise<UrlResult>;
}

/**
 * Why a page could not be converted, by the page's own doing: the policy refused the page or a
 * redirect of it (`refused`), it could not be reached or answered with an error status
 * (`unreachable`), or it passed a per-job limit (`limit`). A `renderFailed` for the pool and the
 * generic mapping; callers that know the URL converter read `reason`.
 */
export type UrlFailure = 'refused' | 'unreachable' | 'limit';

export class UrlLoadError extends HtmlEngineError {
  constructor(
    readonly reason: UrlFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('renderFailed', message, options);
  }
}
