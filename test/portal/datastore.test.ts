/**
 * Issue 19: the administration's data store page in a real browser. The admin uploads a PNG logo and
 * edits the theme; the data store and the portal's public theme answer that PNG (bytes compared, its
 * size read by `file`), the header and the login page show it, the theme's colour applies, and
 * removing the logo brings back the built-in one. axe-core and screenshots as in portal.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ALICE_AND_ROOT_YAML } from '../helpers/server.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { DESKTOP, ensureBuilt, launchChromium, loginAs, PHONE, SCREENSHOTS, strictContext, tokenOf, seriousAxeViolations } from './helpers.js';

ensureBuilt();

const { server } = useTestServer({ yaml: ALICE_AND_ROOT_YAML, session: false });
const tempDir = useTempDir('portal-datastore');
let browser: Browser;
const portal = () => `${new URL(server.rest).origin}/webPDF/`;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A PNG of one colour, written chunk by chunk (the test's own bytes, read back by `file` and the browser). */
function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', header), chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

/** The header's logo once it has loaded: its address and its natural size. */
async function headerLogo(page: Page, selector = 'header img.logo'): Promise<{ src: string; width: number; height: number }> {
  const logo = page.locator(selector);
  await logo.waitFor();
  await page.waitForFunction((element) => (element as any).complete && (element as any).naturalWidth > 0, await logo.elementHandle());
  return logo.evaluate((element) => ({ src: (element as any).src as string, width: (element as any).naturalWidth as number, height: (element as any).naturalHeight as number }));
}

describe('the data store page in Chromium', () => {
  it('stores a PNG logo and a theme that the portal then uses, and removes them again', async () => {
    const png = solidPng(48, 24, [200, 30, 30]);
    const file = path.join(tempDir, 'logo.png');
    writeFileSync(file, png);
    expect(execFileSync('file', ['-b', file], { encoding: 'utf8' })).toMatch(/^PNG image data, 48 x 24/);

    const { context, page, problems } = await strictContext(browser, portal());
    try {
      await loginAs(page, 'root', 'toor');
      // Before: the built-in logo (an SVG) in the header.
      expect((await headerLogo(page)).src).toMatch(/\/webPDF\/rest\/portal\/theme\/logo/);
      await page.getByRole('link', { name: 'Administration' }).click();
      await page.getByRole('link', { name: 'Logo and theme' }).click();
      await page.getByRole('heading', { name: 'Logo and theme', level: 1 }).waitFor();
      await page.getByTestId('logo-preview').waitFor();
      await expect(page.getByText('None stored.').count()).resolves.toBe(1); // no background yet

      await page.locator('#datastore-logo').setInputFiles(file);
      await page.getByText('Logo stored; the portal uses it now.').waitFor();
      // The data store holds exactly these bytes, and the portal's public logo is them.
      const token = await tokenOf(page);
      const stored = (await (await fetch(`${server.rest}/admin/datastore/logo`, { headers: { authorization: `Bearer ${token}` } })).json()) as { fileContent: string };
      expect(Buffer.from(stored.fileContent, 'base64').equals(png)).toBe(true);
      const publicLogo = await fetch(`${server.rest}/portal/theme/logo`);
      expect(publicLogo.headers.get('content-type')).toMatch(/^image\/png/);
      expect(Buffer.from(await publicLogo.arrayBuffer()).equals(png)).toBe(true);
      // The header shows it without a reload, as does the page's preview.
      await page.waitForFunction(() => ((globalThis as any).document.querySelector('header img.logo')?.naturalWidth ?? 0) === 48);
      const shown = await headerLogo(page);
      expect(shown.src).toMatch(/\/webPDF\/rest\/portal\/theme\/logo\?v=\d+$/);
      expect([shown.width, shown.height]).toEqual([48, 24]);
      await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="logo-preview"]')?.naturalWidth === 48);

      // A CSS theme, stored twice: the portal links it once, not once per reload.
      const saveTheme = async (text: string) => {
        await page.getByLabel(/^Theme \(a JSON object/).fill(text);
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Theme stored; the portal uses it now.').waitFor();
      };
      const styleOf = (property: string) => page.evaluate((p) => (globalThis as any).document.documentElement.style.getPropertyValue(p) as string, property);
      const themeLinks = () => page.locator('link#quire-theme-stylesheet').count();
      await saveTheme(':root { --text: #111111; }');
      await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('link#quire-theme-stylesheet').length === 1);
      await saveTheme(':root { --text: #222222; }');
      await page.waitForTimeout(500);
      expect(await themeLinks()).toBe(1);
      // A JSON theme replaces it: the stylesheet goes, its colour applies.
      await saveTheme('{"textColor": "#202020"}');
      await page.waitForFunction(() => (globalThis as any).document.documentElement.style.getPropertyValue('--text') === '#202020');
      expect(await themeLinks()).toBe(0);
      // The theme: a colour the portal applies as its accent; the text colour the old theme set is gone.
      await saveTheme('{"primaryColor": "#5a2d82"}');
      await page.waitForFunction(() => (globalThis as any).document.documentElement.style.getPropertyValue('--accent') === '#5a2d82');
      expect(await styleOf('--text')).toBe('');
      // A theme that is neither JSON nor CSS: the server's message, nothing stored.
      await page.getByLabel(/^Theme \(a JSON object/).fill('just words');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/A theme must be a JSON object or a CSS style sheet/);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }

    // A new visitor: the login page shows the stored logo and uses the theme's colour.
    const visitor = await strictContext(browser, portal(), { viewport: PHONE });
    try {
      await visitor.page.getByRole('heading', { name: 'Log in to Quire' }).waitFor();
      const logo = await headerLogo(visitor.page, 'img.logo');
      expect(logo.src).toMatch(/\/webPDF\/rest\/portal\/theme\/logo$/);
      expect([logo.width, logo.height]).toEqual([48, 24]);
      await visitor.page.waitForFunction(() => (globalThis as any).document.documentElement.style.getPropertyValue('--accent') === '#5a2d82');
      expect(visitor.problems).toEqual([]);
    } finally {
      await visitor.context.close();
    }

    // Removing the logo: the data store answers the built-in SVG again, and the header shows it.
    const { context: again, page: admin, problems: againProblems } = await strictContext(browser, portal());
    try {
      await loginAs(admin, 'root', 'toor');
      await admin.goto(`${portal()}admin/datastore`);
      await admin.getByTestId('logo-preview').waitFor();
      await admin.getByRole('button', { name: 'Remove Logo' }).click();
      await admin.getByText('Logo removed.').waitFor();
      const builtIn = await fetch(`${server.rest}/portal/theme/logo`);
      expect(builtIn.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      await admin.waitForFunction(() => ((globalThis as any).document.querySelector('header img.logo')?.naturalWidth ?? 48) !== 48);
      // The page's preview shows the built-in SVG (a blob typed image/svg+xml).
      await admin.waitForFunction(() => ((globalThis as any).document.querySelector('[data-testid="logo-preview"]')?.naturalWidth ?? 0) > 0);
      expect(againProblems).toEqual([]);
    } finally {
      await again.close();
    }
  });

  it('has no serious or critical axe-core violations, at desktop and phone size (screenshots saved)', async () => {
    // bypassCSP only here: axe-core goes in as an inline script, which the portal's CSP refuses.
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB', bypassCSP: true });
    const page = await context.newPage();
    try {
      await page.goto(portal());
      await loginAs(page, 'root', 'toor');
      await page.goto(`${portal()}admin/datastore`);
      await page.getByTestId('logo-preview').waitFor();
      await page.locator('#datastore-theme:not([disabled])').waitFor();
      for (const [size, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        await page.setViewportSize(viewport);
        await page.screenshot({ path: path.join(SCREENSHOTS, `admin-datastore-${size}.png`), fullPage: true });
      }
      await page.setViewportSize(DESKTOP);
      const violations = await seriousAxeViolations(page);
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
