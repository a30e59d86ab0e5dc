import { describe, expect, it } from 'vitest';
import { adobeGlyphList } from '../../../src/engines/fonts/adobe-glyph-list.js';

// Ghostscript is installed on every Quire machine (quire.sh); its gs_agl.ps is the list read here. The
// expected values are those of Adobe's published glyphlist.txt.
describe('adobeGlyphList', () => {
  it('reads the whole list from Ghostscript, not only the Latin names', () => {
    const agl = adobeGlyphList();
    expect(agl.size).toBeGreaterThan(4000);
    expect(agl.get('A')).toBe(0x41);
    expect(agl.get('Euro')).toBe(0x20ac);
    expect(agl.get('afii10017')).toBe(0x410); // Cyrillic A
    expect(agl.get('alefhebrew')).toBe(0x5d0);
    expect(agl.get('Acircumflexsmall')).toBe(0xf7e2);
  });

  it('has no entry for a name outside the list, nor for its multi-value names (commented out in gs_agl.ps)', () => {
    const agl = adobeGlyphList();
    expect(agl.get('g123')).toBeUndefined();
    expect(agl.get('dalethatafpatah')).toBeUndefined();
  });

  it('is read once', () => {
    expect(adobeGlyphList()).toBe(adobeGlyphList());
  });
});
