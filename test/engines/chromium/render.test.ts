import { existsSync, readdirSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumEngine, HtmlEngineError } from '../../../src/engines/chromium/index.js';
import { htmlJob, pdfInfo, pdfText, pixel, tempDir, wordLeft } from './helpers.js';
import { rejectionOf } from '../../helpers/rejection.js';

const dir = tempDir();
const engine = new ChromiumEngine({ size: 1, tempDir: dir, healthIntervalMs: 0 });

beforeAll(() => engine.start());
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

const THREE_PAGES = `<!doctype html><html><head><meta charset="utf-8"><style>.p { break-after: page; }</style></head>
<body><div class="p">PAGE-ONE</div><div class="p">PAGE-TWO</div><div>PAGE-THREE</div></body></html>`;

const failure = (promise: Promise<unknown>): Promise<HtmlEngineError> => rejectionOf(promise, HtmlEngineError);

describe('ChromiumEngine: content and layout', () => {
  it('converts text with umlauts and CJK on A4', async () => {
    const job = htmlJob(dir, '<!doctype html><html><head><meta charset="utf-8"></head><body><p>MARKER-4711</p><p>Grüße aus Köln</p><p>日本語</p></body></html>');
    const result = await engine.convert(job);
    expect(result).toEqual({ blocked: [], failed: [] });
    const text = pdfText(job.outputPath);
    expect(text).toContain('MARKER-4711');
    expect(text).toContain('Grüße aus Köln');
    expect(text).toContain('日本語');
    const info = pdfInfo(job.outputPath);
    expect(info.pages).toBe(1);
    expect(Math.round(info.width)).toBe(596); // 595.92 × 841.92: A4 at Chromium's pixel grid
    expect(Math.round(info.height)).toBe(842);
  });

  it('uses a custom page size in millimetres', async () => {
    const job = htmlJob(dir, '<p>small</p>', { page: { width: 100, height: 150, marginTop: 5, marginRight: 5, marginBottom: 5, marginLeft: 5 } });
    await engine.convert(job);
    const info = pdfInfo(job.outputPath);
    // 100 mm = 283.5 pt, 150 mm = 425.2 pt; Chromium rounds to its pixel grid.
    expect(info.width).toBeCloseTo(283.5, -0.5);
    expect(info.height).toBeCloseTo(425.2, -0.5);
  });

  it('applies the margins', async () => {
    const narrow = htmlJob(dir, '<p>EDGE</p>', { page: { width: 210, height: 297, marginTop: 10, marginRight: 10, marginBottom: 10, marginLeft: 5 } });
    const wide = htmlJob(dir, '<p>EDGE</p>', { page: { width: 210, height: 297, marginTop: 10, marginRight: 10, marginBottom: 10, marginLeft: 60 } });
    await engine.convert(narrow);
    await engine.convert(wide);
    // 55 mm more margin = 155.9 pt further right (the body's own 8px margin is in both).
    expect(wordLeft(wide.outputPath, 'EDGE') - wordLeft(narrow.outputPath, 'EDGE')).toBeCloseTo(155.9, 0);
  });

  it('prints the selected page range only', async () => {
    const all = htmlJob(dir, THREE_PAGES);
    await engine.convert(all);
    expect(pdfInfo(all.outputPath).pages).toBe(3);

    const second = htmlJob(dir, THREE_PAGES, { pageRanges: '2' });
    await engine.convert(second);
    expect(pdfInfo(second.outputPath).pages).toBe(1);
    const text = pdfText(second.outputPath);
    expect(text).toContain('PAGE-TWO');
    expect(text).not.toContain('PAGE-ONE');

    const some = htmlJob(dir, THREE_PAGES, { pageRanges: '1, 3' });
    await engine.convert(some);
    expect(pdfText(some.outputPath)).not.toContain('PAGE-TWO');
  });

  it('clamps a range that only ends beyond the last page (Chromium behaviour)', async () => {
    const job = htmlJob(dir, THREE_PAGES, { pageRanges: '2-9' });
    await engine.convert(job);
    expect(pdfInfo(job.outputPath).pages).toBe(2);
  });

  it.each(['5', '4-6', 'x-y', '3-1'])('refuses the page range %j with kind pageRange and leaves no output', async (pageRanges) => {
    const job = htmlJob(dir, THREE_PAGES, { pageRanges });
    const error = await failure(engine.convert(job));
    expect(error.kind).toBe('pageRange');
    expect(error.message).toContain(`"${pageRanges}"`);
    expect(existsSync(job.outputPath)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it('prints header and footer templates, with page numbers', async () => {
    const job = htmlJob(dir, THREE_PAGES, {
      headerHtml: 'HEAD-TEXT',
      footerHtml: '<div style="font-size:9px">FOOT <span class="pageNumber"></span>/<span class="totalPages"></span></div>',
      page: { width: 210, height: 297, marginTop: 20, marginRight: 10, marginBottom: 20, marginLeft: 10 },
    });
    await engine.convert(job);
    const text = pdfText(job.outputPath);
    expect(text.match(/HEAD-TEXT/g)).toHaveLength(3);
    expect(text).toContain('FOOT 2/3');
  });

  it('prints backgrounds only when asked', async () => {
    const html = '<html><body style="background: rgb(255,0,0); margin: 0"><p>bg</p></body></html>';
    const plain = htmlJob(dir, html);
    const colored = htmlJob(dir, html, { printBackground: true });
    await engine.convert(plain);
    await engine.convert(colored);
    // A point well inside the page body.
    expect(pixel(plain.outputPath, 80, 120)).toEqual([255, 255, 255]);
    expect(pixel(colored.outputPath, 80, 120)).toEqual([255, 0, 0]);
  });

  it('lets @page size win with preferCSSPageSize', async () => {
    const html = '<style>@page { size: 100mm 100mm; }</style><p>css size</p>';
    const preferred = htmlJob(dir, html, { preferCSSPageSize: true });
    const ignored = htmlJob(dir, html, { preferCSSPageSize: false });
    await engine.convert(preferred);
    await engine.convert(ignored);
    expect(Math.round(pdfInfo(preferred.outputPath).width)).toBe(Math.round(pdfInfo(preferred.outputPath).height));
    expect(Math.round(pdfInfo(ignored.outputPath).height)).toBe(842);
  });

  it('runs scripts only when javascript is on', async () => {
    const html = '<p>static</p><script>document.body.insertAdjacentHTML("beforeend", "<p>SCRIPT-" + "RAN</p>")</script>';
    const off = htmlJob(dir, html);
    const on = htmlJob(dir, html, { javascript: true });
    await engine.convert(off);
    await engine.convert(on);
    expect(pdfText(off.outputPath)).not.toContain('SCRIPT-RAN');
    expect(pdfText(on.outputPath)).toContain('SCRIPT-RAN');
  });

  it('dismisses script dialogs instead of waiting for an answer', async () => {
    const job = htmlJob(dir, '<script>alert("stop"); confirm("sure?"); prompt("name?");</script><p>AFTER-DIALOGS</p>', { javascript: true });
    await engine.convert(job);
    expect(pdfText(job.outputPath)).toContain('AFTER-DIALOGS');
  });

  it('decodes the file by its declared charset, else UTF-8, else windows-1252', async () => {
    const declared = htmlJob(dir, Buffer.from('<meta charset="windows-1252"><p>Gr\xfc\xdfe DECLARED</p>', 'latin1'));
    const undeclared = htmlJob(dir, Buffer.from('<p>Gr\xfc\xdfe GUESSED</p>', 'latin1'));
    const utf8 = htmlJob(dir, Buffer.from('<p>Grüße UTF8</p>', 'utf8'));
    for (const job of [declared, undeclared, utf8]) await engine.convert(job);
    expect(pdfText(declared.outputPath)).toContain('Grüße DECLARED');
    expect(pdfText(undeclared.outputPath)).toContain('Grüße GUESSED');
    expect(pdfText(utf8.outputPath)).toContain('Grüße UTF8');
  });
});

describe('ChromiumEngine: job errors', () => {
  it('refuses HTML beyond maxHtmlBytes', async () => {
    const error = await failure(engine.convert(htmlJob(dir, `<p>${'x'.repeat(100)}</p>`, { maxHtmlBytes: 50 })));
    expect(error.kind).toBe('inputTooLarge');
    expect(error.message).toMatch(/107 bytes; at most 50/);
  });

  it('reports a missing input file', async () => {
    const job = htmlJob(dir, '');
    const error = await failure(engine.convert({ ...job, inputPath: `${job.inputPath}.gone` }));
    expect(error.kind).toBe('inputUnreadable');
    expect(error.message).toContain('ENOENT');
  });

  it('refuses impossible page sizes, relative base URLs and malformed allowHosts', async () => {
    const zero = await failure(engine.convert(htmlJob(dir, '<p>x</p>', { page: { width: 0, height: 297, marginTop: 0, marginRight: 0, marginBottom: 0, marginLeft: 0 } })));
    expect(zero.kind).toBe('invalidOption');
    const base = await failure(engine.convert(htmlJob(dir, '<p>x</p>', { network: { allowRemote: false, baseURL: 'images/', policy: {} } })));
    expect(base.kind).toBe('invalidOption');
    const hosts = await failure(engine.convert(htmlJob(dir, '<p>x</p>', { network: { allowRemote: true, policy: { allowHosts: ['10.0.0.0/99'] } } })));
    expect(hosts.kind).toBe('invalidOption');
    expect(hosts.message).toContain('10.0.0.0/99');
  });

  it('counts job errors as failed jobs, not crashes', () => {
    const stats = engine.stats();
    expect(stats.crashes).toBe(0);
    expect(stats.restarts).toBe(0);
    expect(stats.failed).toBeGreaterThanOrEqual(7);
  });
});
