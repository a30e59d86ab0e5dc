import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDict, PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { autoTag, languageTag } from '../../../../src/engines/pdf-edit/pdfa/tagging/auto-tag.js';
import { AutoTagError } from '../../../../src/engines/pdf-edit/pdfa/tagging/errors.js';
import { readStructure, type StructNode } from '../../../operations/pdfa/structure.js';

/**
 * The auto-tagger on hand-made content: hostile or malformed streams end in a clear AutoTagError or
 * in a well-formed result (qpdf --check, qpdf's reading of the tree), never in a hang; its limits hold.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-autotag-engine-'));
let counter = 0;

/** A one-page document whose content is `content`, with Helvetica as /F1. */
async function pageWith(content: string | Uint8Array): Promise<PDFDocument> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([595, 842]);
  const context = document.context;
  page.node.set(PDFName.of('Resources'), context.obj({ Font: { F1: font.ref } }));
  page.node.set(PDFName.of('Contents'), context.register(context.flateStream(content)));
  return document;
}

async function saved(document: PDFDocument): Promise<string> {
  const file = path.join(dir, `tagged-${counter++}.pdf`);
  writeFileSync(file, await document.save({ useObjectStreams: false }));
  return file;
}

async function failure(document: PDFDocument, limits = {}): Promise<AutoTagError> {
  const error = await autoTag(document, { limits }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AutoTagError);
  return error as AutoTagError;
}

describe('autoTag', () => {
  it('malformed content (unbalanced q/Q, BT without ET, a stray EMC, an unknown font, an unpainted path) still gives a well-formed tagged file', async () => {
    const document = await pageWith('EMC Q BT /F9 12 Tf 50 700 Td (lost font) Tj ET q BT /F1 11 Tf 50 650 Td (kept) Tj 0 0 m 10 10 l S BT (again) Tj 5 5 m');
    const text = (file: string) => execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    const before = text(await saved(document));
    const summary = await autoTag(document);
    expect(summary.paragraphs).toBeGreaterThan(0);
    const file = await saved(document);
    expect(() => execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).not.toThrow();
    const s = readStructure(file);
    const content = s.pages[0]!.content;
    expect(content).toMatch(/\/P <<\/MCID 0>> BDC\s+\(lost font\) Tj\s+EMC/);
    expect(text(file)).toBe(before);
  });

  it('a Type0 font with an embedded CMap (as Ghostscript writes for Office PDFs) is read, its text through its ToUnicode map', async () => {
    const document = await pageWith('BT /F2 12 Tf 50 700 Td <0102> Tj ET');
    const context = document.context;
    const cmap =
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /OneByteIdentityH def 1 begincodespacerange <00> <FF> endcodespacerange 1 begincidrange <00> <FF> 0 endcidrange endcmap end end';
    const toUnicode = '/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <00><ff> endcodespacerange 1 beginbfrange <01><02><65E5> endbfrange endcmap end end';
    const cidFont = context.obj({ Type: 'Font', Subtype: 'CIDFontType2', BaseFont: 'Test', CIDSystemInfo: { Registry: 'Adobe', Ordering: 'Identity', Supplement: 0 }, W: [1, [1000, 1000]] });
    const type0 = context.obj({
      Type: 'Font',
      Subtype: 'Type0',
      BaseFont: 'Test',
      Encoding: context.register(context.flateStream(cmap)),
      DescendantFonts: [context.register(cidFont)],
      ToUnicode: context.register(context.flateStream(toUnicode)),
    });
    const resources = document.getPage(0).node.Resources()!;
    resources.lookup(PDFName.of('Font'), PDFDict).set(PDFName.of('F2'), context.register(type0));
    const summary = await autoTag(document);
    expect(summary.paragraphs).toBe(1);
    expect(readStructure(await saved(document)).pages[0]!.content).toMatch(/\/P <<\/MCID 0>> BDC\s+<0102> Tj\s+EMC/);
  });

  it("list markers shown as runs of their own become the items' Lbl, the rest their LBody; indented lines continue an item", async () => {
    const document = await pageWith(
      'BT /F1 11 Tf 60 700 Td (1.) Tj 18 0 Td (First item) Tj 0 -14 Td (continued) Tj ET BT /F1 11 Tf 60 670 Td (2.) Tj 18 0 Td (Second item) Tj ET BT /F1 11 Tf 50 640 Td (After the list.) Tj ET',
    );
    await autoTag(document);
    const s = readStructure(await saved(document));
    const shape = (n: StructNode): string => (n.kids.length === 0 ? `${n.type}${n.mcids.length}` : `${n.type}(${n.kids.map(shape).join(',')})`);
    expect(s.tree.map(shape)).toEqual(['Document(L(LI(Lbl1,LBody1),LI(Lbl1,LBody1)),P1)']);
    expect(s.pages[0]!.content).toMatch(/\/Lbl <<\/MCID 0>> BDC\s+\(1\.\) Tj\s+EMC\s+18 0 Td\s+\/LBody <<\/MCID 1>> BDC\s+\(First item\) Tj 0 -14 Td \(continued\) Tj\s+EMC/);
  });

  it('path operators with operands that are not numbers (a name, a string, no operand) still give a well-formed tagged file', async () => {
    // Found reading the change that added path extents: a point of NaN made the extent undefined and the tagger threw a TypeError (a 500).
    const document = await pageWith('0 0 m /X 5 l S (s) (t) m 9 l S re f 10 10 100 1 re f BT /F1 11 Tf 50 650 Td (kept) Tj ET');
    const summary = await autoTag(document);
    expect(summary.paragraphs).toBe(1);
    const file = await saved(document);
    expect(() => execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).not.toThrow();
  });

  it('a page beyond the operation limit: tooLarge, naming the page', async () => {
    const error = await failure(await pageWith('0 0 m 1 1 l S\n'.repeat(400)), { maxOperations: 1000 });
    expect(error.kind).toBe('tooLarge');
    expect(error.message).toMatch(/^page 1: .*1200 operations, more than the 1000/);
  });

  it('pages beyond the document operation budget: tooLarge', async () => {
    const document = await pageWith('0 0 m 1 1 l S\n'.repeat(100));
    const error = await failure(document, { maxDocumentOperations: 200 });
    expect(error.kind).toBe('tooLarge');
  });

  it('content beyond the byte limit: tooLarge before it is parsed', async () => {
    const error = await failure(await pageWith(Buffer.alloc(200_000, 0x20)), { maxContentBytes: 100_000 });
    expect(error.kind).toBe('tooLarge');
  });

  it('a bracket bomb (arrays nested 100,000 deep): unsupported, at once', async () => {
    const error = await failure(await pageWith(`${'['.repeat(100_000)} Tj`));
    expect(error.kind).toBe('unsupported');
  });

  it('marked-content identifiers without a structure tree: unsupported (they would clash with the new ones)', async () => {
    const error = await failure(await pageWith('/P <</MCID 0>> BDC BT /F1 12 Tf (x) Tj ET EMC'));
    expect(error).toMatchObject({ kind: 'unsupported', message: expect.stringMatching(/MCID/) });
  });

  it("content inside the input's own /Artifact stays as it is, unmarked", async () => {
    const document = await pageWith('/Artifact BMC BT /F1 9 Tf 50 20 Td (page 1 of 1) Tj ET EMC BT /F1 12 Tf 50 700 Td (Body text) Tj ET');
    await autoTag(document);
    const content = readStructure(await saved(document)).pages[0]!.content;
    expect(content).toMatch(/\/Artifact BMC BT \/F1 9 Tf 50 20 Td \(page 1 of 1\) Tj ET EMC/);
    expect(content.match(/MCID/g)).toHaveLength(1);
  });

  it('languageTag keeps what every part accepts', () => {
    expect(languageTag('de-DE')).toBe('de-DE');
    expect(languageTag('de-1996')).toBe('de');
    expect(languageTag('x')).toBe('x');
    expect(languageTag('<script>')).toBeUndefined();
    expect(languageTag('')).toBeUndefined();
  });
});
