import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFName, PDFString, StandardFonts } from '@cantoo/pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { downloadToFile } from '../../helpers/converter.js';
import { uploadFile } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { toolboxOk } from '../../helpers/toolbox.js';

/**
 * Issue 13, item 4: `extraction.info` lists each form field's widget annotations (`Metadata_Field.
 * annotation[]`, `Metadata_Annotation`) with their page and `positions[].rectangle`. The positions
 * are checked against what Apache PDFBox reads from the same file, and against the rectangles the
 * file was made with.
 */

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-field-positions-'));
const PDFBOX_JARS = ['pdfbox2', 'fontbox2', 'commons-logging'].map((jar) => `/usr/share/java/${jar}.jar`);
const hasPdfBox = PDFBOX_JARS.every((jar) => existsSync(jar)) && spawnSync('java', ['-version']).status === 0;

type Json = Record<string, any>;
/** [fully qualified name, page, x, y, width, height] of one widget. */
type Placement = [string, number, number, number, number, number];

/**
 * Two pages (A4; Letter turned by /Rotate 90); pdf-lib's widgets without border (a border widens the /Rect). Page 1: a text field "person.name" at (50, 700)
 * 200×30, a check box "agree" at (50, 650) 15×15, the first radio button of "choice" at (60, 600)
 * 20×20. Page 2: the second radio button at (100, 500) 25×25, and a signature field "signature1"
 * whose /Rect is written corner-swapped, [500 150 300 100] (x 300, y 100, 200×50), with the print flag
 * and a red /C.
 */
async function formPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const p1 = doc.addPage([595, 842]);
  const p2 = doc.addPage([612, 792]);
  p2.setRotation({ type: 'degrees', angle: 90 } as never);
  const form = doc.getForm();
  form.createTextField('person.name').addToPage(p1, { x: 50, y: 700, width: 200, height: 30, font, borderWidth: 0 });
  form.createCheckBox('agree').addToPage(p1, { x: 50, y: 650, width: 15, height: 15, borderWidth: 0 });
  const choice = form.createRadioGroup('choice');
  choice.addOptionToPage('a', p1, { x: 60, y: 600, width: 20, height: 20, borderWidth: 0 });
  choice.addOptionToPage('b', p2, { x: 100, y: 500, width: 25, height: 25, borderWidth: 0 });
  const signature = doc.context.register(doc.context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', T: PDFString.of('signature1'), Rect: [500, 150, 300, 100], F: 4, C: [1, 0, 0], P: p2.ref }));
  p2.node.addAnnot(signature);
  form.acroForm.addField(signature);
  doc.catalog.set(PDFName.of('AcroForm'), form.acroForm.dict);
  return Buffer.from(await doc.save({ updateFieldAppearances: true }));
}

/** Every widget of every terminal field as PDFBox reads it: name, 1-based page (found in the pages' /Annots), normalised rectangle. */
function pdfBoxPlacements(file: string): Placement[] {
  const source = path.join(scratch, 'WidgetPlacements.java');
  writeFileSync(
    source,
    `import java.io.File; import org.apache.pdfbox.pdmodel.*; import org.apache.pdfbox.pdmodel.interactive.form.*; import org.apache.pdfbox.pdmodel.interactive.annotation.*; import org.apache.pdfbox.pdmodel.common.PDRectangle;
public class WidgetPlacements { public static void main(String[] a) throws Exception {
  try (PDDocument d = PDDocument.load(new File(a[0]))) {
    for (PDField f : d.getDocumentCatalog().getAcroForm().getFieldTree()) {
      if (!(f instanceof PDTerminalField)) continue;
      for (PDAnnotationWidget w : ((PDTerminalField) f).getWidgets()) {
        int page = 0;
        for (int i = 0; i < d.getNumberOfPages() && page == 0; i++)
          for (PDAnnotation an : d.getPage(i).getAnnotations()) if (an.getCOSObject() == w.getCOSObject()) page = i + 1;
        PDRectangle r = w.getRectangle();
        System.out.println(f.getFullyQualifiedName() + "|" + page + "|" + r.getLowerLeftX() + "|" + r.getLowerLeftY() + "|" + r.getWidth() + "|" + r.getHeight());
      } } } } }`,
  );
  const output = execFileSync('java', ['-cp', PDFBOX_JARS.join(':'), source, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return output
    .trim()
    .split('\n')
    .map((line) => {
      const [name, ...numbers] = line.split('|');
      return [name!, ...numbers.map(Number)] as Placement;
    });
}

const sorted = (placements: Placement[]) => [...placements].sort((a, b) => a.join('|').localeCompare(b.join('|')));

/** The placements in Quire's `document.form.field[]`. */
function quirePlacements(document: Json): Placement[] {
  return (document.form.field as Json[]).flatMap((field) =>
    (field.annotation as Json[]).map((annotation) => {
      const { x, y, width, height } = annotation.positions[0].rectangle;
      return [field.fullyQualifiedName, annotation.page, x, y, width, height] as Placement;
    }),
  );
}

/** Runs a Python expression over the parsed XML (`d` is the document). */
function xmlQuery(file: string, expression: string): string {
  return execFileSync('python3', ['-c', `import sys, json, xml.dom.minidom; d = xml.dom.minidom.parse(sys.argv[1]); print(${expression})`, file], { encoding: 'utf8' }).trim();
}

const KNOWN: Placement[] = [
  ['agree', 1, 50, 650, 15, 15],
  ['choice', 1, 60, 600, 20, 20],
  ['choice', 2, 100, 500, 25, 25],
  ['person.name', 1, 50, 700, 200, 30],
  ['signature1', 2, 300, 100, 200, 50],
];

describe('toolbox extraction.info: form fields with their widget annotations', () => {
  const { server, session } = useTestServer();
  let pdf: Buffer;
  let pdfPath: string;

  beforeAll(async () => {
    pdf = await formPdf();
    pdfPath = path.join(scratch, 'form.pdf');
    writeFileSync(pdfPath, pdf);
  });

  const extract = async (fileFormat: string, extension: string): Promise<string> => {
    const doc = await uploadFile(server.rest, session.token, pdf, 'form.pdf');
    await toolboxOk(server.rest, session.token, doc.documentId, [{ extraction: { info: { fileFormat, pages: '*' } } }]);
    return downloadToFile(server.rest, session.token, doc.documentId, extension);
  };

  it.runIf(hasPdfBox)('gives every field its widgets with page and rectangle, as PDFBox reads them (JSON)', async () => {
    const document = JSON.parse(readFileSync(await extract('json', 'json'), 'utf8')).document as Json;
    const placements = quirePlacements(document);
    expect(sorted(placements)).toEqual(sorted(pdfBoxPlacements(pdfPath)));
    expect(sorted(placements)).toEqual(KNOWN);
  });

  it('answers the reference members of Metadata_Field.annotation and Metadata_Annotation (JSON)', async () => {
    const document = JSON.parse(readFileSync(await extract('json', 'json'), 'utf8')).document as Json;
    const fields = document.form.field as Json[];
    expect(fields.map((f) => [f.fullyQualifiedName, f.type, f.annotation.length])).toEqual([
      ['person.name', 'text', 1],
      ['agree', 'checkBox', 1],
      ['choice', 'radioButton', 2],
      ['signature1', 'signature', 1],
    ]);
    const signature = fields[3]!.annotation[0] as Json;
    expect(Object.keys(signature).sort()).toEqual(
      [
        'color',
        'contents',
        'field',
        'hidden',
        'iconName',
        'invisible',
        'locked',
        'name',
        'objectKey',
        'page',
        'positions',
        'printable',
        'rotatable',
        'rotation',
        'subType',
        'viewable',
        'writable',
        'zoomable',
      ].sort(),
    );
    expect(signature).toMatchObject({
      subType: 'Widget',
      page: 2,
      positions: [{ rectangle: { x: 300, y: 100, width: 200, height: 50 } }],
      color: '#FF0000',
      printable: true,
      hidden: false,
      invisible: false,
      field: { name: 'signature1', type: 'signature' },
    });
    expect(Object.keys(signature.positions[0])).toEqual(['rectangle']);
  });

  it('writes the same annotations in the XML format', async () => {
    const file = await extract('xml', 'xml');
    const rows = JSON.parse(
      xmlQuery(
        file,
        'json.dumps([[f.getAttribute("fullyQualifiedName"), int(a.getAttribute("page"))] + [float(r.getAttribute(k)) for k in ("x", "y", "width", "height")] ' +
          'for f in d.getElementsByTagName("form")[0].childNodes if f.nodeName == "field" ' +
          'for a in f.childNodes if a.nodeName == "annotation" ' +
          'for p in a.getElementsByTagName("positions") for r in p.getElementsByTagName("rectangle")])',
      ),
    ) as Placement[];
    expect(sorted(rows)).toEqual(KNOWN);
  });
});
