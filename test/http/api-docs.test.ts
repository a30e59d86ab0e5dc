/**
 * Issue 19: Swagger UI at /webPDF/api-docs/ — served from swagger-ui-dist, on this server's OpenAPI
 * document, and working under the portal's Content-Security-Policy (checked in Debian's Chromium:
 * the page renders the document and reports no violation).
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';

describe('Swagger UI', () => {
  const { server } = useTestServer({ session: false });
  const origin = () => new URL(server.rest).origin;
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  it('redirects to the page with a trailing slash', async () => {
    const response = await fetch(`${origin()}/webPDF/api-docs`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/webPDF/api-docs/');
  });

  it('serves a page whose scripts and style sheets all answer 200, under the strict policy', async () => {
    const page = await fetch(`${origin()}/webPDF/api-docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i); // no inline script
    expect(html).not.toMatch(/<style|style=/i);
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, `${origin()}/webPDF/api-docs/`));
    expect(urls.map((u) => u.pathname)).toEqual(expect.arrayContaining(['/webPDF/api-docs/swagger-ui-bundle.js', '/webPDF/api-docs/swagger-initializer.js', '/webPDF/api-docs/swagger-ui.css']));
    for (const url of urls) {
      expect(url.origin).toBe(origin());
      const response = await fetch(url);
      // Read every body: an unread one keeps its connection busy, and the server's close waits for it.
      await response.arrayBuffer();
      expect(response.status, url.pathname).toBe(200);
      if (url.pathname.endsWith('.js')) expect(response.headers.get('content-type'), url.pathname).toMatch(/javascript/);
      if (url.pathname.endsWith('.css')) expect(response.headers.get('content-type'), url.pathname).toMatch(/^text\/css/);
    }
    const initializer = await (await fetch(`${origin()}/webPDF/api-docs/swagger-initializer.js`)).text();
    expect(initializer).toContain('"/webPDF/rest/openapi.json"');
    expect(initializer).not.toContain('petstore');
  });

  it("renders this server's OpenAPI document in Chromium without a policy violation", async () => {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${origin()}/webPDF/api-docs/`);
    await page.locator('.swagger-ui .info .title').filter({ hasText: 'Quire REST interface' }).waitFor({ timeout: 20_000 });
    await page.locator('.opblock-tag-section').first().waitFor({ timeout: 20_000 });
    expect(problems).toEqual([]);
  }, 40_000);
});
