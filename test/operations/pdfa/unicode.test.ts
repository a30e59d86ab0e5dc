import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { convertRequest, pdfaService } from './service.js';
import { openTestStore, sha256, type TestStore } from '../transaction/store.js';
import { textImagePdf, trueTypeTextPdf, type3TextPdf } from './inputs.js';

/**
 * u levels: every font of the result maps its codes to Unicode. Seen with poppler: pdffonts' `uni`
 * column (a ToUnicode map is there) and pdftotext (the text comes back); a font where nothing says
 * what its glyphs mean fails the level with -171 naming the font, and the document stays as it was.
 */

const convert = (level: string) => convertRequest(level);

/** pdffonts' rows: name, type and whether a ToUnicode map is there. */
function fonts(file: string): { name: string; type: string; unicode: boolean }[] {
  const lines = execFileSync('pdffonts', [file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter((l) => l.trim() !== '');
  return lines.map((line) => {
    const columns = line.trim().split(/\s+/);
    // name type… encoding emb sub uni object ID: the flags are the 5th to 3rd columns from the end.
    return { name: columns[0]!, type: columns.slice(1, -5).join(' '), unicode: columns.at(-3) === 'yes' };
  });
}

const text = (file: string) => execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });

describe('PDF/A u levels: Unicode for every font', () => {
  let store: TestStore;

  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(() => store.close());

  const service = () => pdfaService(store);

  it("2u: Ghostscript's Type1 fonts (WinAnsi, no ToUnicode) get one from their glyph names; the text extracts", async () => {
    const id = (await store.upload(await textImagePdf({ pages: 1, image: false }), 'standard-font.pdf')).id;
    const { warnings } = await service().run(store.session, id, convert('2u'), 'json');
    expect(warnings[0]).toMatch(/^PDF\/A-2u validation: (compliant|inconclusive)/);
    const file = store.storedFile(id);
    const found = fonts(file);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => f.unicode)).toBe(true);
    expect(text(file)).toContain('the quick brown fox jumps over the lazy dog');
  });

  it('2b leaves them as they are (b promises no extractable text): no ToUnicode added', async () => {
    const id = (await store.upload(await textImagePdf({ pages: 1, image: false }), 'standard-font.pdf')).id;
    await service().run(store.session, id, convert('2b'), 'json');
    expect(fonts(store.storedFile(id)).some((f) => !f.unicode)).toBe(true);
  });

  for (const symbolic of [false, true]) {
    it(`3u: an embedded TrueType font without ToUnicode (${symbolic ? 'symbolic, codes through its cmap' : 'WinAnsi'}) gets one; the text (umlauts too) extracts`, async () => {
      const id = (await store.upload(await trueTypeTextPdf(symbolic ? 'Hello Unicode' : 'Gr\u00fc\u00dfe aus Quire', { symbolic }), 'truetype.pdf')).id;
      const { warnings } = await service().run(store.session, id, convert('3u'), 'json');
      expect(warnings[0]).toMatch(/^PDF\/A-3u validation: (compliant|inconclusive)/);
      const file = store.storedFile(id);
      expect(fonts(file).every((f) => f.unicode)).toBe(true);
      expect(text(file)).toContain(symbolic ? 'Hello Unicode' : 'Grüße aus Quire');
    });
  }

  it('2u: a Type3 font whose glyph names mean nothing fails with -171 naming the font; the document is unchanged', async () => {
    const id = (await store.upload(await type3TextPdf(), 'type3.pdf')).id;
    const before = sha256(store.storedFile(id));
    const call = service().run(store.session, id, convert('2u'), 'json');
    await expect(call).rejects.toMatchObject({ errorCode: -171 });
    await expect(call).rejects.toThrow(/Unicode mapping.*Type3/);
    expect(sha256(store.storedFile(id))).toBe(before);
    // The same file is fine as 2b: nothing there promises extractable text.
    const { warnings } = await service().run(store.session, id, convert('2b'), 'json');
    expect(warnings[0]).toMatch(/^PDF\/A-2b validation/);
  });
});
