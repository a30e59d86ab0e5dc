import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDict, PDFDocument, PDFName, PDFString, StandardFonts, degrees } from '@cantoo/pdf-lib';
import { run } from '../../../src/engines/process/run.js';

/** Test PDFs made at test time with pdf-lib and qpdf (see test/fixtures/pdf/README.md for the committed ones). */

export const COMMITTED = path.resolve(import.meta.dirname, '../../fixtures/pdf');

export function makeTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'quire-pdf-'));
}

export const XMP_PDFA_2B = Buffer.from(
  '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">' +
    '<pdfaid:part>2</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance><xmp:CreatorTool>Quire Fixture Writer</xmp:CreatorTool>' +
    '</rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>',
  'utf8',
);

/**
 * Three pages (A4; Letter rotated 90 with crop and trim boxes; 300×400 rotated 270 with bleed and art
 * boxes), labels i, ii, A-5, document info incl. a custom key, language, XMP with PDF/A-2B, an
 * embedded file, viewer preferences, page layout/mode, an open action to page 2, and an AcroForm with
 * a text field (hierarchical name, required), a check box (checked), a read-only dropdown and a
 * multi-select list box.
 */
export async function makeRichPdf(file: string): Promise<void> {
  const doc = await PDFDocument.create();
  doc.setTitle('Quire test');
  doc.setAuthor('Ada Lovelace');
  doc.setSubject('Fixtures');
  doc.setKeywords(['alpha', 'beta']);
  doc.setCreator('quire-tests');
  doc.setProducer('pdf-lib');
  doc.setCreationDate(new Date('2024-01-02T03:04:05Z'));
  doc.setModificationDate(new Date('2024-02-03T04:05:06Z'));
  doc.setLanguage('de-DE');
  const font = await doc.embedFont(StandardFonts.Helvetica);

  const p1 = doc.addPage([595.28, 841.89]);
  p1.drawText('Page one', { x: 50, y: 780, font, size: 18 });
  const p2 = doc.addPage([612, 792]);
  p2.setRotation(degrees(90));
  p2.setCropBox(10, 20, 500, 700);
  p2.setTrimBox(15, 25, 490, 690);
  const p3 = doc.addPage([300, 400]);
  p3.setRotation(degrees(270));
  p3.setBleedBox(0, 0, 300, 400);
  p3.setArtBox(5, 5, 290, 390);

  const form = doc.getForm();
  const name = form.createTextField('person.name');
  name.setText('Grace <Hopper> & Co');
  name.enableRequired();
  name.addToPage(p1, { x: 50, y: 700, font });
  const agree = form.createCheckBox('agree');
  agree.check();
  agree.addToPage(p1, { x: 50, y: 650 });
  const color = form.createDropdown('color');
  color.addOptions(['red', 'green', 'blue']);
  color.select('green');
  color.enableReadOnly();
  color.addToPage(p1, { x: 50, y: 600, font });
  const fruits = form.createOptionList('fruits');
  fruits.addOptions(['apple', 'banana', 'cherry']);
  fruits.enableMultiselect();
  fruits.select(['apple', 'cherry']);
  fruits.addToPage(p1, { x: 50, y: 450, font });

  const context = doc.context;
  doc.catalog.set(PDFName.of('PageLabels'), context.obj({ Nums: [0, context.obj({ S: 'r' }), 2, context.obj({ S: 'D', P: PDFString.of('A-'), St: 5 })] }));
  doc.catalog.set(PDFName.of('Metadata'), context.register(context.stream(new Uint8Array(XMP_PDFA_2B), { Type: 'Metadata', Subtype: 'XML' })));
  doc.catalog.set(PDFName.of('PageLayout'), PDFName.of('TwoColumnLeft'));
  doc.catalog.set(PDFName.of('PageMode'), PDFName.of('UseOutlines'));
  doc.catalog.set(PDFName.of('ViewerPreferences'), context.obj({ HideToolbar: true, DisplayDocTitle: true, Direction: 'R2L', Duplex: 'DuplexFlipLongEdge', NumCopies: 2, PrintScaling: 'None' }));
  doc.catalog.set(PDFName.of('OpenAction'), context.obj([p2.ref, PDFName.of('XYZ'), null, null, 1.5]));
  doc.context.lookup(doc.context.trailerInfo.Info, PDFDict).set(PDFName.of('Department'), PDFString.of('QA'));
  await doc.attach(Buffer.from('hello'), 'hello.txt', { mimeType: 'text/plain', description: 'greeting' });
  fs.writeFileSync(file, await doc.save({ updateFieldAppearances: true }));
}

/** A PDF of `count` pages, alternating A4 portrait and Letter landscape, plus a label range. */
export async function makeManyPagesPdf(file: string, count: number): Promise<void> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < count; i++) {
    const page = doc.addPage(i % 2 === 0 ? [595.28, 841.89] : [792, 612]);
    page.drawText(`Page ${i + 1}`, { x: 40, y: 40, font, size: 12 });
  }
  doc.catalog.set(PDFName.of('PageLabels'), doc.context.obj({ Nums: [0, doc.context.obj({ S: 'D' })] }));
  fs.writeFileSync(file, await doc.save());
}

export async function makePlainPdf(file: string): Promise<void> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  fs.writeFileSync(file, await doc.save());
}

/** Runs qpdf with the arguments (the fixtures' passwords are throwaway, so argv is fine here). */
export async function qpdf(...args: string[]): Promise<void> {
  const result = await run('qpdf', args, { timeoutMs: 120_000 });
  if (result.exitCode !== 0 && result.exitCode !== 3) throw new Error(`qpdf ${args.join(' ')} failed: ${result.stderr}`);
}

/** A copy of `source` with a classic xref table whose startxref offset is wrong: qpdf must rebuild the xref. */
export async function makeDamaged(source: string, file: string, ...qpdfOptions: string[]): Promise<void> {
  const classic = `${file}.classic.pdf`;
  await qpdf('--object-streams=disable', ...qpdfOptions, source, classic);
  const bytes = fs.readFileSync(classic);
  fs.rmSync(classic);
  const at = bytes.lastIndexOf('startxref');
  const offset = Number(/startxref\s+(\d+)/.exec(bytes.toString('latin1', at))![1]);
  fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, at), Buffer.from(`startxref\n${offset + 7}\n%%EOF\n`)]));
}

/**
 * A PDF of `megabytes` MB and a bit, written by streaming (never held in memory): one page whose
 * uncompressed content stream is that many MB of spaces. With `sparse`, the stream's bytes are a
 * hole in the file (zeros that cost no disk space), which allows multi-GB files in tests.
 */
export async function makeLargePdf(file: string, megabytes: number, options: { sparse?: boolean } = {}): Promise<void> {
  const out = fs.openSync(file, 'w');
  let position = 0;
  const offsets: number[] = [];
  const write = (data: string | Buffer): void => {
    const buffer = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    fs.writeSync(out, buffer, 0, buffer.length, position);
    position += buffer.length;
  };
  const object = (num: number, body: string): void => {
    offsets[num] = position;
    write(`${num} 0 obj\n${body}\nendobj\n`);
  };
  try {
    write('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
    object(1, '<< /Type /Catalog /Pages 2 0 R >>');
    object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 595 842] >>');
    object(3, '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << >> >>');
    const padding = megabytes * 1024 * 1024;
    offsets[4] = position;
    write(`4 0 obj\n<< /Length ${padding} >>\nstream\n`);
    if (options.sparse) {
      position += padding;
    } else {
      const chunk = Buffer.alloc(4 * 1024 * 1024, 0x20);
      for (let left = padding; left > 0; left -= chunk.length) write(left >= chunk.length ? chunk : chunk.subarray(0, left));
    }
    write('\nendstream\nendobj\n');
    const xref = position;
    write('xref\n0 5\n0000000000 65535 f\r\n');
    for (let i = 1; i <= 4; i++) write(`${String(offsets[i]).padStart(10, '0')} 00000 n\r\n`);
    write(`trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  } finally {
    fs.closeSync(out);
  }
}

/** pdfinfo (poppler, a separate process) as an independent witness. */
export async function pdfinfo(...args: string[]): Promise<string> {
  const result = await run('pdfinfo', args, { timeoutMs: 60_000 });
  if (result.exitCode !== 0) throw new Error(`pdfinfo failed: ${result.stderr}`);
  return result.stdout.toString('utf8');
}
