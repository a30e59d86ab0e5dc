/**
 * Hand-built tiny PDFs for the committed seed set: each one carries a structure a mutator can turn
 * hostile (page tree, outlines, name trees, object stream, forms, images, annotations, incremental
 * updates). Written with exact, classic cross-reference tables so that the starting point is valid.
 */
import { deflateSync } from 'node:zlib';
import { buildPdf, streamBody, type PdfObject } from '../pdf-writer.js';

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
const text = (line: string, y = 700) => `BT /F1 24 Tf 72 ${y} Td (${line}) Tj ET`;

function page(num: number, parent: number, contents: number, extra = ''): PdfObject {
  return { num, body: `<< /Type /Page /Parent ${parent} 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents ${contents} 0 R${extra} >>` };
}

/** One page, "Hello". The smallest valid file. */
export function minimalPdf(): Buffer {
  return buildPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      page(3, 2, 5),
      { num: 4, body: FONT },
      { num: 5, body: streamBody('', text('Hello')) },
    ],
    { root: 1 },
  );
}

/** Three pages in a two-level page tree, outlines (First/Last/Next/Prev/Parent), named destinations, page labels. */
export function outlinePdf(): Buffer {
  return buildPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Outlines 10 0 R /Names << /Dests 20 0 R >> /PageLabels << /Nums [0 << /S /r >> 2 << /S /D /St 7 >>] >> /PageMode /UseOutlines >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 3 >>' },
      page(3, 2, 5),
      { num: 4, body: FONT },
      { num: 5, body: streamBody('', text('One')) },
      { num: 6, body: '<< /Type /Pages /Parent 2 0 R /Kids [7 0 R 8 0 R] /Count 2 /Rotate 90 >>' },
      page(7, 6, 9),
      page(8, 6, 9, ' /Rotate 180'),
      { num: 9, body: streamBody('', text('Two and three')) },
      { num: 10, body: '<< /Type /Outlines /First 11 0 R /Last 12 0 R /Count 3 >>' },
      { num: 11, body: '<< /Title (Chapter 1) /Parent 10 0 R /Next 12 0 R /Dest [3 0 R /Fit] >>' },
      { num: 12, body: '<< /Title (Chapter 2) /Parent 10 0 R /Prev 11 0 R /First 13 0 R /Last 13 0 R /Count 1 /A << /S /GoTo /D (two) >> >>' },
      { num: 13, body: '<< /Title (Section 2.1) /Parent 12 0 R /Dest [8 0 R /XYZ 0 800 0] >>' },
      { num: 20, body: '<< /Kids [21 0 R] >>' },
      { num: 21, body: '<< /Limits [(one) (two)] /Names [(one) [3 0 R /Fit] (two) [7 0 R /Fit]] >>' },
      { num: 30, body: '<< /Title (Outline seed) /Author (Quire fuzz) /CreationDate (D:20240101000000Z) >>' },
    ],
    { root: 1, trailerExtra: '/Info 30 0 R' },
  );
}

/** An embedded file in a name tree with /Kids, and a file attachment annotation. */
export function attachmentPdf(): Buffer {
  const file = 'attached text\n';
  return buildPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles 10 0 R >> >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      page(3, 2, 5, ' /Annots [14 0 R]'),
      { num: 4, body: FONT },
      { num: 5, body: streamBody('', text('Attachments')) },
      { num: 10, body: '<< /Kids [11 0 R] >>' },
      { num: 11, body: '<< /Limits [(a.txt) (a.txt)] /Names [(a.txt) 12 0 R] >>' },
      { num: 12, body: '<< /Type /Filespec /F (a.txt) /UF (a.txt) /EF << /F 13 0 R >> >>' },
      { num: 13, body: streamBody(`/Type /EmbeddedFile /Params << /Size ${file.length} >>`, file) },
      { num: 14, body: '<< /Type /Annot /Subtype /FileAttachment /Rect [72 600 92 620] /FS 12 0 R /Contents (a.txt) /Name /PushPin >>' },
    ],
    { root: 1 },
  );
}

/** An AcroForm with a text field, a check box and a radio group (field tree with /Kids and /Parent). */
export function formPdf(): Buffer {
  const on = streamBody('/Type /XObject /Subtype /Form /BBox [0 0 12 12]', '0 0 12 12 re f');
  const off = streamBody('/Type /XObject /Subtype /Form /BBox [0 0 12 12]', '');
  return buildPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [10 0 R 11 0 R 12 0 R] /NeedAppearances true /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 4 0 R >> >> >> >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      page(3, 2, 5, ' /Annots [10 0 R 11 0 R 13 0 R 14 0 R]'),
      { num: 4, body: FONT },
      { num: 5, body: streamBody('', text('Form')) },
      { num: 10, body: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (value) /Rect [72 600 300 620] /DA (/Helv 12 Tf 0 g) /P 3 0 R /MaxLen 40 >>' },
      { num: 11, body: '<< /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /V /Yes /AS /Yes /Rect [72 560 84 572] /AP << /N << /Yes 15 0 R /Off 16 0 R >> >> /P 3 0 R >>' },
      { num: 12, body: '<< /FT /Btn /Ff 49152 /T (choice) /V /B /Kids [13 0 R 14 0 R] >>' },
      { num: 13, body: '<< /Type /Annot /Subtype /Widget /Parent 12 0 R /Rect [72 520 84 532] /AS /Off /AP << /N << /A 15 0 R /Off 16 0 R >> >> /P 3 0 R >>' },
      { num: 14, body: '<< /Type /Annot /Subtype /Widget /Parent 12 0 R /Rect [100 520 112 532] /AS /B /AP << /N << /B 15 0 R /Off 16 0 R >> >> /P 3 0 R >>' },
      { num: 15, body: on },
      { num: 16, body: off },
    ],
    { root: 1 },
  );
}

/** An RGB image XObject (Flate with a PNG predictor) and a grey one (uncompressed), drawn on the page. */
export function imagePdf(): Buffer {
  const width = 4;
  const height = 3;
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    row[0] = 2; // PNG "Up" predictor
    for (let x = 0; x < width; x++) row.set([x * 60, y * 80, 200], 1 + x * 3);
    rows.push(row);
  }
  const rgb = streamBody(
    `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 3 /Columns ${width} /BitsPerComponent 8 >>`,
    deflateSync(Buffer.concat(rows)),
  );
  const grey = streamBody('/Type /XObject /Subtype /Image /Width 8 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8', Buffer.from([...Array(16).keys()].map((i) => i * 16)));
  return buildPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Resources << /XObject << /Im1 6 0 R /Im2 7 0 R >> /Font << /F1 4 0 R >> >> /Contents 5 0 R >>' },
      { num: 4, body: FONT },
      { num: 5, body: streamBody('', `q 200 0 0 150 50 100 cm /Im1 Do Q q 100 0 0 25 50 50 cm /Im2 Do Q ${text('Images', 270)}`) },
      { num: 6, body: rgb },
      { num: 7, body: grey },
    ],
    { root: 1 },
  );
}

/** Link, square, text and redaction annotations; an OpenAction and a URI action. */
export function annotationPdf(): Buffer {
  return buildPdf(
    [
      { num: 1, body: '<< /Type /Catalog /Pages 2 0 R /OpenAction [3 0 R /Fit] >>' },
      { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      page(3, 2, 5, ' /Annots [10 0 R 11 0 R 12 0 R 13 0 R]'),
      { num: 4, body: FONT },
      { num: 5, body: streamBody('', `${text('Secret words here')} ${text('Visit https://example.test', 650)}`) },
      { num: 10, body: '<< /Type /Annot /Subtype /Link /Rect [72 640 400 670] /Border [0 0 0] /A << /S /URI /URI (https://example.test/) >> >>' },
      { num: 11, body: '<< /Type /Annot /Subtype /Square /Rect [300 300 400 400] /C [1 0 0] /Contents (square) /T (fuzz) >>' },
      { num: 12, body: '<< /Type /Annot /Subtype /Text /Rect [72 500 92 520] /Contents (note) /Popup 14 0 R /Open false >>' },
      { num: 13, body: '<< /Type /Annot /Subtype /Redact /Rect [160 690 260 730] /QuadPoints [160 730 260 730 160 690 260 690] /IC [0 0 0] >>' },
      { num: 14, body: '<< /Type /Annot /Subtype /Popup /Rect [100 400 300 500] /Parent 12 0 R >>' },
    ],
    { root: 1 },
  );
}

/** An update appended to minimalPdf: a second xref section with /Prev, replacing the content stream. */
export function incrementalPdf(): Buffer {
  const base = minimalPdf();
  const baseText = base.toString('latin1');
  const prev = Number(/startxref\s+(\d+)/.exec(baseText)![1]);
  const content = Buffer.concat([Buffer.from('5 0 obj\n', 'latin1'), streamBody('', text('Updated')), Buffer.from('\nendobj\n', 'latin1')]);
  const at = base.length;
  const xrefAt = at + content.length;
  const section = `xref\n0 1\n0000000000 65535 f \n5 1\n${String(at).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 6 /Root 1 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([base, content, Buffer.from(section, 'latin1')]);
}
