import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { PDFDocument } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editPdf, readPdf } from '../../../src/engines/pdf-edit/annotations/edit-pdf.js';
import { PdfEditError } from '../../../src/engines/pdf-edit/annotations/errors.js';
import { parseFormData, writeFormData } from '../../../src/engines/pdf-edit/forms/data-formats.js';
import { flattenForm } from '../../../src/engines/pdf-edit/forms/flatten.js';
import { applyFieldData, openForm, readFieldData } from '../../../src/engines/pdf-edit/forms/form-fields.js';
import { qpdfCheck, scratchDir, textOf } from '../../helpers/pdf-tools.js';

/**
 * The pdf-edit forms engine on a real AcroForm: data files parsed and written (read back with
 * Python's XML parser), values imported and read by qpdf's form view, flattening judged by qpdf and
 * pdftotext.
 */
const scratch = scratchDir('pdf-edit-forms');
let form: string;
let counter = 0;
const out = () => scratch.file(`out-${counter++}.pdf`);

interface QpdfField {
  fullname: string;
  fieldtype: string;
  value: string | null;
}

/** qpdf's view of the form: full name → value (names and strings as qpdf writes them in JSON v2). */
function qpdfFields(file: string): Record<string, string | null> {
  const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=acroform', file], { encoding: 'utf8' })) as { acroform: { fields: QpdfField[] } };
  const fields: Record<string, string | null> = {};
  for (const field of json.acroform.fields) fields[field.fullname] = field.value;
  return fields;
}

/** Parses XML with Python (an independent parser); returns the text of every element with that local name, in order. */
function xmlTexts(xml: Buffer, localName: string): string[] {
  const script = `import sys, json, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.buffer.read())
print(json.dumps([(e.text or '') for e in root.iter() if e.tag.split('}')[-1] == sys.argv[1]]))`;
  return JSON.parse(execFileSync('python3', ['-c', script, localName], { input: xml, encoding: 'utf8' })) as string[];
}

beforeAll(async () => {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  const pdfForm = document.getForm();
  const name = pdfForm.createTextField('person.name');
  name.addToPage(page, { x: 50, y: 700, width: 200, height: 24 });
  const city = pdfForm.createTextField('person.city');
  city.addToPage(page, { x: 50, y: 650, width: 200, height: 24 });
  const agree = pdfForm.createCheckBox('agree');
  agree.addToPage(page, { x: 50, y: 600, width: 16, height: 16 });
  const colour = pdfForm.createDropdown('colour');
  colour.addOptions(['red', 'green', 'blue']);
  colour.addToPage(page, { x: 50, y: 550, width: 120, height: 24 });
  form = scratch.file('form.pdf');
  writeFileSync(form, await document.save());
});
afterAll(() => scratch.remove());

describe('import', () => {
  it('fills the fields named by an XFDF file, with new appearances, as qpdf reads the form', async () => {
    const xfdf = Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>
<xfdf xmlns="http://ns.adobe.com/xfdf/"><fields>
  <field name="person"><field name="name"><value>Jürgen &amp; Co</value></field><field name="city"><value>Köln</value></field></field>
  <field name="agree"><value>Yes</value></field>
  <field name="colour"><value>green</value></field>
</fields></xfdf>`,
    );
    const data = await parseFormData('xfdf', xfdf, 'import.data');
    expect(data).toEqual([
      { name: 'person.name', values: ['Jürgen & Co'] },
      { name: 'person.city', values: ['Köln'] },
      { name: 'agree', values: ['Yes'] },
      { name: 'colour', values: ['green'] },
    ]);
    const output = out();
    const result = await editPdf(form, output, (document) => applyFieldData(openForm(document, 'forms')!, data, 'import.data', false));
    expect(result.changed).toHaveLength(4);
    expect(result.undrawn).toEqual([]);
    qpdfCheck(output);
    expect(qpdfFields(output)).toEqual({ 'person.name': 'u:Jürgen & Co', 'person.city': 'u:Köln', agree: '/Yes', colour: 'u:green' });
  });

  it('reads FDF and the XML data formats to the same field data', async () => {
    const fdf = Buffer.from(
      '%FDF-1.2\n1 0 obj\n<< /FDF << /Fields [ << /T (person) /Kids [ << /T (name) /V (Anna) >> ] >> << /T (agree) /V /Off >> ] >> >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
    );
    expect(await parseFormData('fdf', fdf, 'data')).toEqual([
      { name: 'person.name', values: ['Anna'] },
      { name: 'agree', values: ['Off'] },
    ]);
    const xml = Buffer.from('<?xml version="1.0"?><fields><person><name>Anna</name></person><agree>Off</agree></fields>');
    expect(await parseFormData('xml', xml, 'data')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: expect.stringMatching(/person\.name$/), values: ['Anna'] }),
        expect.objectContaining({ name: expect.stringMatching(/agree$/), values: ['Off'] }),
      ]),
    );
  });

  it('refuses data naming a field the form does not have, and a value a field cannot take', async () => {
    const unknown = await editPdf(form, out(), (document) => applyFieldData(openForm(document, 'f')!, [{ name: 'nobody', values: ['x'] }], 'import.data', false)).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(PdfEditError);
    expect((unknown as Error).message).toMatch(/no field "nobody"/);
    const badChoice = await editPdf(form, out(), (document) => applyFieldData(openForm(document, 'f')!, [{ name: 'agree', values: ['maybe'] }], 'import.data', false)).catch((e: unknown) => e);
    expect(badChoice).toBeInstanceOf(PdfEditError);
  });

  it('refuses a data file of the wrong kind and one that is no XML', async () => {
    await expect(parseFormData('xfdf', Buffer.from('<?xml version="1.0"?><fields><a>1</a></fields>'), 'import.data')).rejects.toThrow(/import\.data.*not XFDF/);
    await expect(parseFormData('xfdf', Buffer.from('no markup at all'), 'import.data')).rejects.toThrow(/import\.data/);
    await expect(parseFormData('fdf', Buffer.from('%PDF-1.4 not an FDF'), 'import.data')).rejects.toThrow(/import\.data/);
  });
});

describe('export', () => {
  it('writes the values of a filled form as XFDF and XML that another parser reads back', async () => {
    const filled = out();
    await editPdf(form, filled, (document) =>
      applyFieldData(
        openForm(document, 'f')!,
        [
          { name: 'person.name', values: ['Zoë <x>'] },
          { name: 'colour', values: ['blue'] },
        ],
        'data',
        false,
      ),
    );
    const fields = await readPdf(filled, (document) => readFieldData(openForm(document, 'export')));
    expect(fields.map((f) => [f.name, f.values])).toEqual([
      ['person.name', ['Zoë <x>']],
      ['person.city', []],
      ['agree', ['Off']],
      ['colour', ['blue']],
    ]);
    const xfdf = writeFormData('xfdf', fields, 'form.pdf');
    expect(xmlTexts(xfdf, 'value')).toEqual(expect.arrayContaining(['Zoë <x>', 'blue']));
    const xml = writeFormData('xml', fields, '');
    expect(xmlTexts(xml, 'name')).toEqual(['Zoë <x>']);
    expect(xmlTexts(xml, 'colour')).toEqual(['blue']);
    // FDF: a PDF-syntax file; the value travels as a PDF string.
    expect(writeFormData('fdf', fields, 'form.pdf').toString('latin1')).toMatch(/^%FDF-1\.2/);
  });

  it('gives no fields for a document without a form', async () => {
    const document = await PDFDocument.create();
    document.addPage();
    const plain = scratch.file('no-form.pdf');
    writeFileSync(plain, await document.save());
    expect(await readPdf(plain, (d) => readFieldData(openForm(d, 'export')))).toEqual([]);
  });
});

describe('flattenForm', () => {
  it('turns the current appearances into page content: no form left, the values are page text', async () => {
    const output = out();
    const flattened = await editPdf(form, output, (document) => {
      const opened = openForm(document, 'flatten')!;
      applyFieldData(
        opened,
        [
          { name: 'person.name', values: ['FLATNAME'] },
          { name: 'colour', values: ['red'] },
        ],
        'data',
        false,
      );
      return flattenForm(document, opened, 'flatten');
    });
    expect(flattened).toBe(4);
    qpdfCheck(output);
    expect(qpdfFields(output)).toEqual({});
    const text = textOf(output);
    expect(text).toContain('FLATNAME');
    expect(text).toContain('red');
  });
});
