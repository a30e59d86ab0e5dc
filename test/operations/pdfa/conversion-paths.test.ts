import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Ghostscript } from '../../../src/engines/ghostscript/ghostscript.js';
import { convertRequest, pdfaService } from './service.js';
import { openTestStore, qpdfCheck, type TestStore } from '../transaction/store.js';
import { textImagePdf } from './inputs.js';

/**
 * The conversion's two cheap paths, seen from outside with qpdf and poppler: Ghostscript's output
 * gets our fix-ups as an incremental update (Ghostscript's bytes stay as they are, one more
 * cross-reference section), and input that is PDF/A of another level gets our fix-ups alone (no
 * Ghostscript run: Ghostscript writes a new trailer /ID every run, the fix-ups keep the file's).
 */

const convert = (level: string) => convertRequest(level);

function trailerId(file: string): string {
  const trailer = execFileSync('qpdf', ['--show-object=trailer', file], { encoding: 'utf8' });
  const id = /\/ID \[ <([0-9a-f]+)>/i.exec(trailer);
  if (!id) throw new Error(`no /ID in ${trailer}`);
  return id[1]!.toLowerCase();
}

function xmp(file: string): string {
  return execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' });
}

describe('PDF/A conversion paths', () => {
  let store: TestStore;
  let documentId: string;
  const ghostscriptRuns: string[] = [];

  beforeEach(async () => {
    store = await openTestStore();
    documentId = (await store.upload(await textImagePdf({ pages: 3 }), 'sample.pdf')).id;
    ghostscriptRuns.length = 0;
  });
  afterEach(() => store.close());

  function service() {
    const real = new Ghostscript();
    // The real Ghostscript, counted: which runs happened is what the paths differ in.
    const counted = { pdfa: (input: string, output: string, options: Parameters<Ghostscript['pdfa']>[2]) => (ghostscriptRuns.push(input), real.pdfa(input, output, options)) };
    return pdfaService(store, counted as unknown as Ghostscript);
  }

  it("Ghostscript's output gets the fix-ups as an incremental update: two cross-reference sections, qpdf finds no error, the XMP says 3B", async () => {
    const { warnings } = await service().run(store.session, documentId, convert('3b'), 'json');
    expect(warnings[0]).toMatch(/^PDF\/A-3b validation: (compliant|inconclusive)/);
    expect(ghostscriptRuns).toHaveLength(1);
    const file = store.storedFile(documentId);
    expect(qpdfCheck(file)).toMatch(/No syntax or stream encoding errors/);
    const bytes = readFileSync(file).toString('latin1');
    expect(bytes.match(/startxref/g)).toHaveLength(2);
    expect(bytes.match(/\/Prev \d+/g)).toHaveLength(1);
    const meta = xmp(file);
    expect(meta).toMatch(/pdfaid:part>3<|pdfaid:part="3"/);
    expect(meta).toMatch(/pdfaid:conformance>B<|pdfaid:conformance="B"/);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/Pages:\s+3/);
  });

  it('input that is PDF/A of another level gets our fix-ups alone: no Ghostscript run, the trailer /ID kept, the new level in the XMP', async () => {
    await service().run(store.session, documentId, convert('2b'), 'json');
    const twoB = store.storedFile(documentId);
    const idOf2b = trailerId(twoB);
    expect(ghostscriptRuns).toHaveLength(1);

    const { warnings } = await service().run(store.session, documentId, convert('3b'), 'json');
    expect(warnings[0]).toMatch(/^PDF\/A-3b validation: (compliant|inconclusive)/);
    expect(ghostscriptRuns).toHaveLength(1); // no second run
    const threeB = store.storedFile(documentId);
    expect(trailerId(threeB)).toBe(idOf2b);
    expect(xmp(threeB)).toMatch(/pdfaid:part>3<|pdfaid:part="3"/);
    expect(() => qpdfCheck(threeB)).not.toThrow();
    expect(execFileSync('pdftotext', [threeB, '-'], { encoding: 'utf8' })).toContain('Quire PDF/A page 3');
  });

  it('a PDF/A-2b file converted to 1b: validated as 1b, it claims part 1 and has no object or cross-reference streams', async () => {
    await service().run(store.session, documentId, convert('2b'), 'json');
    expect(ghostscriptRuns).toHaveLength(1);
    const { warnings } = await service().run(store.session, documentId, convert('1b'), 'json');
    expect(warnings[0]).toMatch(/^PDF\/A-1b validation: (compliant|inconclusive)/);
    const file = store.storedFile(documentId);
    expect(xmp(file)).toMatch(/pdfaid:part>1<|pdfaid:part="1"/);
    expect(() => qpdfCheck(file)).not.toThrow();
    expect(readFileSync(file).toString('latin1')).not.toMatch(/\/Type\s*\/(ObjStm|XRef)\b/);
  });
});
