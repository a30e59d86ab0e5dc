import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postWebService } from '../../helpers/converter.js';
import { bearer } from '../../helpers/client.js';
import { locationId, openSession, postDocument, type TestSession } from '../../helpers/documents.js';
import { kidsCyclePdf, lyingCountPdf, pageText, parentCyclePdf, sharedNodePdf } from '../../helpers/hostile-pdf.js';
import { killAll, startQuire, type QuireProcess } from '../../helpers/process.js';
import { numberedPdf } from '../../helpers/toolbox.js';

/**
 * Issue 11, defect 1: a page tree whose root declares /Count 2147483647 (or -5) for one or two real
 * pages. Every operation must answer from the pages the tree really has — and the server must stay
 * up. The server runs as its own process with a small heap, so that something sized from the
 * declared count kills that process (and fails the test at once) instead of the test runner.
 */
const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-hostile-tree-'));
const HUGE = 2147483647;

describe('hostile page trees through the toolbox', () => {
  let quire: QuireProcess;
  let session: TestSession;

  // A fresh server whenever the previous test killed it, so that each test fails for its own call.
  beforeEach(async () => {
    if (
      quire?.running &&
      (await fetch(`${quire.url}/webPDF/health`).then(
        (r) => r.status === 200,
        () => false,
      ))
    )
      return;
    await quire?.kill();
    quire = await startQuire({
      dataDir: mkdtempSync(path.join(os.tmpdir(), 'quire-hostile-data-')),
      env: { NODE_OPTIONS: '--max-old-space-size=256', QUIRE_LOG__LEVEL: 'warn' },
    });
    session = await openSession(quire.rest);
  });
  afterEach(async () => {
    // The invariant of the issue: after any hostile request the server still answers.
    expect(quire.running, `the server died: ${/FATAL ERROR.*|Error: .*/.exec(quire.stderr)?.[0] ?? quire.stderr.slice(-300)}`).toBe(true);
    const health = await fetch(`${quire.url}/webPDF/health`);
    expect(health.status).toBe(200);
  });
  afterAll(async () => {
    await killAll();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function upload(content: Buffer, name = 'hostile.pdf'): Promise<string> {
    const outcome = await postDocument(quire.rest, session.token, content, name);
    expect(outcome.response?.status).toBe(303);
    return locationId(outcome.response!.headers);
  }

  async function download(documentId: string, extension = 'pdf'): Promise<string> {
    const response = await fetch(`${quire.rest}/documents/${documentId}`, { headers: bearer(session.token) });
    expect(response.status).toBe(200);
    const file = path.join(scratch, `${documentId}-${Date.now()}.${extension}`);
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    return file;
  }

  const toolbox = (documentId: string, steps: unknown[]) => postWebService(`${quire.rest}/toolbox/${documentId}`, session.token, { toolbox: steps });
  const pagesOf = (file: string) => Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))![1]);
  const text = (file: string) => execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  const qpdfCheck = (file: string) => execFileSync('qpdf', ['--check', file], { encoding: 'utf8' });

  it('delete on /Count 2147483647 removes the page asked for and keeps the real other one', async () => {
    const id = await upload(lyingCountPdf(HUGE, 2));
    const outcome = await toolbox(id, [{ delete: { pages: '1' } }]);
    expect(outcome.status, JSON.stringify(outcome.error)).toBe(303);
    const file = await download(id);
    expect(pagesOf(file)).toBe(1);
    expect(text(file)).toContain(pageText(2));
    expect(text(file)).not.toContain(pageText(1));
    expect(qpdfCheck(file)).toMatch(/No syntax or stream encoding errors/);
  });

  it('delete of the only real page is refused as a parameter error naming the real page count', async () => {
    const id = await upload(lyingCountPdf(HUGE));
    const outcome = await toolbox(id, [{ delete: { pages: '1' } }]);
    expect(outcome.status).toBe(400);
    expect(outcome.error?.errorCode).toBe(-14);
    const outOfRange = await toolbox(id, [{ delete: { pages: '2' } }]);
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.error?.errorMessage).toMatch(/the document has 1 page\b/);
  });

  it('extraction.text reads the real pages of /Count 2147483647 and of /Count -5', async () => {
    for (const count of [HUGE, -5]) {
      const id = await upload(lyingCountPdf(count, 2));
      const outcome = await toolbox(id, [{ extraction: { text: { fileFormat: 'text' } } }]);
      expect(outcome.status, `${count}: ${JSON.stringify(outcome.error)}`).toBe(303);
      const result = await (await fetch(`${quire.rest}/documents/${id}`, { headers: bearer(session.token) })).text();
      expect(result).toContain(pageText(1));
      expect(result).toContain(pageText(2));
    }
  });

  it('scale and image work on the real page of /Count 2147483647', async () => {
    const scaled = await upload(lyingCountPdf(HUGE));
    const scale = await toolbox(scaled, [{ scale: { scalePages: { dimensions: { width: 100, height: 100, metrics: 'mm' } } } }]);
    expect(scale.status, JSON.stringify(scale.error)).toBe(303);
    const file = await download(scaled);
    expect(pagesOf(file)).toBe(1);
    const size = /^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))!;
    expect(Number(size[1])).toBeCloseTo((100 * 72) / 25.4, 1);
    expect(Number(size[2])).toBeCloseTo((100 * 72) / 25.4, 1);

    const imaged = await upload(lyingCountPdf(HUGE));
    const image = await toolbox(imaged, [{ image: { pages: '*', png: { dpi: 36 } } }]);
    expect(image.status, JSON.stringify(image.error)).toBe(303);
    expect(execFileSync('file', ['-b', await download(imaged, 'png')], { encoding: 'utf8' })).toMatch(/^PNG image data, 306 x 396/);
  });

  it('merge takes /Count 2147483647 documents as base and as source, with their real pages', async () => {
    const base = await upload(lyingCountPdf(HUGE));
    const source = (await numberedPdf(2)).toString('base64');
    const asBase = await toolbox(base, [{ merge: { mode: 'afterPage', page: 1, data: { format: 'pdf', value: source } } }]);
    expect(asBase.status, JSON.stringify(asBase.error)).toBe(303);
    expect(pagesOf(await download(base))).toBe(3);

    const normal = await upload(await numberedPdf(1), 'normal.pdf');
    const asSource = await toolbox(normal, [{ merge: { mode: 'atTheEnd', data: { format: 'pdf', value: lyingCountPdf(HUGE).toString('base64') } } }]);
    expect(asSource.status, JSON.stringify(asSource.error)).toBe(303);
    const merged = await download(normal);
    expect(pagesOf(merged)).toBe(2);
    expect(text(merged)).toContain(pageText(1));
  });

  it('GET info of a /Count 2147483647 document reports the one real page', async () => {
    const id = await upload(lyingCountPdf(HUGE));
    const response = await fetch(`${quire.rest}/documents/${id}/info`, { headers: bearer(session.token) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { metadata?: { information: { pages: number }; pages: { page: unknown[] } } };
    expect(body.metadata?.information.pages).toBe(1);
    expect(body.metadata?.pages.page).toHaveLength(1);
  });

  it('page trees with a /Kids cycle, a shared node or a /Parent cycle never answer 5xx', async () => {
    const calls = [
      { delete: { pages: '1' } },
      { rotate: { pages: '*', degrees: 90 } },
      { extraction: { text: { fileFormat: 'text' } } },
      { scale: { scalePages: { dimensions: { width: 100, height: 100 } } } },
      { watermark: { text: { text: 'W' } } },
      { annotation: { add: { square: [{ position: { rectangle: { x: 10, y: 20, width: 30, height: 40, metrics: 'pt' } } }] } } },
      { split: { mode: 'burst' } },
    ];
    for (const [name, content] of [
      ['kids-cycle', kidsCyclePdf()],
      ['shared-node', sharedNodePdf()],
      ['parent-cycle', parentCyclePdf()],
    ] as const) {
      for (const step of calls) {
        const id = await upload(content, `${name}.pdf`);
        const outcome = await toolbox(id, [step]);
        expect(outcome.status, `${name} ${Object.keys(step)[0]}: ${JSON.stringify(outcome.error)}`).toBeLessThan(500);
        if (outcome.status >= 400) {
          expect(outcome.contentType).toBe('application/json');
          expect(outcome.error?.errorCode, `${name} ${Object.keys(step)[0]}: ${JSON.stringify(outcome.error)}`).not.toBe(-1);
        }
      }
    }
  });
});
