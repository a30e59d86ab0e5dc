import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Browser, Page, PDFOptions } from 'puppeteer-core';
import { startPolicyProxy } from '../net/policy-proxy.js';
import { HtmlEngineError } from './errors.js';
import { readHtml, withBaseUrl } from './html-input.js';
import { pdfOptions } from './pdf-options.js';
import { RequestGuard } from './request-guard.js';
import type { HtmlJob, HtmlResult } from './types.js';

/** With scripts on, the page counts as loaded once the network was quiet this long after `load`. */
const NETWORK_QUIET_MS = 200;

/**
 * One conversion in a browser that is already running: a fresh incognito context per job (no
 * cookies, cache or storage shared between jobs), closed again whatever happens.
 *
 * @param loadTimeoutMs how long to wait for the page's resources; then what has arrived is printed
 * (like a reader who stops waiting), and what is still loading is reported as failed.
 */
export async function render(browser: Browser, job: HtmlJob, loadTimeoutMs: number): Promise<HtmlResult> {
  // Cheap refusals first, before the browser does any work.
  const options = pdfOptions(job);
  let html = await readHtml(job.inputPath, job.maxHtmlBytes);
  if (job.network.baseURL !== undefined) html = withBaseUrl(html, job.network.baseURL);

  const guard = new RequestGuard(job.network);
  const proxy = await startPolicyProxy({ check: guard.checkHost, onRefused: guard.recordRefused });
  try {
    // All of the context's traffic goes through the job's proxy; `<-loopback>` because Chromium would
    // otherwise send loopback addresses past it, directly.
    const context = await browser.createBrowserContext({ proxyServer: proxy.url, proxyBypassList: ['<-loopback>'], downloadBehavior: { policy: 'deny' } });
    try {
      const page = await context.newPage();
      // alert(), confirm() and prompt() would stop the page until someone answers.
      page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
      await page.setJavaScriptEnabled(job.javascript);
      await guard.attach(page);
      await load(page, html, job.javascript, loadTimeoutMs);
      guard.markUnfinished();
      await writePdf(page, options, job);
      return guard.result();
    } finally {
      await context.close().catch(() => undefined);
    }
  } finally {
    await proxy.close();
  }
}

async function load(page: Page, html: string, javascript: boolean, loadTimeoutMs: number): Promise<void> {
  const deadline = Date.now() + loadTimeoutMs;
  try {
    await page.setContent(html, { waitUntil: 'load', timeout: loadTimeoutMs });
    // Without scripts, `load` already covers every resource; with them, fetches may start later.
    if (javascript) await page.waitForNetworkIdle({ idleTime: NETWORK_QUIET_MS, concurrency: 0, timeout: Math.max(1, deadline - Date.now()) });
  } catch (error) {
    // puppeteer is loaded by now (the page exists); imported here so that loading this module does not load it.
    const { TimeoutError } = await import('puppeteer-core');
    if (!(error instanceof TimeoutError)) throw error;
    // Pending loads would hold up printing for seconds; stop them as the browser's stop button does.
    await page.evaluate('window.stop()');
  }
}

/**
 * Streams the PDF into a file of its own next to `outputPath` and renames it when complete: no half
 * file is ever visible, and an attempt whose browser died cannot remove the output of the retry.
 */
export async function writePdf(page: Page, options: PDFOptions, job: HtmlJob): Promise<void> {
  const part = `${job.outputPath}.${randomBytes(6).toString('hex')}.part`;
  try {
    const stream = await page.createPDFStream(options);
    await pipeline(Readable.fromWeb(stream as WebReadableStream<Uint8Array>), createWriteStream(part));
    await rename(part, job.outputPath);
  } catch (error) {
    await rm(part, { force: true });
    // Chromium's words: "Page range syntax error", "Page range exceeds page count".
    if (error instanceof Error && /page range/i.test(error.message)) {
      throw new HtmlEngineError('pageRange', `The page range "${job.pageRanges}" cannot be printed: ${error.message.replace(/^.*?\): /, '').toLowerCase()}.`, { cause: error });
    }
    throw error;
  }
}
