import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validatePdfa } from '../../../../src/engines/pdfa-validator/validate.js';
import { cffCidTextPdf } from '../../../operations/pdfa/inputs.js';

/**
 * Ghostscript re-embeds a font as a CID-keyed CFF program with a top FontMatrix of 0.001 and a font
 * dictionary FontMatrix of 1: the widths are read through both (CFF spec §18). Read through the font
 * dictionary's alone they came out 1000× the /W widths, and rule 6.2.11.5-1 failed every such file.
 */
describe('CFF CID font programs', () => {
  it("read Ghostscript's glyph widths through both FontMatrix entries: 6.2.11.5-1 passes", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-cff-matrix-'));
    const input = path.join(dir, 'in.pdf');
    const output = path.join(dir, 'gs.pdf');
    writeFileSync(input, await cffCidTextPdf('Hello CFF'));
    execFileSync('gs', ['-q', '-dBATCH', '-dNOPAUSE', '-dSAFER', '-dPDFA=2', '-dPDFACompatibilityPolicy=1', '-sColorConversionStrategy=RGB', '-sDEVICE=pdfwrite', `-sOutputFile=${output}`, input]);
    // An independent look at what Ghostscript wrote: a CID-keyed CFF font.
    expect(execFileSync('pdffonts', [output], { encoding: 'utf8' })).toMatch(/CID Type 0C/);

    const report = await validatePdfa(output, '2b');
    const widths = report.rules.find((rule) => rule.id === '6.2.11.5-1');
    expect(widths?.status).toBe('passed');
  });
});
