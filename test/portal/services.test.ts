/**
 * Issue 19: every web service run from its generated form in Chromium (helpers.ts: Debian's browser,
 * the CSP enforced), each result downloaded through the portal and checked with the independent tools
 * the API tests use: pdfinfo and pdftotext (converter, urlconverter, OCR), pdfinfo's XMP (PDF/A
 * identification; our validator is the code under test), pdfsig (signature), zbarimg on a pdftoppm
 * render (barcode). One anonymous session runs them one after another.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MM, renderPage, zbar } from '../engines/barcode/readers.js';
import { realPdf } from '../helpers/documents.js';
import { useTestServer } from '../helpers/fixture.js';
import { pdfinfo, qpdfObjects, textOf } from '../helpers/pdf-tools.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { imagePdf, scanPage, textPdf } from '../operations/ocr/scans.js';
import { type Listener, listen, page as sitePage } from '../operations/urlconverter/site.js';
import { dropFiles, ensureBuilt, launchChromium, SCREENSHOTS, strictContext, tokenOf } from './helpers.js';

ensureBuilt();

// The urlconverter may fetch the loopback site only because this configuration allows 127.0.0.1.
// Chromium's pool only (HTML and web pages); LibreOffice stays off: its warm pool costs seconds and memory.
const { server } = useTestServer({
  session: false,
  engines: true,
  env: { QUIRE_ENGINES__LIBREOFFICE__ENABLED: 'false' },
  yaml: 'network:\n  allowHosts: ["127.0.0.1"]\nurlconverter:\n  timeout: 8\n  networkIdleTimeout: 1\n',
});
const tempDir = useTempDir('portal-services');

let browser: Browser;
let site: Listener;
beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
  site = await listen('127.0.0.1', (_url, _headers, reply) => reply(200, 'text/html', sitePage('Loopback', '<h1>Fetched from loopback</h1>')));
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** The session's documents as the server lists them. */
async function documentsOf(page: Page): Promise<Array<{ documentId: string; fileName: string }>> {
  const response = await fetch(`${server.rest}/documents/list`, { headers: { authorization: `Bearer ${await tokenOf(page)}` } });
  return (await response.json()) as Array<{ documentId: string; fileName: string }>;
}

/**
 * Drags a rectangle on the placement preview's page 1 from (fromX, fromY) to (toX, toY), fractions of
 * the page as displayed; answers the rectangle in points from the top-left corner (595 x 842 pt pages).
 */
async function dragOnPage(page: Page, from: [number, number], to: [number, number]): Promise<{ x: number; y: number; width: number; height: number }> {
  const placement = page.locator('fieldset.placement');
  await placement.getByText('Page 1 of').waitFor();
  // The page's top at the top of the window: the mouse reaches only what is in the viewport.
  await placement.getByTestId('pdf-overlay').evaluate((overlay) => (overlay as any).scrollIntoView({ block: 'start' }));
  const bounds = (await placement.getByTestId('pdf-overlay').boundingBox())!;
  await page.mouse.move(bounds.x + from[0] * bounds.width, bounds.y + from[1] * bounds.height);
  await page.mouse.down();
  await page.mouse.move(bounds.x + ((from[0] + to[0]) / 2) * bounds.width, bounds.y + ((from[1] + to[1]) / 2) * bounds.height, { steps: 4 });
  await page.mouse.move(bounds.x + to[0] * bounds.width, bounds.y + to[1] * bounds.height, { steps: 4 });
  await page.mouse.up();
  await placement.getByTestId('placed').waitFor();
  return { x: from[0] * 595, y: from[1] * 842, width: (to[0] - from[0]) * 595, height: (to[1] - from[1]) * 842 };
}

/** The barcode form on a document with one QR code item (its group opened) holding `value`. */
async function addQrCode(page: Page, documentName: string, value: string): Promise<void> {
  await chooseService(page, 'barcode', documentName);
  await openGroup(page, 'f-barcode-add');
  await page.getByRole('button', { name: 'Add qrcode', exact: true }).click();
  await openGroup(page, 'f-barcode-add-qrcode-0');
  await page.locator('#f-barcode-add-qrcode-0-value').fill(value);
}

/** Opens a folded group of the form (the <details> around the fieldset with this id). */
async function openGroup(page: Page, id: string): Promise<void> {
  const details = page.locator(`details:has(> #${id})`);
  if (!(await details.evaluate((element) => (element as any).open as boolean))) await details.locator('> summary').click();
}

async function chooseService(page: Page, service: string, documentName?: string): Promise<void> {
  await page.getByRole('link', { name: 'Web services' }).click();
  await page.getByRole('link', { name: service, exact: true }).click();
  await page.locator('h2#service-title', { hasText: service }).waitFor();
  if (documentName) await page.getByLabel('Document', { exact: true }).selectOption({ label: documentName });
}

/** Runs the form and waits for its result; the server's message (shown instead) fails the test with it. */
async function runForm(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.locator('.service-form .result, .service-form .error').first().waitFor({ timeout: 50_000 });
  const failure = page.locator('.service-form .error');
  if (await failure.count()) throw new Error(`the form shows: ${await failure.textContent()}`);
  return page.locator('.result');
}

/** Runs the form and saves the portal's download of its result. */
async function runAndDownload(page: Page, file: string): Promise<string> {
  const result = await runForm(page);
  const [download] = await Promise.all([page.waitForEvent('download'), result.getByRole('button', { name: 'Download' }).click()]);
  const saved = path.join(tempDir, file);
  await download.saveAs(saved);
  return saved;
}

describe('every web service from its form in Chromium', () => {
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let scan: string;

  beforeAll(async () => {
    ({ context, page, problems } = await strictContext(browser, `${new URL(server.rest).origin}/webPDF/`));
    await page.getByRole('button', { name: 'Continue without an account' }).click();
    await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
    const source = await textPdf(path.join(tempDir, 'scan-source.pdf'), [[{ text: 'Searchable portal scan', x: 20, y: 110, size: 24 }]]);
    scan = await imagePdf(path.join(tempDir, 'scan.pdf'), [await scanPage(source, 1, 300, path.join(tempDir, 'scan.png'))]);
    await dropFiles(page, [
      { name: 'report.html', type: 'text/html', content: Buffer.from(sitePage('Report', '<p>Quarterly portal report</p>')) },
      { name: 'plain.pdf', content: await realPdf(2, 'Plain') },
      { name: 'scan.pdf', content: readFileSync(scan) },
      // Analysed as it is (plain.pdf becomes PDF/A in the convert test).
      { name: 'raw.pdf', content: await realPdf(1, 'Raw') },
      // Placement by dragging (595 x 842 pt pages).
      { name: 'place-signature.pdf', content: await realPdf(1, 'Signature placement') },
      { name: 'place-barcode.pdf', content: await realPdf(2, 'Barcode placement') },
    ]);
    await page.locator('.upload.done').nth(5).waitFor();
  });
  afterAll(async () => {
    expect(problems).toEqual([]);
    await context?.close();
  });

  it('converter: HTML to PDF with the defaults (the required group is sent empty); pdfinfo and pdftotext', async () => {
    await chooseService(page, 'converter', 'report.html');
    const converted = await runAndDownload(page, 'converted.pdf');
    expect(pdfinfo(converted)).toMatch(/Pages:\s+1\b/);
    expect(textOf(converted)).toContain('Quarterly portal report');
  });

  it('pdfa: convert to level 2b; the XMP identification as pdfinfo reads it', async () => {
    await chooseService(page, 'pdfa', 'plain.pdf');
    await openGroup(page, 'f-pdfa-convert');
    await page.locator('#f-pdfa-convert-level').selectOption('2b');
    const archived = await runAndDownload(page, 'archived.pdf');
    const xmp = pdfinfo(archived, '-meta');
    expect(xmp).toMatch(/pdfaid:part(>|=")2/);
    expect(xmp).toMatch(/pdfaid:conformance(>|=")B/);
  });

  it('pdfa analyze: the report shown as a readable view (verdict, counts, failed rules with clause, description and page), as the server stored it', async () => {
    await chooseService(page, 'pdfa', 'raw.pdf');
    await openGroup(page, 'f-pdfa-analyze');
    await page.locator('#f-pdfa-analyze-level').selectOption('2b');
    const result = await runForm(page);
    const view = result.getByTestId('pdfa-report');
    await view.waitFor({ timeout: 10_000 }).catch(async (error: Error) => {
      throw new Error(`${error.message}; the result shows: ${await result.innerText()}`);
    });
    // The stored report, read through the REST API: the view shows what it says.
    const stored = (await documentsOf(page)).find((document) => document.fileName === 'raw-pdfa-2b-report')!;
    const response = await fetch(`${server.rest}/documents/${stored.documentId}`, { headers: { authorization: `Bearer ${await tokenOf(page)}` } });
    const { report } = (await response.json()) as {
      report: { verdict: string; counts: Record<string, number>; rules: Array<{ id: string; clause: string; description: string; status: string; failures: Array<{ page?: number }> }> };
    };
    expect(report.verdict).toBe('non-compliant');
    await expect(view.getByTestId('pdfa-verdict').textContent()).resolves.toBe('non-compliant');
    for (const count of ['passed', 'failed', 'notChecked']) await expect(view.locator(`dd[data-count="${count}"]`).textContent()).resolves.toBe(String(report.counts[count]));
    const failed = report.rules.filter((rule) => rule.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    await expect(view.locator('tr[data-rule]').evaluateAll((rows) => rows.map((row) => (row as any).dataset.rule as string))).resolves.toEqual(failed.map((rule) => rule.id));
    const first = view.locator(`tr[data-rule="${failed[0]!.id}"]`);
    await expect(first.locator('td').nth(1).textContent()).resolves.toBe(failed[0]!.clause);
    await expect(first.locator('td').nth(2).textContent()).resolves.toBe(failed[0]!.description);
    // A rule that failed on a page names it (content and fonts carry their first page; the XMP has none).
    const onPage = failed.find((rule) => rule.failures.some((failure) => failure.page !== undefined));
    await view.screenshot({ path: path.join(SCREENSHOTS, 'services-pdfa-report-desktop.png') });
    if (onPage) await expect(view.locator(`tr[data-rule="${onPage.id}"] td`).nth(4).textContent()).resolves.toMatch(/\b1\b/);
  });

  it('ocr: the scanned image gets a text layer pdftotext reads', async () => {
    await chooseService(page, 'ocr', 'scan.pdf');
    expect(textOf(scan).trim()).toBe('');
    const recognised = await runAndDownload(page, 'recognised.pdf');
    expect(textOf(recognised)).toMatch(/searchable\s+portal\s+scan/i);
  });

  it("signature: add with the server's generated key store; pdfsig finds it with its reason", async () => {
    await chooseService(page, 'signature', 'plain.pdf');
    await openGroup(page, 'f-signature-add');
    await page.locator('#f-signature-add-include').check();
    await page.locator('#f-signature-add-reason').fill('Signed in the portal');
    const signed = await runAndDownload(page, 'signed.pdf');
    const report = spawnSync('pdfsig', ['-nocert', signed], { encoding: 'utf8' });
    expect(`${report.stdout}${report.stderr}`).toMatch(/Signature #1/);
    expect(`${report.stdout}${report.stderr}`).toMatch(/Signature is Valid/);
    // The reason typed into the form is in the signature dictionary (written uncompressed by the incremental update).
    expect(readFileSync(signed, 'latin1')).toContain('/Reason (Signed in the portal)');
  });

  it('barcode add: a QR code at 20/20 mm, 40 mm wide, on page 1; zbarimg reads it from a pdftoppm render', async () => {
    await addQrCode(page, 'plain.pdf', 'portal-qr');
    await page.locator('#f-barcode-add-qrcode-0-pages').fill('1');
    await openGroup(page, 'f-barcode-add-qrcode-0-position');
    for (const [field, value] of [
      ['x', '20'],
      ['y', '20'],
      ['width', '40'],
      ['height', '40'],
    ] as const)
      await page.locator(`#f-barcode-add-qrcode-0-position-${field}`).fill(value);
    const stamped = await runAndDownload(page, 'stamped.pdf');
    const box = { x: 20 * MM, y: 20 * MM, width: 40 * MM, height: 40 * MM };
    expect(zbar(renderPage(stamped, 1, path.join(tempDir, 'qr-1'), { box, pad: 2 * MM }))).toEqual(['QR-Code:portal-qr']);
    expect(zbar(renderPage(stamped, 2, path.join(tempDir, 'qr-2'), { box, pad: 2 * MM }))).toEqual([]);
  });

  it('signature: the visible signature placed by dragging a box on the page preview; the widget /Rect (qpdf) is that box', async () => {
    await chooseService(page, 'signature', 'place-signature.pdf');
    await page.getByLabel('Place', { exact: true }).selectOption({ label: 'signature.add.appearance' });
    const box = await dragOnPage(page, [0.1, 0.1], [0.5, 0.2]);
    // The drag wrote the form's fields: millimetres, user coordinates, page 1.
    await openGroup(page, 'f-signature-add');
    await openGroup(page, 'f-signature-add-appearance');
    await openGroup(page, 'f-signature-add-appearance-position');
    await expect(page.locator('#f-signature-add-appearance-position-x').inputValue()).resolves.toBe(String(Math.round(((box.x * 25.4) / 72) * 10) / 10));
    await expect(page.locator('#f-signature-add-appearance-position-metrics').inputValue()).resolves.toBe('mm');
    const signed = await runAndDownload(page, 'placed-signature.pdf');
    const report = spawnSync('pdfsig', ['-nocert', signed], { encoding: 'utf8' });
    expect(`${report.stdout}${report.stderr}`).toMatch(/Signature is Valid/);
    const widget = Object.values(qpdfObjects(signed))
      .map((object) => object.value as Record<string, unknown> | undefined)
      .find((dict) => dict?.['/FT'] === '/Sig' && Array.isArray(dict['/Rect']));
    const [x1, y1, x2, y2] = (widget!['/Rect'] as number[]).map(Number);
    // PDF coordinates (bottom-left origin); within a point or two (pixels and 0.1 mm rounding).
    expect(Math.abs(x1! - box.x)).toBeLessThan(2);
    expect(Math.abs(x2! - (box.x + box.width))).toBeLessThan(2);
    expect(Math.abs(y2! - (842 - box.y))).toBeLessThan(2);
    expect(Math.abs(y1! - (842 - box.y - box.height))).toBeLessThan(2);
  });

  it('barcode add: the QR code placed by dragging a square on page 1; zbarimg reads it in that box and not on page 2', async () => {
    await addQrCode(page, 'place-barcode.pdf', 'dragged-qr');
    await page.getByLabel('Place', { exact: true }).selectOption({ label: 'barcode.add.qrcode.0' });
    // A square in points: 0.3 x 595 wide, as high in fractions of 842.
    const box = await dragOnPage(page, [0.4, 0.1], [0.7, 0.1 + (0.3 * 595) / 842]);
    await expect(page.locator('#f-barcode-add-qrcode-0-pages').inputValue()).resolves.toBe('1');
    await page.locator('fieldset.placement').screenshot({ path: path.join(SCREENSHOTS, 'services-placement-desktop.png') });
    const stamped = await runAndDownload(page, 'placed-barcode.pdf');
    expect(zbar(renderPage(stamped, 1, path.join(tempDir, 'dragged-1'), { box, pad: 2 * MM }))).toEqual(['QR-Code:dragged-qr']);
    expect(zbar(renderPage(stamped, 1, path.join(tempDir, 'dragged-elsewhere'), { box: { ...box, y: 500 } }))).toEqual([]);
    expect(zbar(renderPage(stamped, 2, path.join(tempDir, 'dragged-2'), { box, pad: 2 * MM }))).toEqual([]);
  });

  it('barcode detect: the codes found listed and drawn as boxes on the page they were found on (the PDF kept from before the report replaced it)', async () => {
    // place-barcode.pdf carries the QR code the previous test placed.
    await chooseService(page, 'barcode', 'place-barcode.pdf');
    await openGroup(page, 'f-barcode-detect');
    await page.locator('#f-barcode-detect-include').check();
    const result = await runForm(page);
    await expect(result.getByTestId('barcodes').textContent()).resolves.toContain('qrcode: dragged-qr (page 1)');
    // The report as the server stored it (it replaced the PDF): the box the overlay must show.
    const stored = (await documentsOf(page)).find((document) => document.fileName === 'place-barcode')!;
    const response = await fetch(`${server.rest}/documents/${stored.documentId}`, { headers: { authorization: `Bearer ${await tokenOf(page)}` } });
    const { barcodes } = (await response.json()) as { barcodes: { results: Array<{ page: number; position: { x: number; y: number; width: number; height: number; metrics: string } }> } };
    expect(barcodes.results).toHaveLength(1);
    const found = barcodes.results[0]!.position;
    expect(found.metrics).toBe('mm');
    await result.getByText('Page 1 of 2').waitFor();
    // The overlay has the box's stroke on its left edge, halfway down, and nothing in the page's lower half.
    const overlay = result.getByTestId('pdf-overlay');
    await expect
      .poll(() =>
        overlay.evaluate((canvas, box) => {
          const c = canvas as any;
          const scale = c.width / ((595 * 25.4) / 72);
          const data = c.getContext('2d').getImageData(Math.round(box.x * scale) - 3, Math.round((box.y + box.height / 2) * scale), 7, 1).data as Uint8ClampedArray;
          const below = c.getContext('2d').getImageData(0, Math.round(c.height * 0.6), c.width, 20).data as Uint8ClampedArray;
          return { edge: Math.max(...[3, 7, 11, 15, 19, 23, 27].map((alpha) => data[alpha]!)), below: below.some((value: number, index: number) => index % 4 === 3 && value > 0) };
        }, found),
      )
      .toEqual({ edge: 255, below: false });
  });

  it('urlconverter: a new document from a loopback page (allowed by this configuration); pdftotext and qpdf --check', async () => {
    await chooseService(page, 'urlconverter');
    await page.locator('#f-urlconverter-url').fill(`${site.origin}/`);
    const fetched = await runAndDownload(page, 'fetched.pdf');
    expect(textOf(fetched)).toContain('Fetched from loopback');
    expect(execFileSync('qpdf', ['--check', fetched], { encoding: 'utf8' })).toMatch(/No syntax or stream encoding errors/);
  });
});
