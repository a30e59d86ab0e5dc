/**
 * Glyph objects against a real font program: DejaVu Sans embedded as a TrueType font (WinAnsiEncoding) in hand-made
 * files checked by qpdf, its expected widths taken from fontkit (an independent reader of the same font). Widths
 * that agree pass 6.2.11.5-1, one changed by 50 fails it on page 1; a code without a glyph name is .notdef
 * (6.2.11.8-1); a truncated program makes the glyph rules not-checked, never passed. Plus the corpus' own verdicts
 * for the glyph clauses (veraPDF corpus, © veraPDF Consortium, CC BY 4.0).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as fontkit from 'fontkit';
import { afterAll, describe, expect, it } from 'vitest';
import { readCff } from '../../../../../src/engines/pdfa-validator/model/pd/font-program/cff.js';
import { FontProgramError } from '../../../../../src/engines/pdfa-validator/model/pd/font-program/program.js';
import { readTrueType } from '../../../../../src/engines/pdfa-validator/model/pd/font-program/truetype.js';
import { readType1 } from '../../../../../src/engines/pdfa-validator/model/pd/font-program/type1.js';
import { type PdfaReport, validatePdfa } from '../../../../../src/engines/pdfa-validator/validate.js';
import { buildPdf, streamBody } from '../../cos/build-pdf.js';

const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
const CORPUS = '/work/shared/pdfa/corpus';
const dir = mkdtempSync(path.join(os.tmpdir(), 'pdfa-glyph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** Widths of codes 32…126 as fontkit reads DejaVu Sans (advance × 1000 / unitsPerEm, rounded). */
function dejavuWidths(): number[] {
  const font = fontkit.openSync(DEJAVU) as fontkit.Font;
  const out: number[] = [];
  for (let code = 32; code <= 126; code++) out.push(Math.round((font.glyphForCodePoint(code).advanceWidth * 1000) / font.unitsPerEm));
  return out;
}

function fileWith(program: Buffer, widths: number[], shown: string): string {
  const content = Buffer.from(`BT /F1 12 Tf 10 10 Td (${shown}) Tj ET`, 'latin1');
  const bodies = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    streamBody(`/Length ${content.length}`, content),
    `<< /Type /Font /Subtype /TrueType /BaseFont /DejaVuSans /FirstChar 32 /LastChar 126 /Widths [${widths.join(' ')}] /Encoding /WinAnsiEncoding /FontDescriptor 6 0 R >>`,
    '<< /Type /FontDescriptor /FontName /DejaVuSans /Flags 32 /FontBBox [-1021 -463 1793 1232] /ItalicAngle 0 /Ascent 928 /Descent -236 /CapHeight 729 /StemV 80 /FontFile2 7 0 R >>',
    streamBody(`/Length ${program.length} /Length1 ${program.length}`, program),
  ];
  const file = path.join(dir, `g${n++}.pdf`);
  writeFileSync(file, buildPdf(bodies).bytes);
  const check = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  expect(check.status, check.stdout + check.stderr).toBe(0);
  return file;
}

function rule(r: PdfaReport, id: string) {
  const found = r.rules.find((x) => x.id === id);
  if (found === undefined) throw new Error(`no rule ${id}`);
  return found;
}

describe.runIf(existsSync(DEJAVU))('Glyph objects on an embedded TrueType program', () => {
  const program = readFileSync(DEJAVU);
  const widths = dejavuWidths();

  it('widths as the program has them pass 6.2.11.5-1; glyphs present pass 6.2.11.4.1-2', async () => {
    const r = await validatePdfa(fileWith(program, widths, 'Hello'), '2b');
    expect(rule(r, '6.2.11.5-1').status).toBe('passed');
    expect(rule(r, '6.2.11.4.1-2').status).toBe('passed');
    expect(rule(r, '6.2.11.8-1').status).toBe('passed');
  });

  it('a /Widths entry 50 units off fails 6.2.11.5-1, with the object path and page of the glyph', async () => {
    const off = [...widths];
    off['H'.charCodeAt(0) - 32] = (off['H'.charCodeAt(0) - 32] as number) + 50;
    const r = await validatePdfa(fileWith(program, off, 'Hello'), '2b');
    const w = rule(r, '6.2.11.5-1');
    expect(w.status).toBe('failed');
    expect(w.failedCount).toBe(1);
    expect(w.failures[0]?.object).toBe('5 0 obj (code 72)');
    expect(w.failures[0]?.page).toBe(1);
  });

  it('a code WinAnsiEncoding gives no glyph name selects .notdef: 6.2.11.8-1 fails', async () => {
    const r = await validatePdfa(fileWith(program, widths, 'A\\001'), '2b');
    expect(rule(r, '6.2.11.8-1').status).toBe('failed');
  });

  it('a truncated program leaves the glyph rules not-checked: never compliant', async () => {
    for (const cut of [0, 12, 100, 4096]) {
      const r = await validatePdfa(fileWith(program.subarray(0, cut), widths, 'Hello'), '2b');
      expect(rule(r, '6.2.11.4.1-2').status, `cut at ${cut}`).toBe('not-checked');
      expect(r.verdict).not.toBe('compliant');
    }
  });
});

describe.runIf(existsSync(CORPUS))('the corpus glyph clauses', () => {
  it('every 2b font-metrics and .notdef fail file fails its rule; their pass files are compliant', async () => {
    const fonts = path.join(CORPUS, 'PDF_A-2b/6.2 Graphics/6.2.11 Fonts');
    for (const [folder, id] of [
      ['6.2.11.5 Font metrics', '6.2.11.5-1'],
      ['6.2.11.8 Use of .notdef glyph', '6.2.11.8-1'],
    ] as const) {
      for (const name of readdirSync(path.join(fonts, folder))) {
        const r = await validatePdfa(path.join(fonts, folder, name), '2b');
        if (name.includes('-fail-')) expect(rule(r, id).status, name).toBe('failed');
        else expect(r.verdict, name).toBe('compliant');
      }
    }
  });
});

describe.runIf(existsSync(CORPUS))('replacement text from the structure tree', () => {
  it('a PUA character inside marked content whose structure element has /ActualText passes 2a 6.2.11.7.3-1', async () => {
    const folder = path.join(CORPUS, 'PDF_A-2a/6.2 Graphics/6.2.11 Fonts/6.2.11.7 Unicode character maps/6.2.11.7.3 Level A conformance');
    for (const name of readdirSync(folder)) {
      const r = await validatePdfa(path.join(folder, name), '2a');
      expect(rule(r, '6.2.11.7.3-1').status, name).toBe(name.includes('-fail-') ? 'failed' : 'passed');
    }
  });
});

describe.runIf(existsSync(DEJAVU))('font program readers on hostile bytes', () => {
  it('a real program with random bytes changed, and random data, reads or fails with an error: no hang, no other outcome', () => {
    const original = readFileSync(DEJAVU);
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let read = 0;
    let refused = 0;
    for (let round = 0; round < 300; round++) {
      const data = Buffer.from(round % 3 === 0 ? original.subarray(0, random(original.length)) : original);
      // Change bytes in the table directory and the first tables, where the counts and offsets are.
      for (let k = 0; k < 8; k++) data[random(Math.min(data.length, 4096))] = random(256);
      const noise = Buffer.from(Array.from({ length: random(2048) }, () => random(256)));
      for (const [reader, bytes] of [
        [readTrueType, data],
        [(b: Buffer) => readCff(b), noise],
        [(b: Buffer) => readType1(b, null), Buffer.concat([Buffer.from('%!PS-AdobeFont-1.0 eexec\n'), noise])],
      ] as const) {
        try {
          const program = reader(bytes);
          read++;
          for (let gid = 0; gid < 64; gid++) program.widthOf(gid);
          program.cmapLookup?.(3, 1, 65);
        } catch (error) {
          refused++;
          // Readers refuse with FontProgramError; a RangeError of a method call is caught by glyphs.ts (guarded) as unknown.
          expect(error instanceof FontProgramError || error instanceof RangeError, String(error)).toBe(true);
        }
      }
    }
    expect(read).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
