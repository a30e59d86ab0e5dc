/**
 * Issue 19: the portal in a real browser. Debian's Chromium (never a downloaded one) driven by
 * playwright-core, headless, against a real server that serves the built portal (dist/portal, built
 * here when it is missing or older than its sources). Results are checked with independent tools
 * (pdfinfo on the downloaded file) and the REST API, accessibility with axe-core on every page.
 *
 * The flows run in browser contexts that enforce the portal's Content-Security-Policy, and a CSP
 * violation fails the test. Only the accessibility pass uses `bypassCSP: true`: axe-core is injected
 * as an inline script (page.addScriptTag), which the portal's policy refuses, as it should.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { realPdf } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import { pdfinfo } from '../helpers/pdf-tools.js';
import { ALICE_AND_ROOT_YAML } from '../helpers/server.js';
import { numberedPdf } from '../helpers/toolbox.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { DESKTOP, dropFiles, ensureBuilt, launchChromium, loginAs, PHONE, SCREENSHOTS, strictContext as openStrictContext, tokenOf, seriousAxeViolations } from './helpers.js';

ensureBuilt();

// The loopback OpenID Connect provider the OIDC login goes to (its endpoints are in the server's configuration).
const idp = await startOidcProvider();
afterAll(() => idp.stop());

const { server } = useTestServer({
  yaml: `${ALICE_AND_ROOT_YAML}oauth:\n  providers:\n${idp.providerYaml()}\n`,
  session: false,
  // Log lines for the logs page (the daily file only, not the test's console).
  // Webhooks to a loopback receiver, failing for good after two quick attempts (the replay queue test).
  env: { QUIRE_LOG__LEVEL: 'info', QUIRE_LOG__CONSOLE: 'false', QUIRE_NETWORK__ALLOW_INTERNAL: 'true', QUIRE_WEBHOOKS__MAX_ATTEMPTS: '2', QUIRE_WEBHOOKS__RETRY_DELAY: '0.02' },
});

let browser: Browser;
const tempDir = useTempDir('portal');
const portal = () => `${new URL(server.rest).origin}/webPDF/`;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A context on this server's portal that enforces the CSP and records every violation (helpers.ts). */
const strictContext = (options: Parameters<Browser['newContext']>[0] = {}, beforeLoad?: (page: Page) => Promise<void>) => openStrictContext(browser, portal(), options, beforeLoad);

describe('the portal in Chromium', () => {
  it('refuses a wrong password with the server message, logs a user in, switches to German and logs out', async () => {
    const { context, page, problems } = await strictContext();
    try {
      await page.getByLabel('User name').fill('alice');
      await page.getByLabel('Password').fill('wrong');
      await page.getByRole('button', { name: 'Log in', exact: true }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Login failed/);
      await loginAs(page, 'alice', 'wonderland');
      await expect(page.locator('header .user').textContent()).resolves.toBe('alice');
      // No administration for a user.
      await expect(page.getByRole('link', { name: 'Administration' }).count()).resolves.toBe(0);
      // The token lives in sessionStorage only.
      await expect(page.evaluate(() => (globalThis as any).localStorage.length)).resolves.toBe(0);
      await page.getByLabel('Language').selectOption('de');
      await page.getByRole('link', { name: 'Dokumente' }).waitFor();
      await expect(page.evaluate(() => (globalThis as any).document.documentElement.lang)).resolves.toBe('de');
      await page.getByRole('button', { name: 'Abmelden' }).click();
      await page.getByText('Sie haben sich abgemeldet').waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('starts in German for a German browser, and works by keyboard', async () => {
    const { context, page, problems } = await strictContext({ locale: 'de-DE' });
    try {
      await page.getByRole('heading', { name: 'Bei Quire anmelden' }).waitFor();
      // By keyboard only: Tab to the anonymous login and press Enter; then the skip link moves the focus to the content.
      const focused = () => page.evaluate(() => ((globalThis as any).document.activeElement?.textContent ?? '') as string);
      for (let presses = 0; presses < 8 && (await focused()) !== 'Ohne Konto fortfahren'; presses++) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Dokumente', level: 1 }).waitFor();
      await page.keyboard.press('Tab');
      await expect(focused()).resolves.toBe('Zum Inhalt springen');
      await page.keyboard.press('Enter');
      await expect(page.evaluate(() => (globalThis as any).document.activeElement?.id)).resolves.toBe('main');
      await expect(page.locator('header .user').textContent()).resolves.toBe('Gast');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('uploads dropped files with progress, runs a toolbox rotate from its form, previews and downloads the result; a bad value shows at its field', async () => {
    const { context, page, problems } = await strictContext();
    try {
      await page.getByRole('button', { name: 'Continue without an account' }).click();
      await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
      await dropFiles(page, [
        { name: 'first.pdf', content: await realPdf(2, 'First') },
        { name: 'second.pdf', content: await realPdf(3, 'Second') },
      ]);
      await page.locator('.upload.done').nth(1).waitFor();
      await expect(page.locator('.upload progress').evaluateAll((bars) => bars.map((bar) => (bar as any).value))).resolves.toEqual([1, 1]);
      await page.locator('table.documents tbody tr').nth(1).waitFor();
      // The server has both, with the pages the list shows.
      const token = await tokenOf(page);
      const stored = (await (await fetch(`${server.rest}/documents/list`, { headers: { authorization: `Bearer ${token}` } })).json()) as Array<{ documentId: string; fileName: string }>;
      expect(stored.map((document) => document.fileName).sort()).toEqual(['first', 'second']);
      await expect(page.locator('tr', { hasText: 'second.pdf' }).locator('td[data-label="Pages"]').textContent()).resolves.toBe('3');
      const second = stored.find((document) => document.fileName === 'second')!.documentId;
      // Page thumbnails rendered by the server, fetched with the token and shown from blob: URLs (img-src blob:).
      const thumbnail = page.locator(`tr[data-document="${second}"] img.thumb`);
      await thumbnail.waitFor();
      await expect(thumbnail.getAttribute('src')).resolves.toMatch(/^blob:/);
      await expect(thumbnail.evaluate((image) => (image as any).naturalWidth)).resolves.toBe(160);

      // The toolbox form: one rotate step on the second document.
      await page.getByRole('link', { name: 'Web services' }).click();
      await page.getByRole('link', { name: 'toolbox', exact: true }).click();
      await page.getByLabel('Document').selectOption(second);
      await page.getByLabel('Add an operation').selectOption('rotate');
      await page.getByRole('button', { name: 'Add rotate' }).click();
      const degrees = page.locator('#f-toolbox-0-rotate-degrees');
      // The server's message at the field it names (33 is within the schema's 0..360, the server refuses it).
      await degrees.fill('33');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.locator('#f-toolbox-0-rotate-degrees-error').waitFor();
      await expect(page.locator('#f-toolbox-0-rotate-degrees-error').textContent()).resolves.toMatch(/33 is not a multiple of 90/);
      await expect(degrees.getAttribute('aria-invalid')).resolves.toBe('true');

      await degrees.fill('90');
      await page.locator('#f-toolbox-0-rotate-pages').fill('1-2');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByRole('heading', { name: 'Result: second.pdf' }).waitFor();
      // pdf.js (loaded on demand, its worker from the build) drew page 1 under the CSP.
      await page.getByText('Page 1 of 3').waitFor();
      await expect(page.getByTestId('pdf-canvas').evaluate((canvas) => (canvas as any).width)).resolves.toBeGreaterThan(100);
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.result').getByRole('button', { name: 'Download' }).click()]);
      const file = path.join(tempDir, 'rotated.pdf');
      await download.saveAs(file);
      const pages = pdfinfo(file, '-f', '1', '-l', '3');
      expect(pages).toMatch(/Page\s+1 rot:\s+90/);
      expect(pages).toMatch(/Page\s+2 rot:\s+90/);
      expect(pages).toMatch(/Page\s+3 rot:\s+0/);

      // The same form as an asynchronous job: its progress is shown until it has finished.
      await page.getByLabel('Run as a background job (with progress)').check();
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByText('Finished', { exact: true }).waitFor();
      const again = path.join(tempDir, 'rotated-again.pdf');
      const response = await fetch(`${server.rest}/documents/${second}`, { headers: { authorization: `Bearer ${token}` } });
      writeFileSync(again, Buffer.from(await response.arrayBuffer()));
      expect(pdfinfo(again, '-f', '1', '-l', '1')).toMatch(/Page\s+1 rot:\s+180/);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('logs in at an OpenID Connect provider (authorization code with PKCE) and uses its token with Quire', async () => {
    const { context, page, problems } = await strictContext();
    try {
      const before = idp.counts.token;
      await page.getByRole('button', { name: 'Log in with Test OIDC' }).click();
      await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
      await expect(page.locator('header .user').textContent()).resolves.toBe('olivia');
      expect(idp.counts.token).toBe(before + 1);
      // Back at the portal without the code in the address bar; the provider's JWT is the session's token.
      expect(new URL(page.url()).search).toBe('');
      const token = await tokenOf(page);
      const info = (await (await fetch(`${server.rest}/authentication/user/info`, { headers: { authorization: `Bearer ${token}` } })).json()) as { userName: string };
      expect(info.userName).toBe('olivia');
      expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).iss).toBe(idp.issuer);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('renews the session with the refresh token before the access token expires (the page clock runs ahead)', async () => {
    const { context, page, problems } = await strictContext({}, (page) => page.clock.install());
    try {
      await loginAs(page, 'alice', 'wonderland');
      type Saved = { token: string; refreshToken: string; expiresAt: number };
      const saved = () => page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('quire.session')) as Saved);
      const before = await saved();
      expect(before.refreshToken).not.toBe('');
      // The token lives an hour (session.lifetime); the portal renews it a minute before the end.
      await page.clock.fastForward(before.expiresAt - (await page.evaluate(() => Date.now())) - 30_000);
      await page.waitForFunction((old) => JSON.parse((globalThis as any).sessionStorage.getItem('quire.session')).token !== old, before.token);
      const after = await saved();
      expect(after.refreshToken).not.toBe(before.refreshToken);
      // The server rotated them: the old refresh token is refused, the new access token works.
      const refreshWithOld = await fetch(`${server.rest}/authentication/user/refresh`, { method: 'POST', headers: { authorization: `Bearer ${before.refreshToken}` } });
      expect(refreshWithOld.status).toBe(401);
      expect((await fetch(`${server.rest}/authentication/user/info`, { headers: { authorization: `Bearer ${after.token}` } })).status).toBe(200);
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect(page.locator('header .user').textContent()).resolves.toBe('alice');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("lets an administrator close a user's session (the user's portal then says it has expired) and change a setting", async () => {
    const user = await strictContext();
    const admin = await strictContext();
    try {
      await user.page.getByRole('button', { name: 'Continue without an account' }).click();
      await user.page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
      const userToken = await tokenOf(user.page);
      const { uniqueId } = (await (await fetch(`${server.rest}/authentication/user/info`, { headers: { authorization: `Bearer ${userToken}` } })).json()) as { uniqueId: string };

      await loginAs(admin.page, 'root', 'toor');
      await admin.page.getByRole('link', { name: 'Administration' }).click();
      await admin.page.getByRole('link', { name: 'Sessions' }).click();
      const row = admin.page.locator(`tr[data-session="${uniqueId}"]`);
      await row.getByRole('button', { name: /Close/ }).click();
      await admin.page.getByText('The session was closed').waitFor();
      await row.waitFor({ state: 'detached' });
      // The server ended it: its token is refused (independent of the page).
      expect((await fetch(`${server.rest}/authentication/user/info`, { headers: { authorization: `Bearer ${userToken}` } })).status).toBe(401);

      await user.page.getByRole('button', { name: 'Refresh' }).click();
      await user.page.getByText('Your session has expired').waitFor();
      await expect(user.page.evaluate(() => (globalThis as any).sessionStorage.getItem('quire.session'))).resolves.toBeNull();

      // A setting: the server's validation problem shows at its field, a valid value is saved.
      await admin.page.getByRole('link', { name: 'Configuration' }).click();
      const instances = admin.page.locator('#f-configuration-webservices-converter-instances');
      // The groups start folded: open webservices, then converter (summary of the details around each fieldset).
      await admin.page.locator('details:has(> #f-configuration-webservices) > summary').click();
      await admin.page.locator('details:has(> #f-configuration-webservices-converter) > summary').click();
      await instances.fill('-3');
      await admin.page.getByRole('button', { name: 'Validate' }).click();
      await expect(admin.page.locator('#f-configuration-webservices-converter-instances-error').textContent()).resolves.toMatch(/must be >= 0/);
      await instances.fill('1');
      await admin.page.getByRole('button', { name: 'Save' }).click();
      await admin.page.getByText('The configuration was saved.').waitFor();
      // Written to the configuration file (it applies at the next restart, as the page says).
      await admin.page.getByText(/A restart applies: .*engines\.libreoffice\.workers/).waitFor();
      const written = parseYaml(readFileSync(path.join(server.dataDir, 'quire.yaml'), 'utf8')) as any;
      expect(written.engines.libreoffice.workers).toBe(1);
      expect([...user.problems, ...admin.problems]).toEqual([]);
    } finally {
      await user.context.close();
      await admin.context.close();
    }
  });

  it('lets an administrator find a failed webhook in the replay queue, requeue it with a reason, and follow the log', async () => {
    // A loopback port with nothing listening: the job's webhook fails twice and lands in the replay queue.
    const receiver = http.createServer((request, response) => {
      deliveries.push(request.url ?? '');
      request.resume();
      response.writeHead(204).end();
    });
    const deliveries: string[] = [];
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    const { token } = (await (await fetch(`${server.rest}/authentication/user/login`, { method: 'POST' })).json()) as { token: string };
    const form = new FormData();
    form.append('filedata', new Blob([new Uint8Array(await realPdf(1, 'Hooked'))]), 'hooked.pdf');
    const uploaded = (await (await fetch(`${server.rest}/documents`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })).json()) as { documentId: string };
    const accepted = await fetch(`${server.rest}/toolbox/${uploaded.documentId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', prefer: 'respond-async', 'x-quire-callback-url': `http://127.0.0.1:${port}/hook` },
      body: JSON.stringify({ toolbox: [{ rotate: { pages: '1', degrees: 90 } }] }),
    });
    expect(accepted.status).toBe(202);

    const { context, page, problems } = await strictContext();
    try {
      await loginAs(page, 'root', 'toor');
      await page.getByRole('link', { name: 'Administration' }).click();
      await page.getByRole('link', { name: 'Replay queue' }).click();
      // The page refreshes itself; the entry appears once the queue has used up the attempts.
      const row = page.locator('tr[data-entry]', { hasText: 'webhook' });
      await row.waitFor({ timeout: 30_000 });
      await row.getByRole('button', { name: 'Inspect' }).click();
      await page.locator('pre.summary').getByText(`127.0.0.1:${port}/hook`).waitFor();
      // The receiver is back: the requeued delivery reaches it.
      await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
      await page.getByLabel('Reason').fill('receiver fixed');
      await page.getByRole('button', { name: 'Requeue' }).click();
      await page.getByText('The entry is queued again.').waitFor();
      await expect.poll(() => deliveries, { timeout: 15_000 }).toEqual(['/hook']);

      // Today's log follows the server (Range requests for what was appended): a request made now shows up.
      const logAnswers: number[] = [];
      page.on('response', (response) => {
        if (response.url().includes('/admin/server/log')) logAnswers.push(response.status());
      });
      await page.getByRole('link', { name: 'Logs', exact: true }).click();
      await page.locator('pre.log').getByText('"path":"/webPDF/rest/admin/dlq/failed"').first().waitFor();
      const marker = `tail-marker-${Date.now()}`;
      expect((await fetch(`${server.rest}/${marker}`)).status).toBe(404);
      await page.locator('pre.log').getByText(marker).waitFor({ timeout: 15_000 });
      expect(logAnswers[0]).toBe(200);
      expect(logAnswers).toContain(206);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      if (receiver.listening) await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it('has no serious or critical axe-core violations on any page, at desktop and phone size (screenshots saved)', async () => {
    // bypassCSP only here: axe-core goes in as an inline script, which the portal's CSP refuses.
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB', bypassCSP: true });
    const page = await context.newPage();
    const findings: string[] = [];
    const check = async (name: string, ready: () => Promise<unknown>): Promise<void> => {
      await ready();
      for (const [size, viewport] of [
        ['desktop', DESKTOP],
        ['phone', PHONE],
      ] as const) {
        await page.setViewportSize(viewport);
        await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${size}.png`) });
      }
      await page.setViewportSize(DESKTOP);
      const violations = await seriousAxeViolations(page);
      findings.push(...violations.map((violation) => `${name}: ${violation}`));
    };
    try {
      await page.goto(portal());
      await check('login', () => page.getByRole('heading', { name: 'Log in to Quire' }).waitFor());
      await loginAs(page, 'root', 'toor');
      await dropFiles(page, [{ name: 'report.pdf', content: await numberedPdf(2) }]);
      await check('documents', () => page.locator('table.documents img.thumb').first().waitFor());
      await page.getByRole('button', { name: /^Info/ }).first().click();
      await check('document-info', () => page.getByRole('heading', { name: 'History' }).waitFor());
      await page.getByRole('button', { name: 'Close' }).click();
      await page.getByRole('link', { name: 'Web services' }).click();
      await page.getByRole('link', { name: 'toolbox', exact: true }).click();
      await page.getByRole('button', { name: 'Add rotate' }).click();
      await check('services-toolbox', () => page.locator('#f-toolbox-0-rotate-degrees').waitFor());
      await page.getByRole('link', { name: 'Administration' }).click();
      await check('admin-dashboard', () => page.getByRole('table').getByText('toolbox').waitFor());
      for (const [link, name, ready] of [
        ['Sessions', 'admin-sessions', 'table.sessions'],
        ['Logs', 'admin-logs', 'pre.log'],
        ['Replay queue', 'admin-replay', 'p.empty'],
        ['Configuration', 'admin-configuration', '#f-configuration'],
      ] as const) {
        await page.getByRole('link', { name: link, exact: true }).click();
        await check(name, () => page.locator(ready).first().waitFor());
      }
      expect(findings).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
