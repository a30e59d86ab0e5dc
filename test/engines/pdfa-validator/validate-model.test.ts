/**
 * Which COS model objects the validator builds, seen through the rules they fail on hand-made files
 * (each checked with qpdf to be a readable PDF): stream filters, file specifications, colourant names,
 * form XObject content, page boundaries, rendering intents, associated files.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PdfaLevel } from '../../../src/engines/pdfa-validator/profile/model.js';
import { type RuleReport, validatePdfa } from '../../../src/engines/pdfa-validator/validate.js';
import { BASE_OBJECTS, buildPdf, streamBody } from './cos/build-pdf.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pdfa-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ruleOf(bodies: Array<string | Buffer>, level: PdfaLevel, id: string): Promise<RuleReport> {
  const file = path.join(dir, `${id}-${level}.pdf`);
  writeFileSync(file, buildPdf(bodies).bytes);
  const check = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
  expect(check.status, check.stdout + check.stderr).toBe(0);
  const rule = (await validatePdfa(file, level)).rules.find((r) => r.id === id);
  if (rule === undefined) throw new Error(`no rule ${id} in ${level}`);
  return rule;
}

describe('the COS model objects', () => {
  it('every filter of a stream is a CosFilter: LZWDecode fails 1b 6.1.10-1, FlateDecode passes', async () => {
    const lzw = await ruleOf([...BASE_OBJECTS, streamBody('/Length 3 /Filter [/ASCIIHexDecode /LZWDecode]', Buffer.from('80>'))], '1b', '6.1.10-1');
    expect(lzw.status).toBe('failed');
    expect(lzw.failedCount).toBe(1);
    expect(lzw.failures[0]?.object).toBe('4 0 obj/Filter');
    const flate = await ruleOf([...BASE_OBJECTS, streamBody('/Length 3 /Filter /ASCIIHexDecode', Buffer.from('80>'))], '1b', '6.1.10-1');
    expect(flate.status).toBe('passed');
  });

  it('a file specification that embeds a file fails 1b 6.1.11-1 (CosFileSpecification containsEF)', async () => {
    const rule = await ruleOf([...BASE_OBJECTS, '<< /Type /Filespec /F (a.txt) /EF << /F 5 0 R >> >>', streamBody('/Length 1 /Type /EmbeddedFile', Buffer.from('a'))], '1b', '6.1.11-1');
    expect(rule.status).toBe('failed');
    expect(rule.failures[0]?.object).toBe('4 0 obj');
  });

  it('a file without file specifications passes 1b 6.1.11-1 (every /Type /Filespec and every /EF dictionary is one)', async () => {
    const rule = await ruleOf(BASE_OBJECTS, '1b', '6.1.11-1');
    expect(rule.status).toBe('passed');
  });

  it("a graphics state's rendering intent is its /RI: an unknown one fails 2b 6.2.6-1, a known one passes", async () => {
    const bad = await ruleOf([...BASE_OBJECTS, '<< /Type /ExtGState /RI /Vivid >>'], '2b', '6.2.6-1');
    expect(bad.status).toBe('failed');
    expect(bad.failures[0]?.object).toBe('4 0 obj/RI');
    const good = await ruleOf([...BASE_OBJECTS, '<< /RI /Perceptual >>'], '2b', '6.2.6-1');
    expect(good.status).toBe('passed');
    // An optional content group's /Intent is no rendering intent.
    const ocg = await ruleOf([...BASE_OBJECTS, '<< /Type /OCG /Name (a) /Intent /Design >>'], '2b', '6.2.6-1');
    expect(ocg.status).toBe('passed');
  });

  it('a structure element without /Type is one: its /S not UTF-8 fails 2b 6.1.8-1', async () => {
    const rule = await ruleOf([...BASE_OBJECTS, '<< /S /Caf#E9 /P 1 0 R >>'], '2b', '6.1.8-1');
    expect(rule.status).toBe('failed');
    expect(rule.failures[0]?.object).toBe('4 0 obj/S');
  });

  it('a Separation colourant name that is not UTF-8 fails 2b 6.1.8-1 (CosUnicodeName)', async () => {
    const cs = '[/Separation /Caf#E9 /DeviceCMYK << /FunctionType 2 /Domain [0 1] /C0 [0 0 0 0] /C1 [0 0 0 1] /N 1 >>]';
    const bad = await ruleOf([...BASE_OBJECTS, cs], '2b', '6.1.8-1');
    expect(bad.status).toBe('failed');
    expect(bad.failures[0]?.object).toBe('4 0 obj[1]');
    const good = await ruleOf([...BASE_OBJECTS, cs.replace('Caf#E9', 'Caf#C3#A9')], '2b', '6.1.8-1');
    expect(good.status).toBe('passed');
  });

  it("a form XObject's content is walked: a real beyond 32767 there fails 1b 6.1.12-2", async () => {
    const content = Buffer.from('q 40000.5 0 0 1 0 0 cm Q');
    const rule = await ruleOf([...BASE_OBJECTS, streamBody(`/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Length ${content.length}`, content)], '1b', '6.1.12-2');
    expect(rule.status).toBe('failed');
    expect(rule.failures[0]?.object).toBe('4 0 obj (content)[1]');
  });
});

describe('page boundaries (CosBBox)', () => {
  const pages = (nodeBox: string, pageBox: string): string[] => [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [3 0 R] /Count 1 ${nodeBox} >>`,
    `<< /Type /Page /Parent 2 0 R ${pageBox} >>`,
  ];

  it('a 2-unit MediaBox inherited by the page fails 2b 6.1.13-11 on the page', async () => {
    const rule = await ruleOf(pages('/MediaBox [0 0 2 2]', ''), '2b', '6.1.13-11');
    expect(rule.status).toBe('failed');
    expect(rule.failures[0]?.object).toBe('3 0 obj/MediaBox');
  });

  it("a page tree node's box the page overrides is not a boundary of any page: not failed", async () => {
    const rule = await ruleOf(pages('/MediaBox [0 0 2 2]', '/MediaBox [0 0 200 200]'), '2b', '6.1.13-11');
    expect(rule.status).toBe('passed');
  });
});

describe('associated files (PDF/A-3 6.8-4, a deferred rule)', () => {
  const spec = '<< /Type /Filespec /F (a.xml) /UF (a.xml) /AFRelationship /Data /EF << /F 5 0 R >> >>';
  const file = streamBody('/Length 3 /Type /EmbeddedFile /Subtype /text#2Fxml', Buffer.from('<a/>').subarray(0, 3));

  it('an embedded file no /AF array names fails 3b 6.8-4', async () => {
    const rule = await ruleOf(['<< /Type /Catalog /Pages 2 0 R >>', BASE_OBJECTS[1] as string, BASE_OBJECTS[2] as string, spec, file], '3b', '6.8-4');
    expect(rule.status).toBe('failed');
    expect(rule.failures[0]?.object).toBe('4 0 obj');
  });

  it("one the catalog's /AF names does not fail it", async () => {
    const rule = await ruleOf(['<< /Type /Catalog /Pages 2 0 R /AF [4 0 R] >>', BASE_OBJECTS[1] as string, BASE_OBJECTS[2] as string, spec, file], '3b', '6.8-4');
    expect(rule.failedCount).toBe(0);
    expect(rule.status).toBe('passed');
  });
});

describe('content streams found from what refers to them', () => {
  it('an appearance stream without /Subtype is still walked: a real beyond 32767 there fails 1b 6.1.12-2', async () => {
    const content = Buffer.from('q 40000.5 0 0 1 0 0 cm Q');
    const rule = await ruleOf(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>',
        '<< /Type /Annot /Subtype /Square /Rect [0 0 10 10] /F 4 /AP << /N 5 0 R >> >>',
        streamBody(`/BBox [0 0 10 10] /Length ${content.length}`, content),
      ],
      '1b',
      '6.1.12-2',
    );
    expect(rule.status).toBe('failed');
    expect(rule.failures[0]?.object).toBe('4 0 obj/AP/N (content)[1]');
  });
});
