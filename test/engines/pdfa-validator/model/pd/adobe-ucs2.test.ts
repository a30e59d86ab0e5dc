import { describe, expect, it } from 'vitest';
import { adobeUcs2 } from '../../../../../src/engines/pdfa-validator/model/pd/adobe-ucs2.js';
import { unicodeOfName } from '../../../../../src/engines/pdfa-validator/model/pd/glyphs.js';

// The four collections' CIDs 1–60 are ASCII from the space on (Adobe TN 5078/5079/5080/5093); the files are
// poppler-data's (installed with poppler-utils on every Quire machine).
describe('adobeUcs2', () => {
  it.each(['GB1', 'CNS1', 'Japan1', 'Korea1'])('Adobe-%s: CID 1 is the space, CID 34 is A, and thousands of CIDs are mapped', (ordering) => {
    const map = adobeUcs2(ordering);
    expect(map?.get(1)).toBe(' ');
    expect(map?.get(34)).toBe('A');
    expect(map?.size).toBeGreaterThan(5000);
  });

  it('an ordering outside the four has no table', () => {
    expect(adobeUcs2('Identity')).toBeUndefined();
    expect(adobeUcs2('../../etc/passwd')).toBeUndefined();
  });
});

describe('unicodeOfName (glyph names of simple fonts)', () => {
  it('names in the full Adobe Glyph List, beyond the Latin ones, have their value; a name outside it has none', () => {
    expect(unicodeOfName('afii10017')).toBe('А');
    expect(unicodeOfName('alefhebrew')).toBe('א');
    expect(unicodeOfName('uni0041')).toBe('A');
    expect(unicodeOfName('g123')).toBeNull();
  });
});
