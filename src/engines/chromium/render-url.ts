import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { AddressPolicy } from '../net/address-policy.js';
import { startPolicyProxy } from '../net/policy-proxy.js';
import { pdfOptions } from './pdf-options.js';
import { writePdf } from './render.js';
import { RequestGuard, type GuardHooks } from './request-guard.js';
import type { HtmlJob } from './types.js';
import { UrlLoadError, type UrlJob, type UrlResult } from './url-job.js';

/** After `load`, the page counts as finished once the network was quiet this long. */
const NETWORK_QUIET_MS = 500;

/**
 * One web page → PDF in a browser that is already running, with the same walls as uploaded HTML
 * (render.ts): a fresh incognito context, every request judged by the job's `RequestGuard` (the
 * address policy, one decision per host) and all traffic through the job's policy proxy, which
 * connects only to the addresses that were judged (no DNS rebinding) and covers what interception
 * does not see (WebSockets).
 *
 * Timing: navigation waits for the `load` event without a timeout of its own — a page that never
 * gets there runs into the pool's job time limit, which kills (and replaces) the browser; then the
 * network may stay busy for up to `networkIdleTimeoutMs` before what has arrived is printed.
 */
export async function renderUrl(browser: Browser, job: UrlJob): Promise<UrlResult> {
  const htmlJob: HtmlJob = {
    inputPath: '',
    outputPath: job.outputPath,
    page: job.page,
    ...(job.headerHtml === undefined ? {} : { headerHtml: job.headerHtml }),
    ...(job.footerHtml === undefined ? {} : { footerHtml: job.footerHtml }),
    preferCSSPageSize: false,
    printBackground: true,
    javascript: true,
    network: { allowRemote: true, policy: job.policy },
  };
  const options = pdfOptions(htmlJob);
  const origin = new URL(job.url).origin;
  const originHeaders = headersForOrigin(job);

  // A limit passed or a redirect refused: the job fails at once, whatever the page is doing.
  let tripped: UrlLoadError | undefined;
  let trip!: (error: UrlLoadError) => void;
  const failed = new Promise<never>((_, reject) => {
    trip = (error) => {
      tripped ??= error;
      reject(tripped);
    };
  });
  failed.catch(() => undefined);

  let page: Page | undefined;
  let requests = 0;
  const hooks: GuardHooks = {
    refuse: (request) => {
      if (!job.followRedirects && isMainRedirect(request, page)) {
        trip(new UrlLoadError('refused', `${job.url} redirects to ${clip(request.url())}, and settings.http.followRedirect is false.`));
        return true;
      }
      requests += 1;
      if (requests > job.maxRequests) {
        trip(new UrlLoadError('limit', `The page made more than ${job.maxRequests} requests (urlconverter.maxRequests).`));
        return true;
      }
      return false;
    },
    headers: (request) => (originHeaders && sameOrigin(request.url(), origin) ? originHeaders : undefined),
  };
  const guard = new RequestGuard(htmlJob.network, hooks);
  // Every byte the page receives passes the job's proxy (http bodies, https and WebSocket tunnels).
  let bytes = 0;
  const onBytes = (count: number): void => {
    bytes += count;
    if (bytes > job.maxBytes) trip(new UrlLoadError('limit', `The page downloaded more than ${job.maxBytes} bytes (urlconverter.maxBytes).`));
  };
  const upstream = job.proxy && {
    address: job.proxy.address,
    port: job.proxy.port,
    ...(job.proxy.userName !== '' || job.proxy.password !== '' ? { authorization: basic(job.proxy.userName, job.proxy.password) } : {}),
  };
  const proxy = await startPolicyProxy({ check: guard.checkHost, onRefused: guard.recordRefused, onBytes, ...(upstream ? { upstream } : {}) });
  try {
    const context = await browser.createBrowserContext({ proxyServer: proxy.url, proxyBypassList: ['<-loopback>'], downloadBehavior: { policy: 'deny' } });
    try {
      page = await context.newPage();
      page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
      if (job.userAgent) await page.setUserAgent(job.userAgent);
      await guard.attach(page);
      const response = await Promise.race([navigate(page, job, guard), failed]);
      const status = response?.status() ?? 0;
      if (status >= 400) throw new UrlLoadError('unreachable', `${job.url} answered with HTTP status ${status}.`);
      await Promise.race([settle(page, job.networkIdleTimeoutMs), failed]);
      guard.markUnfinished();
      await Promise.race([checkLength(page, job), failed]);
      const title = (await page.title()).trim();
      const finalUrl = page.url();
      await Promise.race([writePdf(page, options, htmlJob), failed]);
      return { ...guard.result(), title, finalUrl };
    } finally {
      await context.close().catch(() => undefined);
    }
  } finally {
    await proxy.close();
  }

  async function navigate(target: Page, urlJob: UrlJob, requestGuard: RequestGuard) {
    try {
      return await target.goto(urlJob.url, { waitUntil: 'load', timeout: 0 });
    } catch (error) {
      if (tripped) throw tripped;
      const message = (error as Error).message;
      if (/ERR_BLOCKED_BY_CLIENT/.test(message)) throw await refusal(urlJob, requestGuard.result().blocked, error);
      if (/net::ERR_/.test(message)) throw new UrlLoadError('unreachable', `${urlJob.url} could not be loaded: ${message.replace(/ at .*$/, '')}.`, { cause: error });
      throw error;
    }
  }
}

/** Authorization (basicAuth) and the extra headers, for requests to the target's origin. */
function headersForOrigin(job: UrlJob): Record<string, string> | undefined {
  const headers: Record<string, string> = { ...job.headers };
  if (job.basicAuth) headers.authorization = basic(job.basicAuth.userName, job.basicAuth.password);
  return Object.keys(headers).length > 0 ? headers : undefined;
}

function basic(userName: string, password: string): string {
  return `Basic ${Buffer.from(`${userName}:${password}`, 'utf8').toString('base64')}`;
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

/** A hop of the page's own navigation after the first request (a redirect of the main document). */
function isMainRedirect(request: HTTPRequest, page: Page | undefined): boolean {
  return page !== undefined && request.isNavigationRequest() && request.frame() === page.mainFrame() && request.redirectChain().length > 0;
}

/**
 * A page that would print to more than `maxPages` is refused before printing (an endless feed, a
 * table of millions of rows): its laid-out height over the printable height of one sheet, in CSS
 * pixels at 96 per inch. An estimate — forced page breaks add pages — that bounds the work.
 */
async function checkLength(page: Page, job: UrlJob): Promise<void> {
  const height = Number(await page.evaluate('Math.max(document.documentElement ? document.documentElement.scrollHeight : 0, document.body ? document.body.scrollHeight : 0)'));
  const printable = ((job.page.height - job.page.marginTop - job.page.marginBottom) / 25.4) * 96;
  const pages = Math.ceil(height / Math.max(1, printable));
  if (pages > job.maxPages) throw new UrlLoadError('limit', `The page is about ${pages} pages long, more than ${job.maxPages} (urlconverter.maxPages).`);
}

/** Waits for a quiet network after `load`, at most `timeoutMs`; then stops what still loads. */
async function settle(page: Page, timeoutMs: number): Promise<void> {
  try {
    await page.waitForNetworkIdle({ idleTime: NETWORK_QUIET_MS, concurrency: 0, timeout: Math.max(1, timeoutMs) });
  } catch (error) {
    const { TimeoutError } = await import('puppeteer-core');
    if (!(error instanceof TimeoutError)) throw error;
    await page.evaluate('window.stop()');
  }
}

/** The main document (or a redirect of it) was blocked by the guard: why, in the policy's words. */
async function refusal(job: UrlJob, blocked: string[], cause: unknown): Promise<UrlLoadError> {
  const target = blocked.find((url) => /^https?:/i.test(url)) ?? blocked[0];
  if (target === undefined) return new UrlLoadError('refused', `${job.url} was refused by the network policy.`, { cause });
  const decision = await new AddressPolicy(job.policy).checkUrl(target).catch(() => undefined);
  const reason = decision && !decision.allowed ? decision.reason : 'refused by the network policy';
  const hop = target === job.url ? job.url : `${job.url} redirects to ${clip(target)}, which`;
  return new UrlLoadError('refused', `${hop} is refused: ${reason} (network.allowInternal / network.allowHosts).`, { cause });
}

function clip(url: string): string {
  return url.length > 300 ? `${url.slice(0, 300)}…` : url;
}
