import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, sha256, type TestStore } from '../transaction/store.js';
import { structuredTextPdf } from './inputs.js';
import { preflight1b, preflightAvailable } from './preflight.js';
import { convertRequest, pdfaService } from './service.js';
import { readStructure, typesOf, type StructNode } from './structure.js';

/**
 * autoTagging on untagged PDF input: the `a` levels from Ghostscript's output with the structure tree
 * built from the page content. Each result is checked by our validator (the conversion's verdict), and
 * independently: pdfinfo says Tagged, PDFBox preflight accepts the 1a file as PDF/A-1b, qpdf's JSON shows the tree (standard types, the ParentTree, the
 * marks in the page content, MarkInfo, Lang, Tabs), pdftotext finds the same text as in the input.
 * Without autoTagging the same input is refused (-171) and stays as it was.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-autotag-'));
const pdftotext = (file: string): string => execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });

describe('PDF/A a levels with autoTagging', () => {
  let store: TestStore;
  let input: Buffer;
  let inputText: string;

  beforeAll(async () => {
    store = await openTestStore();
    input = await structuredTextPdf();
    const file = path.join(dir, 'input.pdf');
    writeFileSync(file, input);
    inputText = pdftotext(file);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/Tagged:\s+no/);
  });
  afterAll(() => store.close());

  it.each(['1a', '2a', '3a'])('%s: compliant, tagged, with the expected structure, the text unchanged', async (level) => {
    const id = (await store.upload(input, 'report.pdf')).id;
    const { warnings } = await pdfaService(store).run(store.session, id, convertRequest(level, { autoTagging: true }), 'json');
    expect(warnings[0]).toMatch(new RegExp(`^PDF/A-${level} validation: compliant; \\d+ rules passed, 0 failed, 0 not checked`));
    const file = store.storedFile(id);

    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/Tagged:\s+yes/);
    expect(pdftotext(file)).toBe(inputText);
    // Part 1: Apache PDFBox preflight (PDF/A-1b rules) still accepts the file with the marks and the tree in it.
    if (level === '1a' && preflightAvailable) expect(preflight1b(file).output).toMatch(/is a valid PDF\/A-1b file/);

    const s = readStructure(file);
    expect(s.catalog['/MarkInfo']).toEqual({ '/Marked': true });
    expect(s.catalog['/Lang']).toBe('u:en');
    expect(s.tree.map((n) => n.type)).toEqual(['Document']);
    // The title (24 pt) opens a section; "Results" and "Outlook" (16 pt) are the next level; body text is 11 pt.
    const types = typesOf(s.tree[0]!.kids);
    expect(types.filter((t) => !t.includes('/'))).toEqual(['Sect']);
    expect(s.tree[0]!.kids[0]!.kids.map(shape)).toEqual(['H1', 'P', 'H2', 'P', 'L(LI(LBody),LI(LBody),LI(LBody))', 'P', 'L(LI(Lbl,LBody),LI(Lbl,LBody))', 'Figure', 'P', 'P', 'Link', 'H2', 'P']);
    const sect = s.tree[0]!.kids[0]!.kids;
    expect(sect[7]!.alt).toBe('Figure 1: Revenue by region'); // the caption under it

    // Every MCID in a page's content is marked once, in order, and the ParentTree maps it to the element that holds it.
    const [first, second] = s.pages;
    expect(s.pages).toHaveLength(2);
    for (const [index, page] of [first!, second!].entries()) {
      const mcids = [...page.content.matchAll(/\/(\w+) <<\/MCID (\d+)>> BDC/g)].map((m) => ({ tag: m[1]!, mcid: Number(m[2]) }));
      expect(mcids.map((m) => m.mcid)).toEqual(mcids.map((_, i) => i));
      expect(page.dict['/StructParents']).toBe(index === 0 ? 0 : 2);
      const parents = s.parentTree.get(page.dict['/StructParents'] as number) as string[];
      expect(parents).toHaveLength(mcids.length);
      for (const { tag, mcid } of mcids) {
        const element = s.object(parents[mcid]!);
        expect(element['/S']).toBe(`/${tag}`);
        expect(element['/Pg']).toBe(page.ref);
      }
      expect(count(page.content, 'BDC') + count(page.content, 'BMC')).toBe(count(page.content, 'EMC'));
    }
    // The background box is a path: an artifact.
    expect(first!.content).toMatch(/\/Artifact BMC\s+[\d. ]+re\s+f\s+EMC/);
    // The link annotation: in the tree through an object reference, /StructParent into the ParentTree, the page's tab order by structure.
    const annots = first!.dict['/Annots'] as string[];
    const link = s.object(annots[0]!);
    expect(first!.dict['/Tabs']).toBe('/S');
    expect(s.parentTree.get(link['/StructParent'] as number)).toBeDefined();
    expect(s.object(s.parentTree.get(link['/StructParent'] as number) as string)['/S']).toBe('/Link');
    expect(sect[10]!.objr).toBe(annots[0]);
    expect(s.root['/ParentTreeNextKey']).toBe(3);
  });

  it('an a level without autoTagging on untagged input: -171 naming autoTagging, the document as it was', async () => {
    const id = (await store.upload(input, 'untagged.pdf')).id;
    const before = sha256(store.storedFile(id));
    const call = pdfaService(store).run(store.session, id, convertRequest('2a'), 'json');
    await expect(call).rejects.toMatchObject({ errorCode: -171, message: expect.stringMatching(/not tagged.*autoTagging: true/) });
    expect(sha256(store.storedFile(id))).toBe(before);
    expect(store.leftovers()).toEqual([]);
  });
});

function shape(node: StructNode): string {
  return node.kids.length === 0 ? node.type : `${node.type}(${node.kids.map(shape).join(',')})`;
}

function count(text: string, operator: string): number {
  return text.match(new RegExp(`\\b${operator}\\b`, 'g'))?.length ?? 0;
}
