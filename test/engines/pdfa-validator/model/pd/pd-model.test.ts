/**
 * The PD layer of the validator's model (model/pd), seen through the rules its objects pass or fail on
 * hand-made files, each checked by qpdf to be a readable PDF: document, annotations, actions, output
 * intents and the gOutputCS variable, the XObjects and graphics states the content uses, and hostile
 * structures (cycles, undecodable content) that must end without a verdict of compliance.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { PdfaLevel } from '../../../../../src/engines/pdfa-validator/profile/model.js';
import { type PdfaReport, type RuleReport, validatePdfa } from '../../../../../src/engines/pdfa-validator/validate.js';
import { buildPdf, streamBody } from '../../cos/build-pdf.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pdfa-pd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;

/** qpdf's exit status: 0 readable, 3 warnings (a stream it cannot decode), 2 errors (the hostile cases: qpdf sees the damage too). */
async function report(bodies: Array<string | Buffer>, level: PdfaLevel, qpdfStatus: 0 | 2 | 3 = 0): Promise<PdfaReport> {
  const file = path.join(dir, `f${fileNo++}.pdf`);
  writeFileSync(file, buildPdf(bodies).bytes);
  const check = await qpdfCheck(file);
  expect(check.status, check.output).toBe(qpdfStatus);
  return validatePdfa(file, level);
}

/**
 * qpdf --check without blocking the test worker: the 2,000-page case takes qpdf ~26 s of CPU, several times that on a
 * loaded machine, and a worker blocked that long misses vitest's RPC deadline ("Timeout calling onTaskUpdate").
 */
function qpdfCheck(file: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile('qpdf', ['--check', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status, output: stdout + stderr });
    });
  });
}

function rule(r: PdfaReport, id: string): RuleReport {
  const found = r.rules.find((x) => x.id === id);
  if (found === undefined) throw new Error(`no rule ${id}`);
  return found;
}

/** Catalog (1) with extra entries, pages (2), one page (3) with extra entries; more objects from 4. */
function doc(catalogExtra: string, pageExtra: string, ...more: Array<string | Buffer>): Array<string | Buffer> {
  return [`<< /Type /Catalog /Pages 2 0 R ${catalogExtra} >>`, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] ${pageExtra} >>`, ...more];
}

function content(ops: string): Buffer {
  const data = deflateSync(Buffer.from(ops, 'latin1'));
  return streamBody(`/Length ${data.length} /Filter /FlateDecode`, data);
}

/** An ICC profile header (ICC.1 7.2): 128 bytes, then an empty tag table. */
function icc(deviceClass: string, colorSpace: string, major: number, minor: number): Buffer {
  const b = Buffer.alloc(132);
  b.writeUInt32BE(132, 0);
  b[8] = major;
  b[9] = minor << 4;
  b.write(deviceClass, 12, 'latin1');
  b.write(colorSpace, 16, 'latin1');
  b.write('XYZ ', 20, 'latin1');
  b.write('acsp', 36, 'latin1');
  return b;
}

function iccStream(profile: Buffer, n: number): Buffer {
  return streamBody(`/Length ${profile.length} /N ${n}`, profile);
}

describe('PDDocument', () => {
  it('a catalog without /Metadata fails 1b 6.7.2-1 and 2b 6.6.2.1-1 at the catalog; an /AA fails 6.6.2-3', async () => {
    const r = await report(doc('/AA << /WC << /S /GoTo /D [3 0 R /Fit] >> >>', ''), '1b');
    expect(rule(r, '6.7.2-1').status).toBe('failed');
    expect(rule(r, '6.7.2-1').failures[0]?.object).toBe('document (catalog)');
    expect(rule(r, '6.6.2-3').status).toBe('failed');
    expect(rule(await report(doc('', ''), '2b'), '6.6.2.1-1').status).toBe('failed');
  });

  it('with a metadata stream and no /AA the same rules pass', async () => {
    const r = await report(doc('/Metadata 4 0 R', '', streamBody('/Length 2 /Type /Metadata /Subtype /XML', Buffer.from('<x'))), '1b');
    expect(rule(r, '6.7.2-1').status).toBe('passed');
    expect(rule(r, '6.6.2-3').status).toBe('passed');
    expect(rule(r, '6.1.4-3').status).toBe('passed');
  });
  it('with DocMDP in /Perms, a signature reference with DigestMethod fails 2b 6.1.12-2; a /Perms key other than UR3/DocMDP fails 6.1.12-1', async () => {
    const sig = '<< /Type /Sig /Filter /Adobe.PPKLite /Reference [<< /Type /SigRef /TransformMethod /DocMDP /DigestMethod /MD5 >>] >>';
    const r = await report(doc('/Perms << /DocMDP 4 0 R /Other 4 0 R >>', '', sig), '2b');
    expect(rule(r, '6.1.12-2').status).toBe('failed');
    expect(rule(r, '6.1.12-2').failures[0]?.object).toBe('4 0 obj/Reference[0]');
    expect(rule(r, '6.1.12-1').status).toBe('failed');
    const clean = await report(doc('/Perms << /DocMDP 4 0 R >>', '', '<< /Type /Sig /Filter /Adobe.PPKLite /Reference [<< /Type /SigRef /TransformMethod /DocMDP >>] >>'), '2b');
    expect(rule(clean, '6.1.12-2').status).toBe('passed');
    expect(rule(clean, '6.1.12-1').status).toBe('passed');
  });
});

describe('annotations and actions', () => {
  it('an annotation without /F fails 1b 6.5.3-2; FileAttachment fails 1b 6.5.2-1 but is a PDF/A-2 type', async () => {
    const bodies = doc('', '/Annots [4 0 R]', '<< /Type /Annot /Subtype /FileAttachment /Rect [0 0 10 10] >>');
    const r1 = await report(bodies, '1b');
    expect(rule(r1, '6.5.3-2').status).toBe('failed');
    expect(rule(r1, '6.5.3-2').failures[0]?.object).toBe('4 0 obj');
    expect(rule(r1, '6.5.2-1').status).toBe('failed');
    const r2 = await report(bodies, '2b');
    expect(rule(r2, '6.3.1-1').status).toBe('passed');
    expect(rule(r2, '6.3.2-1').status).toBe('failed');
    // No appearance on a 10×10 rectangle: 6.3.3-1.
    expect(rule(r2, '6.3.3-1').status).toBe('failed');
  });

  it('an appearance dictionary with /N and /D fails 6.5.3-4; one with only an /N stream passes, and the flags are read', async () => {
    const ap = streamBody('/Length 0 /Subtype /Form /BBox [0 0 10 10]', Buffer.alloc(0));
    const bad = await report(doc('', '/Annots [4 0 R]', '<< /Type /Annot /Subtype /Square /F 4 /Rect [0 0 10 10] /AP << /N 5 0 R /D 5 0 R >> >>', ap), '1b');
    expect(rule(bad, '6.5.3-4').status).toBe('failed');
    const good = await report(doc('', '/Annots [4 0 R]', '<< /Type /Annot /Subtype /Square /F 4 /Rect [0 0 10 10] /AP << /N 5 0 R >> >>', ap), '1b');
    expect(rule(good, '6.5.3-4').status).toBe('passed');
    expect(rule(good, '6.5.3-2').status).toBe('passed');
    expect(rule(good, '6.5.3-6').status).toBe('passed');
    const hidden = await report(doc('', '/Annots [4 0 R]', '<< /Type /Annot /Subtype /Square /F 6 /Rect [0 0 10 10] /AP << /N 5 0 R >> >>', ap), '1b');
    expect(rule(hidden, '6.5.3-2').status).toBe('failed');
  });

  it('actions are found in OpenAction, link annotations, outlines and /Next chains (a cycle ends): JavaScript and Named /Print fail', async () => {
    const r = await report(
      doc(
        '/OpenAction 4 0 R /Outlines 6 0 R',
        '/Annots [5 0 R]',
        '<< /S /GoTo /D [3 0 R /Fit] /Next 8 0 R >>',
        '<< /Type /Annot /Subtype /Link /F 4 /Rect [0 0 0 0] /A << /S /URI /URI (http://example.org) >> >>',
        '<< /Type /Outlines /First 7 0 R /Last 7 0 R /Count 1 >>',
        '<< /Title (x) /Parent 6 0 R /A << /S /Named /N /Print >> >>',
        '<< /S /JavaScript /JS (app.alert(1)) /Next 4 0 R >>',
      ),
      '1b',
    );
    expect(rule(r, '6.6.1-1').status).toBe('failed');
    expect(rule(r, '6.6.1-1').failures.map((f) => f.object)).toEqual(['8 0 obj']);
    expect(rule(r, '6.6.1-2').status).toBe('failed');
    expect(rule(r, '6.6.1-2').failures[0]?.object).toBe('7 0 obj/A');
  });

  it('a widget inherits its field type: a Btn widget whose /N is a stream fails 2b 6.3.3-3; a widget with /A fails 6.4.1-1', async () => {
    const ap = streamBody('/Length 0 /Subtype /Form /BBox [0 0 10 10]', Buffer.alloc(0));
    const r = await report(
      doc(
        '/AcroForm << /Fields [4 0 R] >>',
        '/Annots [5 0 R]',
        '<< /FT /Btn /T (b) /Kids [5 0 R] >>',
        '<< /Type /Annot /Subtype /Widget /Parent 4 0 R /F 4 /Rect [0 0 10 10] /AP << /N 6 0 R >> /A << /S /ResetForm >> >>',
        ap,
      ),
      '2b',
    );
    expect(rule(r, '6.3.3-3').status).toBe('failed');
    expect(rule(r, '6.4.1-1').status).toBe('failed');
    expect(rule(r, '6.5.1-1').status).toBe('failed');
    expect(rule(r, '6.4.1-3').status).toBe('passed');
  });
});

describe('output intents and gOutputCS', () => {
  const intent = (profileRef: string): string => `<< /Type /OutputIntent /S /GTS_PDFA1 /OutputConditionIdentifier (sRGB) /DestOutputProfile ${profileRef} >>`;

  it('an ICC v2 RGB monitor profile passes 1b 6.2.2-1; a v4 profile fails 1b and passes 2b 6.2.3-1', async () => {
    const v2 = await report(doc('/OutputIntents [4 0 R]', '', intent('5 0 R'), iccStream(icc('mntr', 'RGB ', 2, 1), 3)), '1b');
    expect(rule(v2, '6.2.2-1').status).toBe('passed');
    expect(rule(v2, '6.2.3.2-2').status).toBe('passed');
    const v4 = [...doc('/OutputIntents [4 0 R]', '', intent('5 0 R'), iccStream(icc('mntr', 'RGB ', 4, 3), 3))];
    expect(rule(await report(v4, '1b'), '6.2.2-1').status).toBe('failed');
    expect(rule(await report(v4, '2b'), '6.2.3-1').status).toBe('passed');
  });

  it('two intents with different profile objects fail 6.2.2-2; /N 4 on an RGB profile fails 1b 6.2.3.2-2', async () => {
    const r = await report(doc('/OutputIntents [4 0 R 5 0 R]', '', intent('6 0 R'), intent('7 0 R'), iccStream(icc('mntr', 'RGB ', 2, 1), 4), iccStream(icc('mntr', 'RGB ', 2, 1), 3)), '1b');
    expect(rule(r, '6.2.2-2').status).toBe('failed');
    expect(rule(r, '6.2.3.2-2').status).toBe('failed');
    expect(rule(r, '6.2.3.2-2').failures[0]?.object).toBe('6 0 obj');
  });

  it('annotation colours (/C) need an RGB output intent (1b 6.5.3-3, read through gOutputCS)', async () => {
    const annot = '<< /Type /Annot /Subtype /Square /F 4 /C [1 0 0] /Rect [0 0 0 0] >>';
    expect(rule(await report(doc('', '/Annots [4 0 R]', annot), '1b'), '6.5.3-3').status).toBe('failed');
    const rgb = await report(doc('/OutputIntents [5 0 R]', '/Annots [4 0 R]', annot, intent('6 0 R'), iccStream(icc('mntr', 'RGB ', 2, 1), 3)), '1b');
    expect(rule(rgb, '6.5.3-3').status).toBe('passed');
  });

  it('a profile that cannot be decoded leaves its rules and gOutputCS unknown: not-checked, never passed', async () => {
    const r = await report(
      doc(
        '/OutputIntents [5 0 R]',
        '/Annots [4 0 R]',
        '<< /Type /Annot /Subtype /Square /F 4 /C [1 0 0] /Rect [0 0 0 0] >>',
        intent('6 0 R'),
        streamBody('/Length 4 /N 3 /Filter /DCTDecode', Buffer.from('\xff\xd8\xff\xd9', 'latin1')),
      ),
      '1b',
      3,
    );
    expect(rule(r, '6.2.2-1').status).toBe('not-checked');
    expect(rule(r, '6.5.3-3').status).toBe('not-checked');
    expect(r.verdict).not.toBe('compliant');
  });
});

describe('what the content uses', () => {
  const form = (extra: string): Buffer => streamBody(`/Length 0 /Type /XObject /Subtype /Form /BBox [0 0 10 10] ${extra}`, Buffer.alloc(0));

  it('a form XObject with /PS fails 1b 6.2.5-1 when drawn, and is not looked at when only listed in the resources', async () => {
    const used = await report(doc('', '/Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R', content('/X Do'), form('/PS 6 0 R'), streamBody('/Length 0', Buffer.alloc(0))), '1b');
    expect(rule(used, '6.2.5-1').status).toBe('failed');
    expect(rule(used, '6.2.5-1').failures[0]?.object).toBe('5 0 obj');
    const unused = await report(doc('', '/Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R', content('0 0 m'), form('/PS 6 0 R'), streamBody('/Length 0', Buffer.alloc(0))), '1b');
    expect(rule(unused, '6.2.5-1').status).toBe('passed');
  });

  it('an image drawn inside a form with Interpolate true fails 1b 6.2.4-3; an inline image with /I true too', async () => {
    const image = streamBody('/Length 3 /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Interpolate true', Buffer.from([0, 0, 0]));
    const r = await report(
      doc(
        '',
        '/Resources << /XObject << /F 5 0 R >> >> /Contents 4 0 R',
        content('/F Do'),
        streamBody('/Length 5 /Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /I 6 0 R >> >>', Buffer.from('/I Do')),
        image,
      ),
      '1b',
    );
    expect(rule(r, '6.2.4-3').status).toBe('failed');
    expect(rule(r, '6.2.4-3').failures[0]?.object).toBe('6 0 obj');
    const inline = await report(doc('', '/Contents 4 0 R', content('BI /W 1 /H 1 /CS /G /BPC 8 /I true ID \x00 EI')), '1b');
    expect(rule(inline, '6.2.4-3').status).toBe('failed');
    expect(rule(inline, '6.2.4-3').failures[0]?.object).toMatch(/inline image/);
  });

  it('a graphics state used with a constant alpha of 0.5 fails 1b 6.4-5; a page transparency group fails 6.4-3', async () => {
    const r = await report(doc('', '/Group << /S /Transparency /CS /DeviceRGB >> /Resources << /ExtGState << /G0 << /CA 0.5 >> >> >> /Contents 4 0 R', content('/G0 gs')), '1b');
    expect(rule(r, '6.4-5').status).toBe('failed');
    expect(rule(r, '6.4-3').status).toBe('failed');
    expect(rule(r, '6.4-6').status).toBe('passed');
  });

  it('2b: a page with transparency, no output intent and no group colour space fails 6.2.10-2; with /CS it passes', async () => {
    const withoutCS = await report(doc('', '/Resources << /ExtGState << /G0 << /ca 0.5 >> >> >> /Contents 4 0 R', content('/G0 gs')), '2b');
    expect(rule(withoutCS, '6.2.10-2').status).toBe('failed');
    const withCS = await report(doc('', '/Group << /S /Transparency /CS /DeviceRGB >> /Resources << /ExtGState << /G0 << /ca 0.5 >> >> >> /Contents 4 0 R', content('/G0 gs')), '2b');
    expect(rule(withCS, '6.2.10-2').status).toBe('passed');
  });
});

describe('content-stream operators and resources', () => {
  it('q nested 29 deep fails 1b 6.1.12-8 at the 29th q (28 passes); a page /Contents array is one stream for the nesting', async () => {
    const deep = await report(doc('', '/Contents [4 0 R 5 0 R]', content('q '.repeat(20)), content('q '.repeat(9) + 'Q '.repeat(29))), '1b');
    expect(rule(deep, '6.1.12-8').status).toBe('failed');
    expect(rule(deep, '6.1.12-8').failedCount).toBe(1);
    const ok = await report(doc('', '/Contents 4 0 R', content(`${'q '.repeat(28)}${'Q '.repeat(28)}`)), '1b');
    expect(rule(ok, '6.1.12-8').status).toBe('passed');
  });

  it('an operator ISO 32000-1 does not define fails 2b 6.2.2-1, even between BX and EX', async () => {
    const r = await report(doc('', '/Contents 4 0 R', content('BX 1 2 foo EX 0 0 m')), '2b');
    expect(rule(r, '6.2.2-1').status).toBe('failed');
    expect(rule(r, '6.2.2-1').failures[0]?.object).toMatch(/operator foo/);
    expect(rule(await report(doc('', '/Contents 4 0 R', content('BX 0 0 m EX')), '2b'), '6.2.2-1').status).toBe('passed');
  });

  it("a form without /Resources that uses its page's graphics state fails 2b 6.2.2-2; with its own it passes", async () => {
    const page = '/Resources << /ExtGState << /G0 << /LW 1 >> >> /XObject << /X 5 0 R >> >> /Contents 4 0 R';
    const borrowed = await report(doc('', page, content('/X Do'), streamBody('/Length 6 /Type /XObject /Subtype /Form /BBox [0 0 1 1]', Buffer.from('/G0 gs'))), '2b');
    expect(rule(borrowed, '6.2.2-2').status).toBe('failed');
    expect(rule(borrowed, '6.2.2-2').failures[0]?.message).toContain('G0');
    const own = await report(
      doc('', page, content('/X Do'), streamBody('/Length 6 /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources << /ExtGState << /G0 << /LW 1 >> >> >>', Buffer.from('/G0 gs'))),
      '2b',
    );
    expect(rule(own, '6.2.2-2').status).toBe('passed');
  });
});

describe('colour spaces as the content paints with them', () => {
  const rgbIntent = ['<< /Type /OutputIntent /S /GTS_PDFA1 /OutputConditionIdentifier (sRGB) /DestOutputProfile 6 0 R >>', iccStream(icc('mntr', 'RGB ', 2, 1), 3)];
  const fn = '<< /FunctionType 2 /Domain [0 1] /C0 [0 0 0 0] /C1 [0 0 0 1] /N 1 >>';

  it('DeviceRGB painted without an output intent fails 1b 6.2.3.3-1; with an RGB intent, or only set and never painted, it passes', async () => {
    const painted = await report(doc('', '/Contents 4 0 R', content('1 0 0 rg 0 0 10 10 re f')), '1b');
    expect(rule(painted, '6.2.3.3-1').status).toBe('failed');
    expect(rule(painted, '6.2.3.3-1').failures[0]?.object).toMatch(/^4 0 obj \(content\)\[\d+\] \(DeviceRGB\)$/);
    const withIntent = await report(doc('/OutputIntents [5 0 R]', '/Contents 4 0 R', content('1 0 0 rg 0 0 10 10 re f'), ...rgbIntent), '1b');
    expect(rule(withIntent, '6.2.3.3-1').status).toBe('passed');
    const setOnly = await report(doc('', '/Contents 4 0 R', content('1 0 0 rg 0 0 10 10 re n')), '1b');
    expect(rule(setOnly, '6.2.3.3-1').status).toBe('passed');
  });

  it('text stroked in rendering mode 1 still counts its fill colour space; text filled in mode 0 counts a stroke colour space only once one was set', async () => {
    const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
    const page = '/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R';
    const mode1 = await report(doc('', page, content('BT 1 Tr 0 0.7 1 rg /F1 12 Tf (A) Tj ET'), font), '1b');
    expect(rule(mode1, '6.2.3.3-1').status).toBe('failed');
    // The corpus' 1b 6-2-3-3-t01-fail-u: DeviceRGB set by RG, text in mode 0.
    const mode0 = await report(doc('', page, content('BT 0 Tr 0 0.7 1 RG /F1 12 Tf (A) Tj ET'), font), '1b');
    expect(rule(mode0, '6.2.3.3-1').status).toBe('failed');
    const initial = await report(doc('', page, content('BT 0 Tr /F1 12 Tf (A) Tj ET'), font), '1b');
    expect(rule(initial, '6.2.3.3-1').status).toBe('passed');
  });

  it('a DefaultRGB colour space in the resources replaces DeviceRGB (ISO 32000-1 8.6.5.6)', async () => {
    const r = await report(doc('', '/Resources << /ColorSpace << /DefaultRGB [/CalRGB << /WhitePoint [0.9505 1 1.089] >>] >> >> /Contents 4 0 R', content('1 0 0 rg 0 0 10 10 re f')), '1b');
    expect(rule(r, '6.2.3.3-1').status).toBe('passed');
  });

  it('a form paints with the colour its invoker set: DeviceRGB from the page fails inside the form', async () => {
    const r = await report(
      doc(
        '',
        '/Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R',
        content('1 0 0 rg /X Do'),
        streamBody('/Length 15 /Type /XObject /Subtype /Form /BBox [0 0 10 10]', Buffer.from('0 0 10 10 re f')),
      ),
      '1b',
    );
    expect(rule(r, '6.2.3.3-1').status).toBe('failed');
    expect(rule(r, '6.2.3.3-1').failures[0]?.object).toMatch(/^5 0 obj \(content\)/);
  });

  it('the alternate space of a Separation is used too: DeviceCMYK under an RGB intent fails 2b 6.2.4.3-3', async () => {
    const r = await report(
      doc('/OutputIntents [5 0 R]', `/Resources << /ColorSpace << /S0 [/Separation /Spot /DeviceCMYK ${fn}] >> >> /Contents 4 0 R`, content('/S0 cs 1 scn 0 0 10 10 re f'), ...rgbIntent),
      '2b',
    );
    expect(rule(r, '6.2.4.3-3').status).toBe('failed');
    expect(rule(r, '6.2.4.3-3').failures[0]?.object).toMatch(/Separation alternate/);
  });

  it('a DeviceN spot colourant without a /Colorants entry fails 2b 6.2.4.4-1; process colourants need none', async () => {
    const cs = (names: string) => `/Resources << /ColorSpace << /N0 [/DeviceN [${names}] /DeviceGray ${fn}] >> >> /Contents 4 0 R`;
    expect(rule(await report(doc('', cs('/Spot1 /Cyan'), content('/N0 cs 1 1 scn 0 0 10 10 re f')), '2b'), '6.2.4.4-1').status).toBe('failed');
    expect(rule(await report(doc('', cs('/Cyan /Black'), content('/N0 cs 1 1 scn 0 0 10 10 re f')), '2b'), '6.2.4.4-1').status).toBe('passed');
  });

  it('Separations of one name must have the same alternate and tint transform, compared by content (2b 6.2.4.4-2)', async () => {
    const page = '/Resources << /ColorSpace << /A [/Separation /Red /DeviceGray 5 0 R] /B [/Separation /Red /DeviceGray 6 0 R] >> >> /Contents 4 0 R';
    const paint = content('/A cs 1 scn 0 0 1 1 re f /B cs 1 scn 0 0 1 1 re f');
    const gray = (c1: string) => `<< /FunctionType 2 /Domain [0 1] /C0 [1] /C1 [${c1}] /N 1 >>`;
    expect(rule(await report(doc('', page, paint, gray('0'), gray('0')), '2b'), '6.2.4.4-2').status).toBe('passed');
    expect(rule(await report(doc('', page, paint, gray('0'), gray('0.5')), '2b'), '6.2.4.4-2').status).toBe('failed');
  });

  it('an ICCBased CMYK fill with overprint on and OPM 1 fails 2b 6.2.4.2-2; OPM 0 passes', async () => {
    const page = (opm: number) => `/Resources << /ColorSpace << /C0 [/ICCBased 5 0 R] >> /ExtGState << /G0 << /op true /OPM ${opm} >> >> >> /Contents 4 0 R`;
    const cmyk = iccStream(icc('prtr', 'CMYK', 2, 1), 4);
    const paint = content('/G0 gs /C0 cs 0 0 0 1 scn 0 0 10 10 re f');
    expect(rule(await report(doc('', page(1), paint, cmyk), '2b'), '6.2.4.2-2').status).toBe('failed');
    expect(rule(await report(doc('', page(0), paint, cmyk), '2b'), '6.2.4.2-2').status).toBe('passed');
  });
});

describe('fonts', () => {
  const text = (font: string, mode = 0) => content(`BT /${font} 12 Tf ${mode} Tr 10 10 Td (A) Tj ET`);

  it('a font shown without an embedded program fails 2b 6.2.11.4.1-1; shown only invisibly (Tr 3) it passes', async () => {
    const page = '/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R';
    const font = '<< /Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 65 /LastChar 65 /Widths [500] /FontDescriptor 6 0 R >>';
    const descriptor = '<< /Type /FontDescriptor /FontName /Arial /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 900 /Descent -100 /CapHeight 700 /StemV 80 >>';
    const shown = await report(doc('', page, text('F1'), font, descriptor), '2b');
    expect(rule(shown, '6.2.11.4.1-1').status).toBe('failed');
    expect(rule(shown, '6.2.11.4.1-1').failures[0]?.object).toBe('5 0 obj');
    const invisible = await report(doc('', page, text('F1', 3), font, descriptor), '2b');
    expect(rule(invisible, '6.2.11.4.1-1').status).toBe('passed');
  });

  it('Widths of the wrong length fail 2b 6.2.11.2-6; a symbolic TrueType font with an /Encoding fails 6.2.11.6-3', async () => {
    const page = '/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R';
    const descriptor = '<< /Type /FontDescriptor /FontName /X /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 900 /Descent -100 /CapHeight 700 /StemV 80 >>';
    const r = await report(
      doc('', page, text('F1'), '<< /Type /Font /Subtype /TrueType /BaseFont /X /FirstChar 65 /LastChar 66 /Widths [500] /Encoding /WinAnsiEncoding /FontDescriptor 6 0 R >>', descriptor),
      '2b',
    );
    expect(rule(r, '6.2.11.2-6').status).toBe('failed');
    expect(rule(r, '6.2.11.6-3').status).toBe('failed');
    expect(rule(r, '6.2.11.2-1').status).toBe('passed');
  });

  it('a Type 0 font whose embedded CMap says WMode 1 and whose dictionary says 0 fails 2b 6.2.11.3.3-2; a CID beyond 65535 fails 6.1.13-10', async () => {
    const cmap = Buffer.from('/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Test def /WMode 1 def 1 begincidrange <0000> <00ff> 70000 endcidrange endcmap end end');
    const page = '/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R';
    const r = await report(
      doc(
        '',
        page,
        text('F1'),
        '<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding 6 0 R /DescendantFonts [7 0 R] >>',
        streamBody(`/Length ${cmap.length} /Type /CMap /CMapName /Test /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >>`, cmap),
        '<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /W [] >>',
      ),
      '2b',
    );
    expect(rule(r, '6.2.11.3.3-2').status).toBe('failed');
    expect(rule(r, '6.1.13-10').status).toBe('failed');
    expect(rule(r, '6.2.11.3.1-1').status).toBe('passed');
    expect(rule(r, '6.2.11.3.3-1').status).toBe('passed');
  });
});

describe('JPEG2000 images', () => {
  const box = (type: string, body: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + body.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, body]);
  };
  /** A JP2 file (ISO/IEC 15444-1 I.5): signature, ftyp, jp2h with ihdr and a colr box, an empty codestream box. */
  const jp2 = (channels: number, enumCS: number): Buffer => {
    const ihdr = Buffer.alloc(14);
    ihdr.writeUInt32BE(1, 0);
    ihdr.writeUInt32BE(1, 4);
    ihdr.writeUInt16BE(channels, 8);
    ihdr[10] = 7; // 8 bits
    ihdr[11] = 7;
    const colr = Buffer.alloc(7);
    colr[0] = 1;
    colr.writeUInt32BE(enumCS, 3);
    return Buffer.concat([
      box('jP  ', Buffer.from([0x0d, 0x0a, 0x87, 0x0a])),
      box('ftyp', Buffer.from('jp2 \0\0\0\0jp2 ', 'latin1')),
      box('jp2h', Buffer.concat([box('ihdr', ihdr), box('colr', colr)])),
      box('jp2c', Buffer.alloc(0)),
    ]);
  };
  const image = (data: Buffer) => streamBody(`/Length ${data.length} /Type /XObject /Subtype /Image /Width 1 /Height 1 /Filter /JPXDecode`, data);
  const page = '/Resources << /XObject << /I 5 0 R >> >> /Contents 4 0 R';

  it('an sRGB (enumerated 16) three-channel JP2 passes 2b 6.2.8.3-1…5; CIEJab (19) fails 6.2.8.3-4; two channels fail 6.2.8.3-1', async () => {
    const good = await report(doc('', page, content('/I Do'), image(jp2(3, 16))), '2b');
    for (const id of ['6.2.8.3-1', '6.2.8.3-2', '6.2.8.3-3', '6.2.8.3-4', '6.2.8.3-5']) expect(rule(good, id).status, id).toBe('passed');
    expect(rule(await report(doc('', page, content('/I Do'), image(jp2(3, 19))), '2b'), '6.2.8.3-4').status).toBe('failed');
    expect(rule(await report(doc('', page, content('/I Do'), image(jp2(2, 16))), '2b'), '6.2.8.3-1').status).toBe('failed');
  });
});

describe('embedded files', () => {
  const spec = '<< /Type /Filespec /F (a) /UF (a) /AFRelationship /Data /EF << /F 5 0 R >> >>';
  it('an embedded file without a MIME /Subtype fails 3b 6.8-1; a text file is no PDF/A (2b 6.8-5 fails); an embedded PDF is not judged (not-checked)', async () => {
    const names = '/Names << /EmbeddedFiles << /Names [(a) 4 0 R] >> >> /AF [4 0 R]';
    const text = streamBody('/Length 5 /Type /EmbeddedFile', Buffer.from('hello'));
    const r3 = await report(doc(names, '', spec, text), '3b');
    expect(rule(r3, '6.8-1').status).toBe('failed');
    expect(rule(r3, '6.8-1').failures[0]?.object).toBe('5 0 obj');
    const r2 = await report(doc(names, '', spec, streamBody('/Length 5 /Type /EmbeddedFile /Subtype /text#2Fplain', Buffer.from('hello'))), '2b');
    expect(rule(r2, '6.8-5').status).toBe('failed');
    const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');
    const r2pdf = await report(doc(names, '', spec, streamBody(`/Length ${pdf.length} /Type /EmbeddedFile /Subtype /application#2Fpdf`, pdf)), '2b');
    expect(rule(r2pdf, '6.8-5').status).toBe('not-checked');
    expect(rule(await report(doc(names, '', spec, streamBody(`/Length ${pdf.length} /Type /EmbeddedFile /Subtype /application#2Fpdf`, pdf)), '3b'), '6.8-1').status).toBe('passed');
  });
});

describe('logical structure', () => {
  it('a non-standard type without a role mapping fails 2a 6.7.3.4-1; a circular mapping fails 6.7.3.4-2; a remapped standard type fails 6.7.3.4-3', async () => {
    const tree = (roleMap: string, types: string[]) =>
      doc(
        `/MarkInfo << /Marked true >> /StructTreeRoot 4 0 R`,
        '',
        `<< /Type /StructTreeRoot /RoleMap << ${roleMap} >> /K 5 0 R >>`,
        `<< /Type /StructElem /S /Document /P 4 0 R /K [${types.map((_, i) => `${6 + i} 0 R`).join(' ')}] >>`,
        ...types.map((t) => `<< /Type /StructElem /S /${t} /P 5 0 R >>`),
      );
    const unmapped = await report(tree('', ['Custom']), '2a');
    expect(rule(unmapped, '6.7.3.4-1').status).toBe('failed');
    expect(rule(unmapped, '6.7.3.4-1').failures[0]?.object).toBe('6 0 obj');
    const mapped = await report(tree('/Custom /P', ['Custom']), '2a');
    expect(rule(mapped, '6.7.3.4-1').status).toBe('passed');
    const circular = await report(tree('/A /B /B /A', ['A']), '2a');
    expect(rule(circular, '6.7.3.4-2').status).toBe('failed');
    const remapped = await report(tree('/P /Custom', ['P']), '2a');
    expect(rule(remapped, '6.7.3.4-3').status).toBe('failed');
  });

  it('a standard type mapped to itself or to another standard type is not remapped to a non-standard one (LibreOffice writes /Document /Document)', async () => {
    const tree = (roleMap: string) =>
      doc(
        `/MarkInfo << /Marked true >> /StructTreeRoot 4 0 R`,
        '',
        `<< /Type /StructTreeRoot /RoleMap << ${roleMap} >> /K 5 0 R >>`,
        `<< /Type /StructElem /S /Document /P 4 0 R /K [6 0 R] >>`,
        `<< /Type /StructElem /S /Span /P 5 0 R >>`,
      );
    const identity = await report(tree('/Document /Document /Span /Span /Standard /P'), '2a');
    expect(rule(identity, '6.7.3.4-3').status).not.toBe('failed');
    const toStandard = await report(tree('/Span /P'), '2a');
    expect(rule(toStandard, '6.7.3.4-3').status).not.toBe('failed');
  });
});

describe('hostile structures', () => {
  it('a page tree that contains itself and a form that draws itself end; the form is checked once', async () => {
    const r = await report(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R >>',
        content('/X Do'),
        streamBody('/Length 5 /Type /XObject /Subtype /Form /BBox [0 0 1 1] /OPI << >>', Buffer.from('/X Do')),
      ],
      '1b',
      2,
    );
    expect(rule(r, '6.2.4-2').status).toBe('failed');
    expect(rule(r, '6.2.4-2').failedCount).toBe(1);
  });

  it('a content stream that cannot be decoded makes the document incomplete: never compliant', async () => {
    const r = await report(doc('', '/Contents 4 0 R', streamBody('/Length 4 /Filter /FlateDecode', Buffer.from('nope'))), '1b', 2);
    expect(r.complete).toBe(false);
    expect(r.problems.join('\n')).toMatch(/could not be decoded/);
    expect(r.verdict).not.toBe('compliant');
    expect(r.rules.filter((x) => x.status === 'passed')).toEqual([]);
  });
  it('a chain of 60 forms, each drawing the next in six colour states, is read a bounded number of times: incomplete, never compliant', async () => {
    const bodies: Array<string | Buffer> = doc('', '/Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R', streamBody('/Length 5', Buffer.from('/X Do')));
    for (let i = 0; i < 60; i++) {
      const ops = i < 59 ? '0 g /X Do 1 0 0 rg /X Do 0 0 0 1 k /X Do 0 G /X Do 1 0 0 RG /X Do q 2 Tr /X Do Q' : '0 0 1 1 re f';
      const res = i < 59 ? `/Resources << /XObject << /X ${6 + i} 0 R >> >>` : '';
      bodies.push(streamBody(`/Length ${ops.length} /Type /XObject /Subtype /Form /BBox [0 0 1 1] ${res}`, Buffer.from(ops)));
    }
    const r = await report(bodies, '2b');
    expect(r.complete).toBe(false);
    expect(r.problems.join('\n')).toMatch(/drawn with more than 8 colour states/);
    expect(r.verdict).not.toBe('compliant');
    // The last form fills with DeviceCMYK (inherited) and there is no output intent.
    expect(rule(r, '6.2.4.3-3').status).toBe('failed');
  });
  it('one content stream shared by 2,000 pages is read once: the document stays within the parse budget', async () => {
    const data = deflateSync(Buffer.from('0 0 1 1 re f\n'.repeat(6000)));
    const n = 2000;
    const bodies: Array<string | Buffer> = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${Array.from({ length: n }, (_, i) => `${4 + i} 0 R`).join(' ')}] /Count ${n} >>`,
      streamBody(`/Length ${data.length} /Filter /FlateDecode`, data),
    ];
    for (let i = 0; i < n; i++) bodies.push('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] /Contents 3 0 R >>');
    // 2,000 reads of 30,000 tokens would pass the 50M-token budget of the COS limits (cos/limits.ts) and leave the file unread.
    const r = await report(bodies, '1b');
    expect(r.problems.filter((p) => /limits reached/.test(p))).toEqual([]);
    expect(r.complete).toBe(true);
    expect(rule(r, '6.2.3.3-3').status).toBe('failed');
    expect(rule(r, '6.2.3.3-3').failedCount).toBe(1);
    // qpdf --check of these 2,000 pages takes ~26 s of CPU (the validator ~2.5 s): room for a loaded machine.
  }, 300_000);
});
