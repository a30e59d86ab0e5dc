import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { pageText } from '../../helpers/converter.js';
import { info, uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-forms-'));

/** A two-page form: text fields (one limited to 5 characters), a check box, radio buttons, a dropdown and a multi-select list. */
async function formPdf(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const page = document.addPage([595, 842]);
  page.drawText('FORM-PAGE', { x: 50, y: 780, size: 18, font });
  document.addPage([595, 842]);
  const form = document.getForm();
  form.createTextField('person.name').addToPage(page, { x: 50, y: 700, width: 200, height: 24 });
  const zip = form.createTextField('person.zip');
  zip.setMaxLength(5);
  zip.addToPage(page, { x: 300, y: 700, width: 100, height: 24 });
  form.createCheckBox('agree').addToPage(page, { x: 50, y: 650, width: 20, height: 20 });
  const color = form.createRadioGroup('color');
  color.addOptionToPage('red', page, { x: 50, y: 600, width: 20, height: 20 });
  color.addOptionToPage('blue', page, { x: 100, y: 600, width: 20, height: 20 });
  const country = form.createDropdown('country');
  country.addOptions(['Germany', 'France', 'Spain']);
  country.addToPage(page, { x: 50, y: 550, width: 150, height: 24 });
  const langs = form.createOptionList('langs');
  langs.addOptions(['de', 'en', 'fr']);
  langs.enableMultiselect();
  langs.addToPage(page, { x: 50, y: 450, width: 150, height: 80 });
  form.createButton('send').addToPage('Send', page, { x: 300, y: 450, width: 80, height: 24 });
  return Buffer.from(await document.save());
}

interface QField {
  fullname: string;
  value: unknown;
  fieldtype: string;
}

function acroform(file: string): { hasacroform: boolean; fields: QField[]; needappearances: boolean } {
  return JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=acroform', file], { encoding: 'utf8' })).acroform;
}

/** Field values as qpdf reports them (text strings "u:…", names "/…"). */
function values(file: string): Record<string, unknown> {
  return Object.fromEntries(acroform(file).fields.map((f) => [f.fullname, f.value]));
}

function widgets(file: string): number {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 << 20 }));
  return Object.values(json.qpdf[1] as Record<string, { value?: Record<string, unknown> }>).filter((o) => o.value?.['/Subtype'] === '/Widget').length;
}

/** Dark pixels of page 1 rendered without annotations (what the page content itself shows). */
async function pageInk(file: string, box: [number, number, number, number]): Promise<number> {
  const prefix = path.join(scratch, `render-${Math.random().toString(36).slice(2)}`);
  execFileSync('pdftoppm', ['-r', '72', '-f', '1', '-l', '1', '-singlefile', '-png', '-hide-annotations', file, prefix]);
  const { data, info: meta } = await sharp(`${prefix}.png`).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let count = 0;
  for (let y = box[1]; y < box[3]; y++) for (let x = box[0]; x < box[2]; x++) if (data[(y * meta.width + x) * 3]! < 128) count++;
  return count;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const XFDF = `<?xml version="1.0" encoding="UTF-8"?>
<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve"><fields>
<field name="person"><field name="name"><value>Alice &amp; Bob</value></field><field name="zip"><value>12345</value></field></field>
<field name="agree"><value>Yes</value></field>
<field name="color"><value>blue</value></field>
<field name="country"><value>France</value></field>
<field name="langs"><value>de</value><value>fr</value></field>
</fields></xfdf>`;

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<fields xmlns:xfdf="http://ns.adobe.com/xfdf-transition/"><person><name>Alice &amp; Bob</name><zip>12345</zip></person><agree>Yes</agree><color>blue</color><country>France</country><langs>de</langs><langs>fr</langs></fields>`;

const XDP = `<?xml version="1.0" encoding="UTF-8"?>
<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"><xfa:datasets xmlns:xfa="http://www.xfa.org/schema/xfa-data/1.0/"><xfa:data>
<person><name>Alice &amp; Bob</name><zip>12345</zip></person><agree>Yes</agree><color>blue</color><country>France</country><langs>de</langs><langs>fr</langs>
</xfa:data></xfa:datasets></xdp:xdp>`;

const FDF = `%FDF-1.2
1 0 obj
<< /FDF << /Fields [
<< /T (person) /Kids [ << /T (name) /V (Alice & Bob) >> << /T (zip) /V (12345) >> ] >>
<< /T (agree) /V /Yes >>
<< /T (color) /V /blue >>
<< /T (country) /V (France) >>
<< /T (langs) /V [(de) (fr)] >>
] >> >>
endobj
trailer
<< /Root 1 0 R >>
%%EOF
`;

const FILLED = {
  'person.name': 'u:Alice & Bob',
  'person.zip': 'u:12345',
  agree: '/Yes',
  color: '/1', // pdf-lib names the states 0, 1 and keeps red, blue in /Opt
  country: 'u:France',
  langs: ['u:de', 'u:fr'],
};

describe('toolbox forms', () => {
  const { server, session, download, toolboxOk: ok, runToolbox: fails } = useTestServer();
  let form: Buffer;

  beforeAll(async () => {
    form = await formPdf();
  });

  const upload = async (content: Buffer, name = 'form.pdf') => uploadFile(server.rest, session.token, content, name);

  it.each([
    ['xfdf', XFDF],
    ['xml', XML],
    ['xdp', XDP],
    ['fdf', FDF],
  ])('imports %s data into every kind of field, with new appearances', async (format, data) => {
    const doc = await upload(form);
    await ok(doc.documentId, [{ forms: { import: { data: { source: 'value', value: b64(data) }, format, flatten: false } } }]);
    const file = await download(doc.documentId);
    execFileSync('qpdf', ['--check', file]);
    expect(values(file)).toMatchObject(FILLED);
    expect(acroform(file).hasacroform).toBe(true);
    // poppler draws the widgets' new appearances
    expect(pageText(file, 1)).toContain('Alice & Bob');
    expect(pageText(file, 1)).toContain('France');
  });

  it('exports the data in each format (the document becomes the data file), and it imports again', async () => {
    const filled = await upload(form);
    await ok(filled.documentId, [{ forms: { import: { data: { value: b64(XFDF) }, format: 'xfdf' } } }]);
    const filledPdf = readFileSync(await download(filled.documentId));

    const exported: Record<string, string> = {};
    for (const format of ['xfdf', 'xml', 'xdp', 'fdf']) {
      const doc = await upload(filledPdf);
      const result = await ok(doc.documentId, [{ forms: { export: { format, fdfFileName: 'form.pdf' } } }]);
      expect(result).toMatchObject(format === 'fdf' ? { mimeType: 'application/vnd.fdf', fileExtension: 'fdf' } : { mimeType: 'application/xml', fileExtension: 'xml' });
      exported[format] = readFileSync(await download(doc.documentId, 'data')).toString('utf8');
    }
    expect(exported.xfdf).toContain('<f href="form.pdf"/>');
    expect(exported.xfdf).toContain('<field name="person"><field name="name"><value>Alice &amp; Bob</value></field>');
    expect(exported.xfdf).toContain('<field name="langs"><value>de</value><value>fr</value></field>');
    expect(exported.xml).toContain('<person><name>Alice &amp; Bob</name><zip>12345</zip></person>');
    expect(exported.xdp).toContain('<xfa:data');
    expect(exported.xdp).toContain('href="form.pdf"');

    // qpdf reads FDF (it warns about the missing PDF header): an independent parse of the export
    const fdfFile = path.join(scratch, 'export.fdf');
    writeFileSync(fdfFile, exported.fdf!);
    const parsed = spawnSync('qpdf', ['--json=2', '--json-key=qpdf', fdfFile], { encoding: 'utf8' });
    const root = JSON.parse(parsed.stdout).qpdf[1]['obj:1 0 R'].value['/FDF'];
    expect(root['/F']).toBe('u:form.pdf');
    const person = root['/Fields'].find((f: Record<string, unknown>) => f['/T'] === 'u:person');
    expect(person['/Kids']).toContainEqual({ '/T': 'u:name', '/V': 'u:Alice & Bob' });
    expect(root['/Fields']).toContainEqual({ '/T': 'u:agree', '/V': '/Yes' });

    for (const format of ['xfdf', 'xml', 'xdp', 'fdf']) {
      const doc = await upload(form);
      await ok(doc.documentId, [{ forms: { import: { data: { value: Buffer.from(exported[format]!).toString('base64') }, format } } }]);
      expect(values(await download(doc.documentId)), format).toMatchObject(FILLED);
    }
  });

  it('flattens: the values become page content and no form remains', async () => {
    const doc = await upload(form);
    await ok(doc.documentId, [{ forms: { import: { data: { value: b64(XFDF) }, format: 'xfdf' } } }]);
    let file = await download(doc.documentId);
    const nameBox: [number, number, number, number] = [50, 118, 250, 142]; // the name field: y 700..724 from the bottom
    expect(await pageInk(file, nameBox)).toBe(0); // drawn by the widget only
    await ok(doc.documentId, [{ forms: { flatten: {} } }]);
    file = await download(doc.documentId);
    execFileSync('qpdf', ['--check', file]);
    expect(acroform(file)).toMatchObject({ hasacroform: false, fields: [] });
    expect(widgets(file)).toBe(0);
    expect(await pageInk(file, nameBox)).toBeGreaterThan(50);
    const text = pageText(file, 1);
    expect(text).toContain('Alice & Bob');
    expect(text).toContain('FORM-PAGE');
    expect(text).toContain('Send');
  });

  it('imports and flattens in one step', async () => {
    const doc = await upload(form);
    await ok(doc.documentId, [{ forms: { import: { data: { value: b64(XML) }, format: 'xml', flatten: true } } }]);
    const file = await download(doc.documentId);
    expect(acroform(file).fields).toEqual([]);
    expect(pageText(file, 1)).toContain('12345');
  });

  it('leaves a value the standard fonts cannot draw to the viewer, and refuses to flatten it away (-104)', async () => {
    const doc = await upload(form);
    const xfdf = '<xfdf xmlns="http://ns.adobe.com/xfdf/"><fields><field name="person.name"><value>Ωmega</value></field></fields></xfdf>';
    await ok(doc.documentId, [{ forms: { import: { data: { value: b64(xfdf) }, format: 'xfdf' } } }]);
    const file = await download(doc.documentId);
    expect(values(file)['person.name']).toBe('u:Ωmega');
    expect(acroform(file).needappearances).toBe(true);
    const outcome = await fails(doc.documentId, [{ forms: { flatten: {} } }]);
    expect(outcome.error).toMatchObject({ errorCode: -104 });
    expect(outcome.error?.errorMessage).toMatch(/toolbox\[0\]\.forms\.flatten: field "person\.name"/);
  });

  it('refuses bad data and impossible combinations (-14, -104) and changes nothing', async () => {
    const doc = await upload(form);
    const before = await info(server.rest, session.token, doc.documentId);
    const imp = (data: string, format = 'xfdf') => ({ forms: { import: { data: { value: b64(data) }, format } } });
    const field = (name: string, value: string) => `<xfdf xmlns="http://ns.adobe.com/xfdf/"><fields><field name="${name}"><value>${value}</value></field></fields></xfdf>`;
    const cases: [unknown, number, RegExp][] = [
      [imp(field('nobody', 'x')), -14, /toolbox\[0\]\.forms\.import\.data: the form has no field "nobody"/],
      [imp(field('agree', 'Maybe')), -14, /field "agree": a check box takes "Yes" or "Off", not "Maybe"/],
      [imp(field('color', 'green')), -14, /field "color": the radio buttons take "red", "blue" or "Off"/],
      [imp(field('country', 'Mars')), -14, /field "country": "Mars" is not one of its options/],
      [imp(field('person.zip', '1234567')), -14, /field "person\.zip": the value has 7 characters; the field takes at most 5/],
      [imp(field('send', 'x')), -14, /field "send": a push button has no value/],
      [imp(XML, 'xfdf'), -14, /not XFDF: the root element is <fields>/],
      [imp('%PDF-1.4 nonsense', 'fdf'), -14, /not an FDF file/],
      [imp('plain text', 'xml'), -14, /not an XML document/],
      [imp(XFDF, 'csv'), -14, /format/],
      [{ forms: { import: { data: { source: 'uri', uri: 'https://example.com/data.xfdf' }, format: 'xfdf' } } }, -104, /import\.data\.source "uri" is not supported/],
      [{ forms: { import: { data: { value: '***' }, format: 'xfdf' } } }, -14, /import\.data\.value: Base64 content is required/],
      [{ forms: { import: { format: 'xfdf' } } }, -14, /import\.data/],
      [{ forms: { export: { format: 'xfdf' }, flatten: {} } }, -14, /cannot also be flattened/],
      [{ forms: {} }, -14, /give import, export or flatten/],
    ];
    for (const [operation, code, message] of cases) {
      const outcome = await fails(doc.documentId, [operation]);
      expect(outcome.error, JSON.stringify(operation)).toMatchObject({ errorCode: code });
      expect(outcome.error?.errorMessage, JSON.stringify(operation)).toMatch(message);
    }
    const chain = await fails(doc.documentId, [{ forms: { flatten: {} } }, { delete: { pages: '7' } }]);
    expect(chain.error).toMatchObject({ errorCode: -14 });
    expect(await info(server.rest, session.token, doc.documentId)).toMatchObject({ fileSize: before.fileSize, fileLastModified: before.fileLastModified });
    expect(acroform(await download(doc.documentId)).fields.length).toBe(8);
  });

  it('handles documents without a form, protected and damaged PDFs', async () => {
    const plain = await upload(await numberedPdf(1), 'plain.pdf');
    const outcome = await fails(plain.documentId, [{ forms: { import: { data: { value: b64(XFDF) }, format: 'xfdf' } } }]);
    expect(outcome.error).toMatchObject({ errorCode: -14 });
    expect(outcome.error?.errorMessage).toMatch(/no form fields to fill/);
    await ok(plain.documentId, [{ forms: { flatten: {} } }]); // nothing to flatten is no error
    expect(acroform(await download(plain.documentId)).hasacroform).toBe(false);

    const source = path.join(scratch, 'locked-src.pdf');
    writeFileSync(source, form);
    execFileSync('qpdf', ['--encrypt', 'u', 'o', '256', '--', source, `${source}.enc`]);
    const locked = await upload(readFileSync(`${source}.enc`), 'locked.pdf');
    const fill = { forms: { import: { data: { value: b64(XFDF) }, format: 'xfdf' } } };
    expect((await fails(locked.documentId, [fill], { password: { open: 'x' } })).error).toMatchObject({ errorCode: -5008 });
    await ok(locked.documentId, [fill], { password: { open: 'u' } });
    const file = await download(locked.documentId);
    const json = JSON.parse(execFileSync('qpdf', ['--password=u', '--json=2', '--json-key=acroform', '--json-key=encrypt', file], { encoding: 'utf8' }));
    expect(json.encrypt.encrypted).toBe(true);
    expect(json.acroform.fields.find((f: QField) => f.fullname === 'person.name').value).toBe('u:Alice & Bob');

    const damaged = await upload(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('garbage '.repeat(50))]), 'damaged.pdf');
    expect((await fails(damaged.documentId, [{ forms: { flatten: {} } }])).error).toMatchObject({ errorCode: -7 });
  });
});
