import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPdfInspector } from '../../../src/engines/pdf/index.js';
import { countPages, listPages } from '../../../src/engines/pdf/page-count.js';
import { PdfRewriter } from '../../../src/engines/pdf/rewriter.js';
import { QpdfRunner } from '../../../src/engines/pdf/qpdf.js';
import { readDocumentJson, readOutlines } from '../../../src/engines/pdf/structure/document-json.js';
import { buildPdf, documentObjects, kidsCyclePdf, lyingCountPdf, outlineCyclePdf, pageText, parentCyclePdf, stream } from '../../helpers/hostile-pdf.js';
import { makeTempDir } from './fixtures.js';

/**
 * Issue 11: the PDF engine on structures that lie or loop. The true answer is known from how each file
 * is built; results are checked with poppler (pdfinfo, pdftotext) and qpdf --check.
 */
const qpdf = new QpdfRunner({ qpdfPath: 'qpdf', timeoutMs: 30_000 });
let dir: string;
const file = (name: string): string => path.join(dir, name);
const write = (name: string, bytes: Buffer): string => {
  fs.writeFileSync(file(name), bytes);
  return file(name);
};
const pdfinfoPages = (pdf: string): number => Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))![1]);
const pdftotext = (pdf: string): string => execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' });
const declared = (pdf: string): number => Number(execFileSync('qpdf', ['--show-npages', pdf], { encoding: 'utf8' }).trim());

beforeAll(() => {
  dir = makeTempDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('page count', () => {
  it('is the number of pages the tree has, whatever the root declares', async () => {
    const cases: [string, string | number][] = [
      ['huge', 2147483647],
      ['negative', -5],
      ['real', 1.5],
      ['overflow', '99999999999999999999999'],
      ['small', 1],
      ['big', 40],
    ];
    for (const [name, count] of cases) {
      const pdf = write(`count-${name}.pdf`, lyingCountPdf(count, 3));
      expect(await countPages(qpdf, pdf, {}), name).toBe(name === 'overflow' ? 0 : 3);
    }
    // Without /Count at all, and without /Kids.
    expect(await countPages(qpdf, write('no-count.pdf', buildPdf(documentObjects({ pages: 2, pagesDictionary: '<</Type/Pages/Kids[10 0 R 12 0 R]>>' }))), {})).toBe(2);
    expect(await countPages(qpdf, write('no-kids.pdf', buildPdf(documentObjects({ pagesDictionary: '<</Type/Pages/Count 3>>' }))), {})).toBe(0);
  });

  it('lists the page objects in order with the declared count beside them', async () => {
    const listing = await listPages(qpdf, write('list.pdf', lyingCountPdf(7, 3)), {});
    expect(listing).toMatchObject({ count: 3, declared: 7, refs: ['10 0 R', '12 0 R', '14 0 R'] });
    expect((await listPages(qpdf, file('list.pdf'), {}, { maxRefs: 2 })).refs).toEqual(['10 0 R', '12 0 R']);
  });

  it('counts a page listed twice twice (qpdf copies it) and refuses a tree that loops', async () => {
    const twice = write('twice.pdf', buildPdf(documentObjects({ pagesDictionary: '<</Type/Pages/Kids[10 0 R 10 0 R]/Count 2>>' })));
    expect(await countPages(qpdf, twice, {})).toBe(2);
    await expect(countPages(qpdf, write('kids-cycle.pdf', kidsCyclePdf()), {})).rejects.toMatchObject({ kind: 'invalidPdf' });
  });
});

describe('PdfRewriter.repaired', () => {
  const rewriter = new PdfRewriter({ timeoutMs: 30_000 });

  it('gives a sound file back as it is', async () => {
    const sound = write('sound.pdf', lyingCountPdf(2, 2));
    expect(await rewriter.repaired(sound, file('sound-out.pdf'))).toBe(sound);
    expect(fs.existsSync(file('sound-out.pdf'))).toBe(false);
  });

  it('writes a root that lies about its count with the real count, content unchanged', async () => {
    for (const [name, count] of [
      ['huge', 2147483647],
      ['negative', -5],
    ] as const) {
      const input = write(`lying-${name}.pdf`, lyingCountPdf(count, 2));
      // poppler cannot read the input at all (its page count is the declared one)
      if (name === 'huge') expect(() => execFileSync('pdfinfo', [input], { stdio: 'pipe' })).toThrow();
      const output = await rewriter.repaired(input, file(`lying-${name}-out.pdf`));
      expect(output).toBe(file(`lying-${name}-out.pdf`));
      expect(pdfinfoPages(output)).toBe(2);
      expect(declared(output)).toBe(2);
      expect(pdftotext(output)).toMatch(new RegExp(`${pageText(1)}[\\s\\S]*${pageText(2)}`));
      expect(execFileSync('qpdf', ['--check', output], { encoding: 'utf8' })).toMatch(/No syntax or stream encoding errors/);
      expect(await rewriter.pageCount(output)).toBe(2);
    }
  });

  it('repairs a lying root that lives in an object stream', async () => {
    const plain = write('lying-plain.pdf', lyingCountPdf(2147483647, 2));
    execFileSync('qpdf', ['--object-streams=generate', plain, file('lying-objstm.pdf')]);
    expect(declared(file('lying-objstm.pdf'))).toBe(2147483647);
    const output = await rewriter.repaired(file('lying-objstm.pdf'), file('lying-objstm-out.pdf'));
    expect(declared(output)).toBe(2);
    expect(pdfinfoPages(output)).toBe(2);
  });

  it('refuses a small file that lists the same page thousands of times, and copies a page listed twice', async () => {
    const kids = Array.from({ length: 2000 }, () => '10 0 R').join(' ');
    const amplified = write('same-page-2000.pdf', buildPdf(documentObjects({ pagesDictionary: `<</Type/Pages/Kids[${kids}]/Count 2000>>` })));
    await expect(rewriter.repaired(amplified, file('same-page-out.pdf'))).rejects.toMatchObject({ kind: 'invalidPdf', message: /same page objects more than 1000 times/ });
    // The same for every reader of the pages (GET info too).
    await expect(createPdfInspector().metadata(amplified)).rejects.toMatchObject({ kind: 'invalidPdf' });
    const twice = write('twice-repaired.pdf', buildPdf(documentObjects({ pagesDictionary: '<</Type/Pages/Kids[10 0 R 10 0 R]/Count 2>>' })));
    const output = await rewriter.repaired(twice, file('twice-out.pdf'));
    expect(pdfinfoPages(output)).toBe(2);
    expect(pdftotext(output).match(new RegExp(pageText(1), 'g'))).toHaveLength(2);
  });

  it('writes out what qpdf recovers from damage, so that other readers see it too', async () => {
    // A page dictionary with a stray token and a content stream whose /Length lies.
    const objects = documentObjects({ pages: 2 });
    objects[12] = String(objects[12]).replace('/MediaBox', ') /MediaBox');
    objects[13] = Buffer.from(String(stream('', `BT /F1 24 Tf 72 700 Td (${pageText(2)}) Tj ET`)).replace(/\/Length \d+/, '/Length 9999'), 'latin1');
    const damaged = write('damaged.pdf', buildPdf(objects));
    const output = await rewriter.repaired(damaged, file('damaged-out.pdf'));
    expect(output).toBe(file('damaged-out.pdf'));
    execFileSync('qpdf', ['--check', output]); // exit 0: nothing left to repair
    expect(pdftotext(output)).toContain(pageText(2));
  });
});

describe("outlines and pages read without qpdf's looping JSON keys", () => {
  it('reads a cyclic outline once per item', async () => {
    const pdf = write('outline-cycle.pdf', outlineCyclePdf());
    const outlines = await readOutlines(qpdf, pdf, {});
    expect(outlines.map((item) => [item.title, item.page, item.kids.length])).toEqual([
      ['A', 1, 0],
      ['B', 1, 0],
    ]);
    const document = await readDocumentJson(qpdf, pdf, {}, { pages: true, outlines: true });
    expect(document.pages).toEqual(['10 0 R']);
  });

  it('cuts an outline at 64 levels and reads long sibling chains whole', async () => {
    const objects: Record<number, string | Buffer> = documentObjects({ catalogExtra: '/Outlines 100 0 R' });
    const depth = 80;
    objects[100] = '<</Type/Outlines/First 101 0 R/Last 101 0 R>>';
    for (let i = 1; i <= depth; i++) {
      objects[100 + i] = `<</Title(L${i})/Parent ${99 + i} 0 R${i < depth ? `/First ${101 + i} 0 R/Last ${101 + i} 0 R/Count 1` : ''}/Dest[10 0 R/Fit]>>`;
    }
    const siblings = 1500;
    objects[1] = '<</Type/Catalog/Pages 2 0 R/Outlines 100 0 R>>';
    // A second chain of siblings under the root's last item is not possible with one /First: put them under L1's sibling list.
    objects[101] = String(objects[101]).replace('/Dest', '/Next 1001 0 R/Dest');
    for (let i = 0; i < siblings; i++) objects[1001 + i] = `<</Title(S${i})/Parent 100 0 R${i < siblings - 1 ? `/Next ${1002 + i} 0 R` : ''}/Dest[10 0 R/Fit]>>`;
    const pdf = write('outline-deep.pdf', buildPdf(objects));
    const outlines = await readOutlines(qpdf, pdf, {});
    expect(outlines).toHaveLength(1 + siblings);
    let levels = 0;
    for (let node = outlines[0]; node; node = node.kids[0]) levels++;
    expect(levels).toBe(64);
  });

  it('resolves named destinations through a /Dests name tree that loops', async () => {
    const objects = documentObjects({ pages: 2, catalogExtra: '/Outlines 6 0 R/Names<</Dests 20 0 R>>' });
    objects[6] = '<</Type/Outlines/First 7 0 R/Last 7 0 R/Count 1>>';
    objects[7] = '<</Title(Named)/Parent 6 0 R/Dest(two)>>';
    objects[20] = '<</Kids[21 0 R 20 0 R]>>';
    objects[21] = '<</Kids[20 0 R 22 0 R]>>';
    objects[22] = '<</Names[(two)[12 0 R/Fit]]>>';
    const outlines = await readOutlines(qpdf, write('named.pdf', buildPdf(objects)), {});
    expect(outlines.map((item) => [item.title, item.page])).toEqual([['Named', 2]]);
  });

  it('counts attachments and reads page labels through trees whose nodes are listed twice per level', async () => {
    // 40 levels, each node listing the next one twice: 2^40 paths for a walk that does not remember nodes.
    const objects: Record<number, string | Buffer> = documentObjects({ pages: 2, catalogExtra: '/Names<</EmbeddedFiles 200 0 R>>/PageLabels 300 0 R' });
    for (let i = 0; i < 40; i++) {
      objects[200 + i] = `<</Kids[${201 + i} 0 R ${201 + i} 0 R 200 0 R]>>`;
      objects[300 + i] = `<</Kids[${301 + i} 0 R ${301 + i} 0 R 300 0 R]>>`;
    }
    objects[240] = '<</Names[(a.txt) 250 0 R (b.txt) 251 0 R]>>';
    objects[250] = `<</Type/Filespec/F(a.txt)/EF<</F 252 0 R>>>>`;
    objects[251] = `<</Type/Filespec/F(b.txt)/EF<</F 252 0 R>>>>`;
    objects[252] = stream('/Type/EmbeddedFile', 'attached');
    objects[340] = '<</Nums[0 <</S/r>> 1 <</S/D/P(A-)/St 5>>]>>';
    const metadata = await createPdfInspector().metadata(write('diamond-trees.pdf', buildPdf(objects)));
    expect(metadata.information.attachments).toBe(2);
    expect(metadata.pages.page.map((page) => page.label)).toEqual(['i', 'A-5']);
  });

  it('inspects a cyclic outline and a lying page count with the real pages', async () => {
    const inspector = createPdfInspector();
    const cyclic = await inspector.metadata(file('outline-cycle.pdf'));
    expect(cyclic.information.pages).toBe(1);
    expect(cyclic.pages.page).toHaveLength(1);
    const lying = await inspector.metadata(write('lying-info.pdf', lyingCountPdf(2147483647, 2)));
    expect(lying.information.pages).toBe(2);
    expect(lying.pages.page.map((page) => page.width)).toEqual([612, 612]);
    const parent = await inspector.metadata(write('parent-cycle.pdf', parentCyclePdf()));
    expect(parent.information.pages).toBe(1);
  });
});

describe("numbers qpdf's JSON spells as the file does", () => {
  it('inspects a page whose media box says "612." (valid PDF, invalid JSON in qpdf 11.3\'s output)', async () => {
    const objects = documentObjects();
    objects[10] = String(objects[10]).replace('/MediaBox[0 0 612 792]', '/MediaBox[0 0 612. 792]/Extra +3/Half .5/Padded 007');
    const pdf = write('reals.pdf', buildPdf(objects));
    const raw = execFileSync('qpdf', ['--json=2', '--json-key=qpdf', pdf], { encoding: 'utf8' });
    expect(() => JSON.parse(raw)).toThrow();
    const metadata = await createPdfInspector().metadata(pdf);
    expect(metadata.pages.page[0]).toMatchObject({ width: 612, height: 792 });
  });
});

describe('large object counts', () => {
  it('packs 200,000 objects into object streams (no argument spread of the entries)', async () => {
    const { packObjectStreams } = await import('../../../src/engines/pdf/compress/object-streams.js');
    const objects: Record<number, string | Buffer> = documentObjects({ catalogExtra: '/Many 20 0 R' });
    const many = 200_000;
    objects[20] = `[${Array.from({ length: many }, (_, i) => `${21 + i} 0 R`).join(' ')}]`;
    for (let i = 0; i < many; i++) objects[21 + i] = `<</N ${i}>>`;
    const input = write('many-objects.pdf', buildPdf(objects));
    await packObjectStreams(input, file('many-objects-packed.pdf'), { objectsPerStream: 100 });
    expect(execFileSync('qpdf', ['--check', file('many-objects-packed.pdf')], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })).toMatch(/No syntax or stream encoding errors/);
    expect(pdftotext(file('many-objects-packed.pdf'))).toContain(pageText(1));
  }, 120_000);
});
