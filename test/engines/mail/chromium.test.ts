import fs from 'node:fs';
import puppeteer from 'puppeteer-core';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailToHtml } from '../../../src/engines/mail/render.js';
import { sanitizeHtml, serializeHtml } from '../../../src/engines/mail/sanitize-html.js';
import { textToHtml } from '../../../src/engines/text/render.js';
import { HOSTILE_HTML } from './payloads.js';

/**
 * The sanitiser parses with htmlparser2; Chromium, which prints the result, parses with a WHATWG
 * parser. These tests let Chromium itself parse the output, with JavaScript on, and look for anything
 * that could run. Skipped where Chromium is not installed (quire.sh installs it).
 */
const CHROMIUM = '/usr/bin/chromium';

interface Finding {
  element: string;
  attribute?: string;
}

/**
 * Runs in the page (as a string: the project's TypeScript has no DOM types): elements that run or
 * embed something, handler attributes and script URLs, as Chromium's own DOM has them.
 */
const FIND_RUNNABLE = `(() => {
  const findings = [];
  const forbidden = new Set(['SCRIPT', 'IFRAME', 'FRAME', 'OBJECT', 'EMBED', 'FORM', 'BASE', 'NOSCRIPT', 'TEMPLATE']);
  for (const element of document.querySelectorAll('*')) {
    const tag = element.tagName.toUpperCase();
    if (forbidden.has(tag)) findings.push({ element: element.tagName });
    if (tag === 'META' && element.hasAttribute('http-equiv') && element.getAttribute('http-equiv').toLowerCase() !== 'content-security-policy') {
      findings.push({ element: 'META', attribute: 'http-equiv' });
    }
    for (const attribute of element.attributes) {
      const value = attribute.value.replace(/[\\s\\u0000-\\u001f]/g, '').toLowerCase();
      if (attribute.name.startsWith('on') || value.startsWith('javascript:') || value.startsWith('vbscript:')) {
        findings.push({ element: element.tagName, attribute: attribute.name });
      }
    }
  }
  return findings;
})()`;

describe.skipIf(!fs.existsSync(CHROMIUM))('rendered HTML in Chromium, JavaScript on', () => {
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];

  beforeAll(async () => {
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    await page.setJavaScriptEnabled(true);
    // Offline: only data: URLs load, so an external reference fails at once instead of waiting on DNS.
    await page.setRequestInterception(true);
    page.on('request', (request) => void (request.url().startsWith('data:') ? request.continue() : request.abort()));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Loads the markup, gives late events (autofocus, toggle, image errors) a moment, and lists what could run. */
  async function load(html: string): Promise<Finding[]> {
    // A new document each time: setContent rewrites the current one, which keeps a previous page's CSP.
    await page.goto('about:blank');
    await page.setContent(html, { waitUntil: 'load' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    return (await page.evaluate(FIND_RUNNABLE)) as Finding[];
  }

  it('finds nothing that runs in the sanitised payloads', async () => {
    for (const payload of HOSTILE_HTML) {
      const markup = serializeHtml(sanitizeHtml(payload));
      expect(await load(`<!DOCTYPE html><html><head></head><body>${markup}</body></html>`), `${payload}\n→ ${markup}`).toEqual([]);
    }
    expect(dialogs).toEqual([]);
  });

  it('lets the Content-Security-Policy of a mail document block script that got past the sanitiser', async () => {
    const html = mailToHtml({ subject: 's', from: '', to: '', cc: '', html: '<p>x</p>', attachments: [] }).replace(
      '<div class="quire-mail-body">',
      '<div class="quire-mail-body"><script>alert("inline")</script><img src="data:," onerror="alert(\'handler\')">',
    );
    await load(html);
    expect(dialogs).toEqual([]);
  });

  it('lets the Content-Security-Policy of a text document block script too', async () => {
    const html = textToHtml('x').replace('<div class="quire-text">', '<script>alert("inline")</script><div class="quire-text">');
    await load(html);
    expect(dialogs).toEqual([]);
  });

  it('the check works: an unsanitised payload is found and runs', async () => {
    expect(await load('<!DOCTYPE html><body><img src="data:," onerror="alert(1)"></body>')).toEqual([{ element: 'IMG', attribute: 'onerror' }]);
    expect(dialogs).toEqual(['1']);
    dialogs.length = 0;
  });
});
