import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ghostscript, GhostscriptError } from '../../../src/engines/ghostscript/ghostscript.js';
import { findSrgbProfile, pdfaAborted, writePdfaPrefix } from '../../../src/engines/ghostscript/pdfa.js';
import { textImagePdf } from '../../operations/pdfa/inputs.js';

/** Ghostscript's PDF/A output as the pdfa service drives it, checked with qpdf and poppler. */

const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-gs-pdfa-'));

describe('Ghostscript PDF/A', () => {
  it('finds the sRGB profile Ghostscript ships by its real path (what --permit-file-read must name under SAFER)', () => {
    const icc = findSrgbProfile();
    expect(icc).toBeDefined();
    expect(realpathSync(icc!)).toBe(icc);
    // An ICC header: the "acsp" signature at offset 36, an RGB data colour space.
    const header = readFileSync(icc!).subarray(0, 40);
    expect(header.subarray(36, 40).toString('latin1')).toBe('acsp');
    expect(header.subarray(16, 20).toString('latin1')).toBe('RGB ');
    expect(findSrgbProfile(['/nonexistent/srgb.icc'])).toBe(icc); // the versioned folders are looked at too
  });

  it('writes the prefix with the profile path escaped for PostScript', async () => {
    const prefixFile = path.join(dir, 'prefix.ps');
    await writePdfaPrefix({ part: 2, iccProfile: '/odd (path)\\srgb.icc', prefixFile, jpegQuality: 75 });
    expect(readFileSync(prefixFile, 'utf8')).toContain('/ICCProfile (/odd \\(path\\)\\\\srgb.icc) def');
  });

  it('converts to PDF/A-2 with an sRGB OutputIntent, under SAFER', async () => {
    const input = path.join(dir, 'in.pdf');
    writeFileSync(input, await textImagePdf({ pages: 2 }));
    const output = path.join(dir, 'out.pdf');
    await new Ghostscript().pdfa(input, output, { part: 2, iccProfile: findSrgbProfile()!, prefixFile: path.join(dir, 'p2.ps'), jpegQuality: 75, timeoutMs: 60_000 });
    const objects = execFileSync('qpdf', ['--json=1', '--json-key=objects', output], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(objects).toMatch(/"\/S": "\/GTS_PDFA1"/);
    expect(execFileSync('pdfinfo', ['-meta', output], { encoding: 'utf8' })).toMatch(/pdfaid:part[^0-9]*2/);
    expect(execFileSync('pdffonts', [output], { encoding: 'utf8' })).toMatch(/ yes /); // fonts embedded
  });

  it('does not trust exit 0: "PDF/A processing aborted" is a failure', async () => {
    expect(pdfaAborted('GPL Ghostscript 10.00.0: some warning\n\n **** PDF/A processing aborted, reverting to normal PDF output\n')).toMatch(/aborted/);
    expect(pdfaAborted('GPL Ghostscript 10.00.0: Text string detected in DOCINFO cannot be represented in XMP')).toBeUndefined();
    // A profile Ghostscript may not read (outside --permit-file-read): the run must not pass as PDF/A.
    const input = path.join(dir, 'in2.pdf');
    writeFileSync(input, await textImagePdf({ pages: 1, image: false }));
    const prefixFile = path.join(dir, 'bad.ps');
    const run = new Ghostscript().pdfa(input, path.join(dir, 'bad.pdf'), { part: 2, iccProfile: '/nonexistent/srgb.icc', prefixFile, jpegQuality: 75, timeoutMs: 60_000 });
    await expect(run).rejects.toBeInstanceOf(GhostscriptError);
  });
});
