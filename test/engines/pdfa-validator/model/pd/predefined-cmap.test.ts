import { describe, expect, it } from 'vitest';
import type { CosDocument } from '../../../../../src/engines/pdfa-validator/cos/index.js';
import { predefinedCMap, typeZeroCMap } from '../../../../../src/engines/pdfa-validator/model/pd/cmap.js';

// Values read off poppler-data's Adobe-Japan1 files with grep: 90ms-RKSJ-H has `<20> <7d> 231` and
// `<8140> <817e> 633`; 90ms-RKSJ-V is `/90ms-RKSJ-H usecmap` plus vertical forms (`<8141> <8142> 7887`).
// A name encoding is never resolved through the document, so none is needed.
const noDocument = {} as CosDocument;

describe('predefined CMaps (poppler-data)', () => {
  it('90ms-RKSJ-V splits one- and two-byte codes and takes its CIDs from itself, then from the CMap it uses', () => {
    const cmap = typeZeroCMap(noDocument, { kind: 'name', value: '90ms-RKSJ-V' });
    expect(cmap).not.toBeNull();
    expect(cmap?.codes(Buffer.from([0x20, 0x81, 0x40, 0x81, 0x41]))).toEqual([0x20, 0x8140, 0x8141]);
    expect(cmap?.cid(0x20)).toBe(231);
    expect(cmap?.cid(0x8140)).toBe(633);
    expect(cmap?.cid(0x8141)).toBe(7887);
  });

  it('a name that is no file, or tries to leave the folder, has no table', () => {
    expect(predefinedCMap('No-Such-CMap-H')).toBeUndefined();
    expect(predefinedCMap('../../../../etc/passwd')).toBeUndefined();
    expect(typeZeroCMap(noDocument, { kind: 'name', value: 'No-Such-CMap-H' })).toBeNull();
  });
});
