/**
 * Shared by the portal's browser tests: the build check, Debian's Chromium through playwright-core,
 * contexts that enforce the portal's Content-Security-Policy and record every violation, and the
 * page actions (log in, drop files, read the session's token) the flows are made of.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const BUILT = path.join(ROOT, 'dist/portal/index.html');
export const SCREENSHOTS = path.join(ROOT, 'test-results/portal-screenshots');
export const AXE = path.join(ROOT, 'node_modules/axe-core/axe.min.js');
const CHROMIUM = process.env.QUIRE_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** The newest modification time under a path (the portal's sources). */
function newest(file: string): number {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(file).map((name) => newest(path.join(file, name))));
}

/** `vite build` once when dist/portal is missing or older than portal/ (seconds; skipped when current). */
export function ensureBuilt(): void {
  let built = 0;
  try {
    built = statSync(BUILT).mtimeMs;
  } catch {
    // not built
  }
  if (built > newest(path.join(ROOT, 'portal'))) return;
  execFileSync(path.join(ROOT, 'node_modules/.bin/vite'), ['build', '--config', 'portal/vite.config.ts', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit', timeout: 120_000 });
}

/** Debian's Chromium, headless (never a downloaded browser). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** A context that enforces the CSP and records every violation (and page error) for the test to assert on. */
export async function strictContext(
  browser: Browser,
  url: string,
  options: Parameters<Browser['newContext']>[0] = {},
  beforeLoad?: (page: Page) => Promise<void>,
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB', ...options });
  const page = await context.newPage();
  await beforeLoad?.(page);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(url);
  return { context, page, problems };
}

export async function loginAs(page: Page, user: string, password: string): Promise<void> {
  await page.getByLabel('User name').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in', exact: true }).click();
  await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
}

/** The session's token as the portal keeps it (sessionStorage of this tab), for checks through the REST API. */
export async function tokenOf(page: Page): Promise<string> {
  return page.evaluate(() => (JSON.parse((globalThis as any).sessionStorage.getItem('quire.session') ?? '{}') as { token: string }).token);
}

// Callbacks of page.evaluate run in the page: the test's program has no DOM types (on purpose: the
// server's code must not use them), so they reach the browser's globals as `(globalThis as any)`.

/** Drops files on the drop zone the way a browser does: a DataTransfer built in the page, dragenter/over/drop. */
export async function dropFiles(page: Page, files: Array<{ name: string; content: Buffer; type?: string }>): Promise<void> {
  const payload = files.map((file) => ({ name: file.name, type: file.type ?? 'application/pdf', base64: file.content.toString('base64') }));
  await page.getByTestId('dropzone').evaluate((zone, items) => {
    const transfer = new (globalThis as any).DataTransfer();
    for (const item of items) {
      const bytes = Uint8Array.from(atob(item.base64), (char) => char.charCodeAt(0));
      transfer.items.add(new (globalThis as any).File([bytes], item.name, { type: item.type }));
    }
    for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new (globalThis as any).DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
  }, payload);
}

/** axe-core's serious and critical violations on the page (injected from node_modules), one line each: rule id and targets. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const result = (await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] })) as {
      violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
    };
    return result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  });
}
