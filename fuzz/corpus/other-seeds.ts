/**
 * The committed seeds that are not PDFs: tiny images of every accepted format, archives, a minimal
 * DOCX and ODT, XFDF, XMP, e-mail, HTML, SVG, text, PostScript, RTF. Deterministic bytes.
 */
import sharp from 'sharp';
import { minimalPdf, outlinePdf } from './pdf-seeds.js';
import { writeZip } from '../zip-format.js';

const WIDTH = 8;
const HEIGHT = 6;

/** 8×6 RGB pattern, the source of every image seed. */
function pattern(): Buffer {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) pixels.set([x * 32, y * 40, (x * y * 17) & 255], (y * WIDTH + x) * 3);
  }
  return pixels;
}

/** A 24-bit bottom-up BMP (sharp writes no BMP). */
function bmp(pixels: Buffer): Buffer {
  const rowSize = Math.ceil((WIDTH * 3) / 4) * 4;
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54 + rowSize * HEIGHT, 2);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(WIDTH, 18);
  header.writeInt32LE(HEIGHT, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(24, 28);
  header.writeUInt32LE(rowSize * HEIGHT, 34);
  header.writeInt32LE(2835, 38);
  header.writeInt32LE(2835, 42);
  const rows: Buffer[] = [];
  for (let y = HEIGHT - 1; y >= 0; y--) {
    const row = Buffer.alloc(rowSize);
    for (let x = 0; x < WIDTH; x++) {
      const at = (y * WIDTH + x) * 3;
      row.set([pixels[at + 2]!, pixels[at + 1]!, pixels[at]!], x * 3);
    }
    rows.push(row);
  }
  return Buffer.concat([header, ...rows]);
}

export async function imageSeeds(): Promise<Record<string, Buffer>> {
  const pixels = pattern();
  const image = () => sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } });
  return {
    'tiny.png': await image().png({ compressionLevel: 9 }).toBuffer(),
    'tiny.jpg': await image().jpeg({ quality: 80 }).toBuffer(),
    'tiny.gif': await image().gif().toBuffer(),
    'tiny.tif': await image().tiff({ compression: 'lzw' }).toBuffer(),
    'tiny.webp': await image().webp({ lossless: true }).toBuffer(),
    'tiny.bmp': bmp(pixels),
  };
}

const DOCX_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const DOCX_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const DOCX_DOCUMENT = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Fuzz seed DOCX</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>`;

const ODT_MANIFEST = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`;
const ODT_CONTENT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text><text:h text:outline-level="1">Fuzz seed ODT</text:h><text:p>Paragraph</text:p></office:text></office:body></office:document-content>`;

export function officeSeeds(): Record<string, Buffer> {
  const b = (text: string) => Buffer.from(text, 'utf8');
  return {
    'tiny.docx': writeZip([
      { name: '[Content_Types].xml', data: b(DOCX_TYPES) },
      { name: '_rels/.rels', data: b(DOCX_RELS) },
      { name: 'word/document.xml', data: b(DOCX_DOCUMENT) },
    ]),
    'tiny.odt': writeZip([
      { name: 'mimetype', data: b('application/vnd.oasis.opendocument.text'), method: 'store' },
      { name: 'META-INF/manifest.xml', data: b(ODT_MANIFEST) },
      { name: 'content.xml', data: b(ODT_CONTENT) },
    ]),
    'tiny.rtf': b('{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Helvetica;}}\\f0\\fs24 Fuzz seed {\\b RTF}\\par{\\trowd\\cellx2000 cell\\cell\\row}}\n'),
  };
}

const XFDF = `<?xml version="1.0" encoding="UTF-8"?>
<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve"><fields><field name="name"><value>fuzz</value></field><field name="agree"><value>Off</value></field><field name="choice"><value>A</value></field></fields></xfdf>
`;
const XMP = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Fuzz</rdf:li></rdf:Alt></dc:title><dc:creator><rdf:Seq><rdf:li>Quire</rdf:li></rdf:Seq></dc:creator><pdf:Keywords>seed</pdf:Keywords></rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`;
const MAIL = [
  'From: "Fuzz Sender" <sender@example.test>',
  'To: receiver@example.test',
  'Subject: Fuzz seed',
  'Date: Mon, 01 Jan 2024 00:00:00 +0000',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="outer"',
  '',
  '--outer',
  'Content-Type: multipart/alternative; boundary="inner"',
  '',
  '--inner',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Plain body.',
  '--inner',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<html><body><p>HTML <b>body</b> <img src="cid:dot@fuzz"></p></body></html>',
  '--inner--',
  '--outer',
  'Content-Type: image/png',
  'Content-ID: <dot@fuzz>',
  'Content-Transfer-Encoding: base64',
  '',
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPgPAAEDAQAIicLsAAAAAElFTkSuQmCC',
  '--outer',
  'Content-Type: application/pdf; name="a.pdf"',
  'Content-Disposition: attachment; filename="a.pdf"',
  'Content-Transfer-Encoding: base64',
  '',
  '@@PDF@@',
  '--outer--',
  '',
].join('\r\n');

export function textSeeds(): Record<string, Buffer> {
  const b = (text: string) => Buffer.from(text, 'utf8');
  const pdf64 = minimalPdf().toString('base64').replace(/.{76}/g, '$&\r\n');
  return {
    'form.xfdf': b(XFDF),
    'meta.xmp': b(XMP),
    'mail.eml': b(MAIL.replace('@@PDF@@', pdf64)),
    'page.html': b('<!doctype html><html><head><style>table{border:1px solid}</style></head><body><h1>Fuzz</h1><table><tr><td>a</td><td>b</td></tr></table><ol><li>x</li></ol></body></html>\n'),
    'drawing.svg': b(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="80" viewBox="0 0 100 80"><rect x="10" y="10" width="50" height="30" fill="#c00"/><text x="10" y="70">Fuzz</text></svg>\n',
    ),
    'note.txt': b('Fuzz seed text\nSecond line with umlauts: Grüße\n'),
    'data.json': b('{"fuzz":[1,2,{"a":"b"}],"n":null}\n'),
    'doc.ps': b('%!PS-Adobe-3.0\n%%BoundingBox: 0 0 200 100\n/Helvetica findfont 20 scalefont setfont\n20 40 moveto (Fuzz seed) show\nshowpage\n%%EOF\n'),
  };
}

export function archiveSeeds(): Record<string, Buffer> {
  return {
    'archive.zip': writeZip([
      { name: 'minimal.pdf', data: minimalPdf() },
      { name: 'notes/note.txt', data: Buffer.from('a note\n') },
      { name: 'notes/outline.pdf', data: outlinePdf(), method: 'store' },
    ]),
  };
}
