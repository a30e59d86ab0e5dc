import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString, StandardFonts } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { downloadToFile } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { runToolbox, toolboxOk } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-transcribe-'));

/** Two A4 pages saying "PAGE-n", each under a link to https://example.com/pn; page 2 links to page 1 too, page 1 has a javascript: link. */
async function linkedPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages = [doc.addPage([595, 842]), doc.addPage([595, 842])];
  pages.forEach((page, i) => {
    page.drawText(`PAGE-${i + 1}`, { x: 50, y: 700, size: 24, font });
    page.drawRectangle({ x: 50, y: 100, width: 200, height: 50, borderColor: { type: 'RGB', red: 1, green: 0, blue: 0 } as never, borderWidth: 2 });
    const annots = [doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 690, 200, 724], A: { S: 'URI', URI: PDFString.of(`https://example.com/p${i + 1}`) } }))];
    if (i === 1) annots.push(doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 100, 250, 150], Dest: [pages[0]!.ref, PDFName.of('Fit')] })));
    // A script link: it must not reach the HTML.
    if (i === 0) annots.push(doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [300, 100, 400, 150], A: { S: 'URI', URI: PDFString.of('javascript:alert(1)') } })));
    page.node.set(PDFName.of('Annots'), doc.context.obj(annots));
  });
  doc.setTitle('Linked & <Sample>');
  return Buffer.from(await doc.save());
}

/** One page whose second content stream has an unknown operator: poppler reads it and warns ("Syntax Error"). */
async function warningPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  page.drawText('PAGE-1', { x: 50, y: 700, size: 24, font });
  page.node.addContentStream(doc.context.register(doc.context.stream('q 10 10 m 50 50 l S xyzzy Q')));
  return Buffer.from(await doc.save());
}

/** Parses XML with Python's expat: throws unless well-formed; returns the root's tag name. */
function xmlRoot(text: string): string {
  const file = path.join(scratch, `x-${Math.random().toString(36).slice(2)}.xml`);
  writeFileSync(file, text);
  return execFileSync('python3', ['-c', 'import sys, xml.dom.minidom; print(xml.dom.minidom.parse(sys.argv[1]).documentElement.tagName)', file], { encoding: 'utf8' }).trim();
}

/** The inline SVGs of the HTML, each checked to be well-formed XML. */
function svgsOf(html: string): string[] {
  const svgs = [...html.matchAll(/<svg[\s\S]*?<\/svg>/g)].map((m) => m[0]);
  for (const svg of svgs) expect(xmlRoot(svg)).toBe('svg');
  return svgs;
}

describe('toolbox transcribe', () => {
  const { server, session } = useTestServer();

  const transcribe = async (content: Buffer, options: unknown, extension = 'html') => {
    const doc = await uploadFile(server.rest, session.token, content, 'doc.pdf');
    const result = await toolboxOk(server.rest, session.token, doc.documentId, [{ transcribe: options }]);
    return { doc, result, file: await downloadToFile(server.rest, session.token, doc.documentId, extension) };
  };

  it('turns page 1 (the default) into one self-contained HTML file: SVG drawing, text layer, links', async () => {
    const { result, file } = await transcribe(await linkedPdf(), { html: {} });
    expect(result).toMatchObject({ mimeType: 'text/html', fileExtension: 'html' });
    const html = readFileSync(file, 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<title>Linked &amp; &lt;Sample&gt;</title>');
    expect(html.match(/<div class="page"/g)).toHaveLength(1);
    expect(html).toContain('<div class="page" id="page-1" style="width:595px;height:842px">');
    const [svg] = svgsOf(html);
    expect(svg).toMatch(/<svg[^>]* width="595" height="842" viewBox="0 0 595 842"/);
    // The text layer has the page's words at their places (50 pt from the left).
    expect(html).toMatch(/<span style="left:50px;top:[\d.]+px;font-size:[\d.]+px">PAGE-1<\/span>/);
    expect(html).toContain('<a href="https://example.com/p1" style="left:50px;top:118px;width:150px;height:34px"></a>');
    // Self-contained: every reference inside the drawing is to itself or a data URL.
    for (const match of html.matchAll(/(?:xlink:)?href="([^"]*)"/g)) expect(match[1]).toMatch(/^(#|data:|https:\/\/example\.com\/)/);
    expect(html).not.toMatch(/<img|<script|src=|javascript:/);
  });

  it('scales the pages by dpi, keeps ids apart per page, links within the transcription and formats the SVG', async () => {
    const { file } = await transcribe(await linkedPdf(), {
      html: { pages: '1-2', dpi: 144, svgFormat: { decimalPrecision: 0, pathDrawMode: 'verbose', graphicsStateMode: 'verbose' } },
    });
    const html = readFileSync(file, 'utf8');
    expect(html.match(/<div class="page" id="page-\d" style="width:1190px;height:1684px">/g)).toHaveLength(2);
    const svgs = svgsOf(html);
    expect(svgs).toHaveLength(2);
    const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id.startsWith('p2-')).length).toBeGreaterThan(0);
    // Page 2's link to page 1 is an anchor, scaled by 2.
    expect(html).toContain('<a href="#page-1" style="left:100px;top:1384px;width:400px;height:100px"></a>');
    // verbose paths and no decimals; graphics state on the elements (no style sheet).
    const paths = [...svgs[0]!.matchAll(/ d="([^"]+)"/g)].map((m) => m[1]!).filter((d) => d !== '');
    expect(paths.length).toBeGreaterThan(3);
    for (const d of paths) expect(d).toMatch(/^M -?\d+ -?\d+ [A-Z]/);
    expect(svgs[0]!.replace(/ version="[\d.]+"/, '')).not.toMatch(/\d\.\d/);
    expect(svgs[0]).not.toContain('<style');

    const centralized = readFileSync((await transcribe(await linkedPdf(), { html: { pages: '2' } })).file, 'utf8');
    expect(centralized).toMatch(/<style type="text\/css"><!\[CDATA\[\n\.p2-gs0\{/);
    expect(centralized).not.toContain('href="#page-1"'); // page 1 is not part of this transcription
  });

  it('adds the report as a ZIP or linked into the HTML', async () => {
    const zipped = await transcribe(await linkedPdf(), { html: { pages: '*' }, successReport: 'zip' }, 'zip');
    expect(zipped.result).toMatchObject({ mimeType: 'application/zip' });
    expect(execFileSync('unzip', ['-Z1', zipped.file], { encoding: 'utf8' }).trim().split('\n').sort()).toEqual(['document.html', 'report.xml']);
    const report = execFileSync('unzip', ['-p', zipped.file, 'report.xml'], { encoding: 'utf8' });
    expect(xmlRoot(report)).toBe('transcription');
    expect(report).toMatch(/<transcription format="html" status="success" failureLevel="error" pages="1,2">/);
    expect(execFileSync('unzip', ['-p', zipped.file, 'document.html'], { encoding: 'utf8' })).toContain('id="page-2"');

    const linked = readFileSync((await transcribe(await linkedPdf(), { html: {}, successReport: 'linked' })).file, 'utf8');
    const data = /<link rel="alternate" type="application\/xml" title="Transcription report" href="data:application\/xml;base64,([^"]+)">/.exec(linked);
    expect(data).not.toBeNull();
    expect(xmlRoot(Buffer.from(data![1]!, 'base64').toString('utf8'))).toBe('transcription');
  });

  it('fails at failureLevel as errorReport says: -102, -102 with the messages, or the report as the document', async () => {
    const pdf = await warningPdf();
    // Diagnostics are warnings: the default level (error) and missingContent let them pass.
    for (const failureLevel of ['error', 'missingContent']) {
      const { result } = await transcribe(pdf, { html: {}, failureLevel, successReport: 'none' });
      expect(result).toMatchObject({ mimeType: 'text/html' });
    }
    const doc = await uploadFile(server.rest, session.token, pdf, 'warn.pdf');
    const none = await runToolbox(server.rest, session.token, doc.documentId, [{ transcribe: { html: {}, failureLevel: 'warning' } }]);
    expect(none.error).toMatchObject({ errorCode: -102 });
    expect(none.error?.errorMessage).toMatch(/The transcription failed: \d+ messages? at or above failureLevel "warning"/);
    const message = await runToolbox(server.rest, session.token, doc.documentId, [{ transcribe: { html: {}, failureLevel: 'warning', errorReport: 'message' } }]);
    expect(message.error).toMatchObject({ errorCode: -102 });
    expect(message.error?.errorMessage).toMatch(/page 1: warning: Syntax Error.*Unknown operator 'xyzzy'/);
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ mimeType: 'application/pdf', fileSize: doc.fileSize });

    const { result, file } = await transcribe(pdf, { html: {}, failureLevel: 'warning', errorReport: 'file' }, 'xml');
    expect(result).toMatchObject({ mimeType: 'application/xml' });
    const report = readFileSync(file, 'utf8');
    expect(xmlRoot(report)).toBe('transcription');
    expect(report).toMatch(/status="failure" failureLevel="warning"/);
    expect(report).toMatch(/<message level="warning" page="1">Syntax Error.*xyzzy/);
  });

  it('refuses a missing format, bad pages and unknown or out-of-range values (document unchanged)', async () => {
    const doc = await uploadFile(server.rest, session.token, await linkedPdf(), 'doc.pdf');
    const cases: [unknown, RegExp][] = [
      [{}, /toolbox\[0\]\.transcribe: give the target format/],
      [{ html: { pages: '3' } }, /toolbox\[0\]\.transcribe\.html\.pages: Page 3 is out of range: the document has 2 pages/],
      [{ html: {}, failureLevel: 'fatal' }, /failureLevel/],
      [{ html: {}, successReport: 'mail' }, /successReport/],
      [{ html: { svgFormat: { decimalPrecision: 11 } } }, /decimalPrecision/],
      [{ html: { dpi: -1 } }, /dpi/],
    ];
    for (const [options, pattern] of cases) {
      const outcome = await runToolbox(server.rest, session.token, doc.documentId, [{ transcribe: options }]);
      expect(outcome.error, JSON.stringify(options)).toMatchObject({ errorCode: -14 });
      expect(outcome.error?.errorMessage, JSON.stringify(options)).toMatch(pattern);
    }
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ mimeType: 'application/pdf', fileSize: doc.fileSize });
  });

  it('opens protected PDFs only with their password (-5008) and refuses damaged ones (-7)', async () => {
    const plain = path.join(scratch, 'plain.pdf');
    writeFileSync(plain, await linkedPdf());
    execFileSync('qpdf', ['--encrypt', 'u', 'o', '256', '--', plain, `${plain}.enc`]);
    const locked = await uploadFile(server.rest, session.token, readFileSync(`${plain}.enc`), 'locked.pdf');
    const wrong = await runToolbox(server.rest, session.token, locked.documentId, [{ transcribe: { html: {} } }], { password: { open: 'x' } });
    expect(wrong.error).toMatchObject({ errorCode: -5008 });
    await toolboxOk(server.rest, session.token, locked.documentId, [{ transcribe: { html: {} } }], { password: { open: 'u' } });
    expect(readFileSync(await downloadToFile(server.rest, session.token, locked.documentId, 'html'), 'utf8')).toContain('>PAGE-1</span>');

    const damaged = await uploadFile(server.rest, session.token, Buffer.from('%PDF-1.4\n1 0 obj garbage\n'), 'damaged.pdf');
    const outcome = await runToolbox(server.rest, session.token, damaged.documentId, [{ transcribe: { html: {} } }]);
    expect(outcome.error).toMatchObject({ errorCode: -7 });
    expect(await info(server.rest, session.token, damaged.documentId)).toMatchObject({ fileSize: damaged.fileSize });
  });
});
