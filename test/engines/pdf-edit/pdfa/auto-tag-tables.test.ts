import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoTag } from '../../../../src/engines/pdf-edit/pdfa/tagging/auto-tag.js';
import { preflight1b, preflightAvailable } from '../../../operations/pdfa/preflight.js';
import { convertRequest, pdfaService } from '../../../operations/pdfa/service.js';
import { readStructure, typesOf, type PdfStructure, type StructNode } from '../../../operations/pdfa/structure.js';
import { openTestStore, type TestStore } from '../../../operations/transaction/store.js';

/**
 * Tables in auto-tagging: a grid of text cells drawn with pdf-lib (with and without ruling lines),
 * converted through the real pdfa service (Ghostscript writes each row as one TJ, the tagger cuts it
 * per cell) or tagged directly. Checked independently: qpdf's JSON shows Table → TR → TH/TD with the
 * right rows and cells and each cell's marked content holding that cell's text, pdftotext reads the
 * same text as in the input, PDFBox preflight accepts the 1a file as PDF/A-1b; our validator's
 * verdict at 2a is the conversion's. Two-column running text and a numbered list stay no Table.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-autotag-tables-'));
let counter = 0;
const pdftotext = (file: string): string => execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });

const GRID = [
  ['Region', 'Units', 'Revenue'],
  ['North', '120', '4,300'],
  ['South', '95', '3,150'],
  ['East', '210', '7,020'],
];

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

async function documentWith(draw: (page: PDFPage, fonts: Fonts) => void): Promise<PDFDocument> {
  const document = await PDFDocument.create();
  const fonts = { regular: await document.embedFont(StandardFonts.Helvetica), bold: await document.embedFont(StandardFonts.HelveticaBold) };
  const page = document.addPage([595, 842]);
  page.drawText('Quarterly figures', { x: 50, y: 780, size: 18, font: fonts.bold });
  page.drawText('Some body text before the content below, long enough to set the body size.', { x: 50, y: 750, size: 11, font: fonts.regular });
  draw(page, fonts);
  page.drawText('Text after it.', { x: 50, y: 560, size: 11, font: fonts.regular });
  return document;
}

/** The grid at baselines 700, 680, 660, 640; rules over every row and under the last (`all`), or over the first, under the first and under the last only (`header`). */
function grid(page: PDFPage, fonts: Fonts, options: { boldHeader: boolean; rules: 'none' | 'all' | 'header' }): void {
  GRID.forEach((row, r) => row.forEach((cell, c) => page.drawText(cell, { x: 60 + c * 120, y: 700 - r * 20, size: 11, font: r === 0 && options.boldHeader ? fonts.bold : fonts.regular })));
  const at = options.rules === 'all' ? [0, 1, 2, 3, 4] : options.rules === 'header' ? [0, 1, 4] : [];
  for (const r of at) page.drawLine({ start: { x: 55, y: 714 - r * 20 }, end: { x: 415, y: 714 - r * 20 }, thickness: 0.5, color: rgb(0, 0, 0) });
}

async function saved(document: PDFDocument): Promise<string> {
  const file = path.join(dir, `file-${counter++}.pdf`);
  writeFileSync(file, await document.save({ useObjectStreams: false }));
  return file;
}

const shape = (n: StructNode): string => (n.kids.length === 0 ? n.type : `${n.type}(${n.kids.map(shape).join(',')})`);

/** The text a marked-content sequence shows (literal and hex strings), read from the decoded page content. */
function markedText(content: string, mcid: number): string {
  const found = new RegExp(`/\\w+ <</MCID ${mcid}>> BDC([\\s\\S]*?)\\bEMC`).exec(content);
  expect(found, `MCID ${mcid} in the content`).not.toBeNull();
  let text = '';
  for (const m of found![1]!.matchAll(/\(((?:\\.|[^\\)])*)\)|<([0-9a-fA-F\s]*)>/g))
    text += m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : Buffer.from(m[2]!.replace(/\s/g, ''), 'hex').toString('latin1');
  return text;
}

function tableOf(s: PdfStructure): StructNode {
  const tables = allNodes(s.tree).filter((n) => n.type === 'Table');
  expect(tables).toHaveLength(1);
  return tables[0]!;
}

function allNodes(nodes: readonly StructNode[]): StructNode[] {
  return nodes.flatMap((n) => [n, ...allNodes(n.kids)]);
}

/** The table's rows and cells, and each cell's text as its marks show it. */
function expectGrid(s: PdfStructure, headerRole: 'TH' | 'TD', options: { texts: boolean } = { texts: true }): void {
  const table = tableOf(s);
  expect(table.kids.map((row) => row.type)).toEqual(['TR', 'TR', 'TR', 'TR']);
  table.kids.forEach((row, r) => {
    expect(row.kids.map((cell) => cell.type)).toEqual(Array<string>(3).fill(r === 0 ? headerRole : 'TD'));
    for (const cell of row.kids) expect(cell.mcids.length).toBeGreaterThan(0);
    if (options.texts)
      row.kids.forEach((cell, c) =>
        expect(
          cell.mcids
            .map((mcid) => markedText(s.pages.find((page) => page.ref === cell.page)!.content, mcid))
            .join('')
            .trim(),
        ).toBe(GRID[r]![c]),
      );
  });
}

describe('auto-tagging tables', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore();
  });
  afterAll(() => store.close());

  const convert = async (document: PDFDocument, level: string): Promise<{ file: string; warnings: string[]; inputText: string }> => {
    const input = await saved(document);
    const id = (await store.upload(Buffer.from(await document.save()), 'input.pdf')).id;
    const { warnings } = await pdfaService(store).run(store.session, id, convertRequest(level, { autoTagging: true }), 'json');
    return { file: store.storedFile(id), warnings, inputText: pdftotext(input) };
  };

  it.each(['2a', '1a'])('%s: a ruled grid with a bold header row becomes Table → TR → TH (Scope Column)/TD, compliant, the text unchanged', async (level) => {
    const { file, warnings, inputText } = await convert(await documentWith((page, fonts) => grid(page, fonts, { boldHeader: true, rules: 'all' })), level);
    expect(warnings[0]).toMatch(new RegExp(`^PDF/A-${level} validation: compliant; \\d+ rules passed, 0 failed, 0 not checked`));
    expect(pdftotext(file)).toBe(inputText);
    const s = readStructure(file);
    expect(typesOf(s.tree[0]!.kids).filter((t) => t.split('/').length === 2)).toEqual(['Sect/H1', 'Sect/P', 'Sect/Table', 'Sect/P']);
    expectGrid(s, 'TH');
    // The header cells carry the table attribute Scope Column, in qpdf's reading of the element.
    const headerRefs = allRefs(s, 'TH');
    expect(headerRefs).toHaveLength(3);
    for (const ref of headerRefs) expect(s.object(ref)['/A']).toEqual({ '/O': '/Table', '/Scope': '/Column' });
    // Every MCID maps back through the ParentTree to the element whose tag the content names.
    const page = s.pages[0]!;
    const parents = s.parentTree.get(page.dict['/StructParents'] as number) as string[];
    for (const m of page.content.matchAll(/\/(\w+) <<\/MCID (\d+)>> BDC/g)) expect(s.object(parents[Number(m[2])]!)['/S']).toBe(`/${m[1]}`);
    // The ruling lines are artifacts.
    expect(page.content).toMatch(/\/Artifact BMC\s+[\d. ]+m\s+[\d. ]+l\s+S/);
    if (level === '1a' && preflightAvailable) expect(preflight1b(file).output).toMatch(/is a valid PDF\/A-1b file/);
  });

  it('an HTML table LibreOffice exports untagged (header cells bold and closer than the figures under them): Table with a TH row, compliant at 2a', async () => {
    const rows = GRID.slice(1).map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`);
    const input = officePdf(
      'table',
      `<p>Some body text before the table, long enough to set the body size of the document.</p><table border="1"><tr>${GRID[0]!.map((h) => `<th>${h}</th>`).join('')}</tr>${rows.join('')}</table><p>Text after the table.</p>`,
    );
    const { file, warnings, inputText } = await convert(await PDFDocument.load(input), '2a');
    expect(warnings[0]).toMatch(/^PDF\/A-2a validation: compliant/);
    expect(pdftotext(file)).toBe(inputText);
    const s = readStructure(file);
    // (LibreOffice's HTML export leaves page 1 blank and the first paragraph out; the table and the text after it are what matter.)
    expect(s.tree[0]!.kids.map(shape).slice(-2)).toEqual(['Table(TR(TH,TH,TH),TR(TD,TD,TD),TR(TD,TD,TD),TR(TD,TD,TD))', 'P']);
    // Its subset fonts show codes, not letters: the cells' texts are checked on the pdf-lib inputs above.
    expectGrid(s, 'TH', { texts: false });
    for (const ref of allRefs(s, 'TH')) expect(s.object(ref)['/A']).toEqual({ '/O': '/Table', '/Scope': '/Column' });
  });

  it('a LibreOffice page of justified paragraphs, a full-width table with a number column and a numbered list: one Table of 6 rows, the list an L, the paragraphs P', async () => {
    const paragraph = `<p align="justify">${'The committee met on Tuesday to review the budget for the coming year and agreed that the reserve should grow by a modest amount, while members asked for a clearer breakdown of the travel costs. '.repeat(3)}</p>`;
    const items = [1, 2, 3, 4, 5].map((i) => `<tr><td>${i}</td><td>Item number ${i}</td><td>${i * 13}.00</td></tr>`).join('');
    const input = officePdf(
      'mixed',
      `${paragraph.repeat(3)}<table width="100%" border="0"><tr><td><b>No</b></td><td><b>Item</b></td><td><b>Amount</b></td></tr>${items}</table><ol><li>Open the valve slowly.</li><li>Check the pressure.</li><li>Close the lid.</li></ol>${paragraph.repeat(2)}`,
    );
    const { file, warnings, inputText } = await convert(await PDFDocument.load(input), '2a');
    expect(warnings[0]).toMatch(/^PDF\/A-2a validation: compliant/);
    expect(pdftotext(file)).toBe(inputText);
    const shapes = readStructure(file).tree[0]!.kids.map(shape);
    expect(shapes.filter((t) => t !== 'P')).toEqual(['Table(TR(TH,TH,TH),TR(TD,TD,TD),TR(TD,TD,TD),TR(TD,TD,TD),TR(TD,TD,TD),TR(TD,TD,TD))', 'L(LI(Lbl,LBody),LI(Lbl,LBody),LI(Lbl,LBody))']);
    expect(shapes.filter((t) => t === 'P').length).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['unruled', 'none'],
    ['ruled on every row', 'all'],
  ] as const)('a grid in one font, %s: a Table of TD only (no header is set apart)', async (_, rules) => {
    const document = await documentWith((page, fonts) => grid(page, fonts, { boldHeader: false, rules }));
    const before = pdftotext(await saved(document));
    const summary = await autoTag(document);
    expect(summary.tables).toBe(1);
    const file = await saved(document);
    expect(pdftotext(file)).toBe(before);
    expectGrid(readStructure(file), 'TD');
  });

  it('a grid in one font with a rule under its first row alone (and over and under the table): the first row is TH, also through Ghostscript', async () => {
    const { file, warnings, inputText } = await convert(await documentWith((page, fonts) => grid(page, fonts, { boldHeader: false, rules: 'header' })), '2a');
    expect(warnings[0]).toMatch(/^PDF\/A-2a validation: compliant/);
    expect(pdftotext(file)).toBe(inputText);
    expectGrid(readStructure(file), 'TH');
  });

  it('two-column running text and a numbered list with their markers set apart stay paragraphs and a list, also through Ghostscript', async () => {
    const left = ['The committee met on Tuesday to review the', 'budget for the coming year and agreed that', 'the reserve should grow by a modest amount.'];
    const right = ['Members asked for a clearer breakdown of the', 'travel costs and for the audit report to be', 'shared with every department before March.'];
    const document = await documentWith((page, fonts) => {
      // Line by line across both columns, as some writers emit them: geometrically a 2 × 3 grid.
      left.forEach((line, i) => {
        page.drawText(line, { x: 50, y: 710 - i * 14, size: 11, font: fonts.regular });
        page.drawText(right[i]!, { x: 310, y: 710 - i * 14, size: 11, font: fonts.regular });
      });
      ['Open the valve slowly.', 'Check the pressure.', 'Close the lid.'].forEach((item, i) => {
        page.drawText(`${i + 1}.`, { x: 60, y: 640 - i * 16, size: 11, font: fonts.regular });
        page.drawText(item, { x: 90, y: 640 - i * 16, size: 11, font: fonts.regular });
      });
    });
    const { file, warnings, inputText } = await convert(document, '2a');
    expect(warnings[0]).toMatch(/^PDF\/A-2a validation: compliant/);
    expect(pdftotext(file)).toBe(inputText);
    const s = readStructure(file);
    const types = allNodes(s.tree).map((n) => n.type);
    expect(types).not.toContain('Table');
    expect(types).not.toContain('TD');
    expect(s.tree[0]!.kids.map(shape)).toEqual(['Sect(H1,P,P,L(LI(Lbl,LBody),LI(Lbl,LBody),LI(Lbl,LBody)),P)']);
  });
});

/** `body` (HTML) exported to PDF by LibreOffice, untagged (its default). */
function officePdf(name: string, body: string): Buffer {
  const html = path.join(dir, `${name}.html`);
  writeFileSync(html, `<html><body>${body}</body></html>`);
  execFileSync('soffice', [`-env:UserInstallation=file://${dir}/lo-profile`, '--headless', '--convert-to', 'pdf', '--outdir', dir, html], { stdio: 'ignore', timeout: 60_000 });
  const pdf = path.join(dir, `${name}.pdf`);
  expect(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' })).toMatch(/Tagged:\s+no/);
  return readFileSync(pdf);
}

function allRefs(s: PdfStructure, role: string): string[] {
  const out: string[] = [];
  const walk = (ref: unknown, depth: number): void => {
    if (typeof ref !== 'string' || depth > 32) return;
    const dict = s.object(ref);
    if (dict['/S'] === `/${role}`) out.push(ref);
    const k = dict['/K'];
    for (const kid of Array.isArray(k) ? k : [k]) walk(kid, depth + 1);
  };
  walk(s.root['/K'], 0);
  return out;
}
