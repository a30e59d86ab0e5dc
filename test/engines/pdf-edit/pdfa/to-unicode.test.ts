import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from '@cantoo/pdf-lib';
import { describe, expect, it } from 'vitest';
import { addMissingToUnicode } from '../../../../src/engines/pdf-edit/pdfa/to-unicode.js';
import { cffCidTextPdf } from '../../../operations/pdfa/inputs.js';

/**
 * ToUnicode for a CIDFontType0 over an embedded CFF program (FontFile3 /CIDFontType0C): derived from
 * the program's charset glyph names through the Adobe Glyph List. Seen with poppler: pdffonts' `uni`
 * column and pdftotext, which reads garbage from the same file without the map.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-to-unicode-'));

describe('addMissingToUnicode', () => {
  it('a CID-keyed-by-glyph-index CFF font (name-keyed program) gets a map from its glyph names; the text extracts', async () => {
    const input = await cffCidTextPdf('Hello CFF');
    const before = path.join(dir, 'before.pdf');
    writeFileSync(before, input);
    expect(execFileSync('pdftotext', [before, '-'], { encoding: 'utf8' })).not.toContain('Hello CFF');

    const document = await PDFDocument.load(input);
    expect(await addMissingToUnicode(document)).toEqual(['"NimbusSans-Regular" (Type0)']);
    const after = path.join(dir, 'after.pdf');
    writeFileSync(after, await document.save());
    expect(execFileSync('pdffonts', [after], { encoding: 'utf8' })).toMatch(/NimbusSans-Regular\s+CID Type 0C\s+Identity-H\s+yes\s+no\s+yes/);
    expect(execFileSync('pdftotext', [after, '-'], { encoding: 'utf8' })).toContain('Hello CFF');
  });
});
