/**
 * What a case calls after uploading its document: GET info, every converter and toolbox operation
 * (the 22 of src/operations/toolbox/ops/*.schema.ts, each with a few plausible option sets from docs/toolbox.md),
 * archive extraction, and the other web services: pdfa (convert, analyze), signature (sign, clear),
 * ocr, barcode (add, detect) and urlconverter (with URLs the address policy must refuse). Some targets
 * put the mutated bytes into the request instead of the document (a watermark image, XFDF to import,
 * a PDF to merge, a signature image, a barcode's text); their document is a valid carrier PDF.
 *
 * Option sets are JSON with markers replaced when the request is built:
 *   @@PAYLOAD@@  Base64 of the mutated bytes     @@CARRIER@@  Base64 of the carrier PDF
 *   @@SELFID@@   Base64 of the document's own id  @@CERT@@     Base64 of a test recipient certificate
 *   @@PAYLOADTEXT@@  the mutated bytes as text (UTF-8, JSON-escaped: it stands inside a JSON string)
 *   @@SIGNCERT@@ / @@SIGNKEY@@  Base64 of the PEM certificate and private key of a test signer
 */
import type { SeedKind } from './corpus/corpus.js';
import type { Limits } from './limits.js';

export type TargetGroup = 'info' | 'converter' | 'toolbox' | 'extract' | 'pdfa' | 'signature' | 'ocr' | 'barcode' | 'urlconverter';

export interface Target {
  name: string;
  group: TargetGroup;
  /** Kinds of (mutated) documents the target is drawn for. */
  documentKinds: readonly SeedKind[];
  /** When set, the mutated bytes of one of these kinds go into the request; the document is the carrier. */
  payloadKinds?: readonly SeedKind[];
  /** Option sets: the toolbox array, the converter object, the extract body, a web service's member, or null for GET. */
  variants: readonly unknown[];
  weight: number;
  /** Query string of the call (without `?`). */
  query?: string;
}

export interface HttpCall {
  method: 'GET' | 'POST';
  /** Relative to the REST base, e.g. "toolbox/<id>". */
  path: string;
  body?: unknown;
}

const PDF = ['pdf'] as const;
const ALL: readonly SeedKind[] = ['pdf', 'office', 'image', 'zip', 'xfdf', 'xmp', 'mail', 'html', 'svg', 'text', 'ps'];

const tb = (op: string, ...options: unknown[]) => options.map((o) => [{ [op]: o }]);

const rectangle = { x: 20, y: 20, width: 100, height: 40, metrics: 'pt' };

/** The toolbox operations with their option sets (arrays of toolbox elements). */
const TOOLBOX: [string, unknown[][], number][] = [
  ['delete', tb('delete', { pages: '1' }, { pages: 'last' }, { pages: '2-' }, { pages: '1,3' }), 3],
  ['move', tb('move', { pages: '1', targetPosition: 2 }, { pages: 'last', targetPosition: 1, mode: 'beforePage', order: 'reverse' }), 2],
  [
    'rotate',
    tb('rotate', { degrees: 90, pages: '*' }, { degrees: 270, pages: '1', pageGroup: 'odd' }, { degrees: 180, pageOrientation: 'portrait', orientationDetectMode: 'dimensions', pages: '' }),
    2,
  ],
  ['split', tb('split', { mode: 'burst' }, { mode: 'last', pages: '1' }, { mode: 'group', pages: '2' }, { mode: 'list', pages: '1,last' }, { mode: 'each', pages: '1', singleFileAsZip: false }), 3],
  [
    'merge',
    tb(
      'merge',
      { data: { format: 'pdf', value: '@@CARRIER@@' } },
      { data: { format: 'pdf', value: '@@CARRIER@@', outlineName: 'Merged/Part' }, mode: 'afterPage', page: 1, outlineName: 'Own' },
      { data: { format: 'id', value: '@@SELFID@@' }, mode: 'atTheBeginning' },
      { data: { format: 'pdf', value: '@@CARRIER@@' }, resetMetadata: true, removeStaticXFA: true },
    ),
    3,
  ],
  [
    'scale',
    tb(
      'scale',
      { scalePages: { dimensions: { width: 210, height: 297 } } },
      { scalePages: { dimensions: { width: 100, metrics: 'pt' }, scaleBoxes: false, pages: '1' } },
      { scalePages: { dimensions: { width: 500, height: 100 }, preserveAspectRatio: false, horizontalAlignment: 'center', verticalAlignment: 'bottom' } },
    ),
    3,
  ],
  ['compress', tb('compress', {}, { compressObjects: { objectStreamSize: 1 } }), 2],
  [
    'security',
    tb(
      'security',
      { encrypt: { password: { open: 'a', permission: 'b' } } },
      { encrypt: { password: { encryptionKey: 'RC4_40', permission: 'p' }, canPrint: true } },
      { decrypt: {} },
      { encryptCertificate: { recipient: [{ certificate: { value: '@@CERT@@' }, canPrint: true }] } },
    ),
    2,
  ],
  ['print', tb('print', {}, { mode: 'raster', dpi: 72 }), 1],
  ['description', tb('description', { title: 'Fuzz', author: 'Quire', custom: [{ key: 'Company', value: 'X' }] }, { allowEmptyValues: true, title: '', keywords: 'a,b' }), 2],
  [
    'xmp',
    tb('xmp', {
      data: { value: Buffer.from(JSON.stringify([{ propertyName: 'fz', propertyType: 'Text', propertyCategory: 'external', propertyDescription: 'd', propertyValue: 'v' }])).toString('base64') },
      namespace: { namespaceName: 'Fuzz', namespacePrefix: 'fz', namespaceURI: 'http://fuzz.example/ns/' },
    }),
    1,
  ],
  [
    'attachment',
    tb(
      'attachment',
      { add: { file: [{ fileName: 'a.txt', data: { value: Buffer.from('hello').toString('base64') } }] } },
      { extract: {} },
      { remove: { selection: [{}] } },
      { extract: { singleFileAsZip: false, selection: [{ context: 'page' }] } },
    ),
    2,
  ],
  [
    'portfolio',
    tb(
      'portfolio',
      { add: { file: [{ fileName: 'a.pdf', path: '/f', data: { value: '@@CARRIER@@' } }], folder: [{ path: '/f/g' }] } },
      { extract: {} },
      { remove: { selection: [{ path: '/' }] } },
      { sort: { namedCriteria: [{ key: 'size' }] } },
    ),
    2,
  ],
  [
    'annotation',
    tb(
      'annotation',
      { add: { square: [{ page: 1, position: { rectangle } }], circle: [{ page: 1, position: { rectangle } }] } },
      { add: { redact: [{ page: 1, position: { pathElement: [rectangle] } }] } },
      { remove: { selection: { select: [{ page: 1 }] } } },
      { remove: { selection: { select: [{ page: 1 }] }, flatten: true } },
    ),
    2,
  ],
  [
    'outline',
    tb(
      'outline',
      {
        add: {
          item: [
            { itemName: 'A', path: '/' },
            { itemName: 'B', path: '/A' },
          ],
        },
      },
      { clear: {} },
      { remove: { item: [{ path: '/Chapter 1' }] } },
    ),
    2,
  ],
  [
    'forms',
    tb(
      'forms',
      { export: { format: 'xfdf' } },
      { export: { format: 'xml' } },
      { flatten: {} },
      { import: { format: 'xfdf', data: { value: Buffer.from('<xfdf xmlns="http://ns.adobe.com/xfdf/"><fields><field name="name"><value>x</value></field></fields></xfdf>').toString('base64') } } },
    ),
    2,
  ],
  [
    'watermark',
    tb(
      'watermark',
      { text: { text: 'Fuzz', font: { size: 40 } } },
      { pages: '1', angle: 0, text: { text: 'X\nY', font: { name: 'Times', bold: true, outline: true }, position: { position: 'top_left' } } },
    ),
    3,
  ],
  [
    'options',
    tb(
      'options',
      { background: { add: { colorBackground: { color: '#00FF00' } } } },
      { boxes: { resize: [{ boxesResize: { dimensions: { x: 10, y: 10, width: 100, height: 100 } } }] } },
      { headerFooter: { add: { headerFooterContent: { header: { left: 'L', center: 'Page &[Page]' } } } } },
      { initialPage: 2, pageLayout: 'twoPages', viewerPreferences: { fitWindow: true } },
    ),
    2,
  ],
  [
    'extraction',
    tb('extraction', { text: { fileFormat: 'json' } }, { words: { fileFormat: 'xml' } }, { paragraphs: {} }, { links: { text: { fromText: true } } }, { images: {} }, { info: { fileFormat: 'json' } }),
    4,
  ],
  [
    'image',
    tb(
      'image',
      { png: { dpi: 72 }, pages: '1' },
      { jpeg: { dpi: 50, jpegQuality: 50 }, pages: '*' },
      { tiff: { compression: 'group4', multipage: true, dpi: 50 }, pages: '*' },
      { svg: {}, pages: '1' },
      { gif: { width: 100, metrics: 'px' } },
      { bmp: { dpi: 30 } },
    ),
    4,
  ],
  ['transcribe', tb('transcribe', { html: { pages: '1' } }, { html: { pages: '*', dpi: 50 }, successReport: 'zip' }, { errorReport: 'message', failureLevel: 'warning' }), 2],
  [
    'redact',
    tb(
      'redact',
      { blacken: {} },
      { sanitize: { actions: {}, annotations: {}, attachments: {}, forms: {}, layers: {}, metadata: {}, outlines: {}, tags: {} } },
      { sanitize: { pages: { dpi: 36, pages: '1' } } },
    ),
    3,
  ],
];

/** Toolbox targets whose mutated bytes travel inside the request. */
const TOOLBOX_PAYLOAD: [string, readonly SeedKind[], unknown[][]][] = [
  ['merge.payload', PDF, tb('merge', { data: { format: 'pdf', value: '@@PAYLOAD@@' } }, { data: { format: 'pdf', value: '@@PAYLOAD@@' }, mode: 'beforePage', page: 1 })],
  ['merge.payloadZip', ['zip'], tb('merge', { data: { format: 'zip', value: '@@PAYLOAD@@' } })],
  [
    'watermark.payload',
    ['image'],
    tb('watermark', { image: { data: { value: '@@PAYLOAD@@' } } }, { image: { data: { value: '@@PAYLOAD@@' }, scale: 50, position: { position: 'custom', x: 10, y: 10 } } }),
  ],
  ['options.payload', ['image'], tb('options', { background: { add: { imageBackground: { image: { value: '@@PAYLOAD@@' } } } } })],
  [
    'forms.payload',
    ['xfdf', 'text'],
    tb(
      'forms',
      { import: { format: 'xfdf', data: { value: '@@PAYLOAD@@' } } },
      { import: { format: 'xml', data: { value: '@@PAYLOAD@@' } } },
      { import: { format: 'fdf', data: { value: '@@PAYLOAD@@' } } },
    ),
  ],
  ['xmp.payload', ['xmp'], tb('xmp', { dataFormat: 'xml', data: { value: '@@PAYLOAD@@' } })],
  ['attachment.payload', ALL, tb('attachment', { add: { file: [{ fileName: 'p.bin', data: { value: '@@PAYLOAD@@' }, annotation: { page: 1, point: { x: 10, y: 10 } } }] } })],
  ['portfolio.payload', ALL, tb('portfolio', { add: { file: [{ fileName: 'p.pdf', path: '/p', data: { value: '@@PAYLOAD@@' } }] } })],
  ['annotation.payloadPdf', PDF, tb('annotation', { add: { rubberstamp: [{ page: 1, position: { rectangle }, normalAppearance: { pdf: { data: { value: '@@PAYLOAD@@' } } } }] } })],
  ['annotation.payloadImage', ['image'], tb('annotation', { add: { rubberstamp: [{ page: 1, position: { rectangle }, normalAppearance: { image: { data: { value: '@@PAYLOAD@@' } } } }] } })],
  ['annotation.payloadSvg', ['svg'], tb('annotation', { add: { rubberstamp: [{ page: 1, position: { rectangle }, normalAppearance: { svg: { data: { value: '@@PAYLOAD@@' } } } }] } })],
];

const CONVERTER_OPTIONS: unknown[] = [
  {},
  { pages: '1', compression: false },
  { reduceResolution: true, dpi: 72, jpegQuality: 40 },
  { pdfa: { convert: { level: '2b' } } },
  { fileExtension: 'txt' },
  { image: { maintainAspectRatio: true }, page: { width: 100, height: 150 } },
  { mail: { attachmentMode: 'convertMerge' }, maxRecursion: 3 },
];

/** PDF/A: conversions of every family, the reports of a failed one, and validation (the report is a new document). */
const PDFA: Target[] = [
  {
    name: 'pdfa.convert',
    group: 'pdfa',
    documentKinds: PDF,
    variants: [
      { convert: { level: '2b' } },
      { convert: { level: '1b', errorReport: 'file' } },
      { convert: { level: '3b', successReport: 'zip', errorReport: 'message' } },
      { convert: { level: '2u', errorCorrection: { enabled: true } } },
      // The auto-tagger reads the page content itself (a path operand that was no number threw a TypeError).
      { convert: { level: '2a', autoTagging: true } },
    ],
    weight: 3,
  },
  { name: 'pdfa.analyze', group: 'pdfa', documentKinds: PDF, variants: [{ analyze: { level: '2b' } }, { analyze: { level: '1b' } }, { analyze: { level: '3a' } }], weight: 3 },
  { name: 'pdfa.analyzeXml', group: 'pdfa', documentKinds: PDF, variants: [{ analyze: { level: '2u' } }], query: 'reportFormat=xml', weight: 1 },
];

const visibleField = { page: 1, position: { x: 10, y: 10, width: 60, height: 20, metrics: 'mm' } };

/**
 * Signatures (the web service signs and clears; there is no verify operation): the server's own
 * generated key, a key pair sent with the call, a visible field; the mutated bytes as the field's
 * image and as the call's certificate.
 */
const SIGNATURE: Target[] = [
  {
    name: 'signature.sign',
    group: 'signature',
    documentKinds: PDF,
    variants: [
      { add: {} },
      { add: { certificationLevel: 'none', reason: 'Fuzz', location: 'Quire', appearance: { ...visibleField, identifier: 'Line 1\nZeile 2 äöü' } } },
      { add: { certificationLevel: 'formFillingAndSignatures', fieldName: 'Fuzz', signer: { keyPair: { certificate: { value: '@@SIGNCERT@@' }, privateKey: { value: '@@SIGNKEY@@' } } } } },
    ],
    weight: 3,
  },
  { name: 'signature.clear', group: 'signature', documentKinds: PDF, variants: [{ clear: {} }, { clear: { flatten: true } }], weight: 1 },
  {
    name: 'signature.payloadImage',
    group: 'signature',
    documentKinds: PDF,
    payloadKinds: ['image', 'svg'],
    variants: [{ add: { certificationLevel: 'none', appearance: { ...visibleField, image: { data: { value: '@@PAYLOAD@@' }, position: 'left' } } } }],
    weight: 2,
  },
  {
    name: 'signature.payloadCertificate',
    group: 'signature',
    documentKinds: PDF,
    payloadKinds: ['text', 'xmp', 'zip', 'image'],
    variants: [{ add: { certificationLevel: 'none', signer: { keyPair: { certificate: { value: '@@PAYLOAD@@' }, privateKey: { value: '@@SIGNKEY@@' } } } } }],
    weight: 1,
  },
];

/** OCR of scans and images (the seeds' text pages are skipped unless forceEachPage). */
const OCR: Target = {
  name: 'ocr',
  group: 'ocr',
  documentKinds: ['pdf', 'image'],
  variants: [
    {},
    { outputFormat: 'text', checkResolution: false },
    { outputFormat: 'hocr', imageDpi: 72, ocrMode: 'column' },
    { forceEachPage: true, language: 'deu', page: { width: 100, height: 100 } },
  ],
  weight: 3,
};

const BARCODE: Target[] = [
  {
    name: 'barcode.add',
    group: 'barcode',
    documentKinds: PDF,
    variants: [
      { add: { qrcode: [{ value: 'Quire fuzz', pages: '*' }] } },
      { add: { ean13: [{ value: '590123412345', position: { x: 10, y: 10, width: 40, height: 20 } }], code128: [{ value: 'ABC-123', rotation: 90, pages: 'last' }] } },
      { add: { datamatrix: [{ value: 'x', margin: 2 }], pdf417: [{ value: 'pdf417', rotation: 45 }], outputFormat: 'png', dpi: 72 } },
    ],
    weight: 3,
  },
  {
    name: 'barcode.detect',
    group: 'barcode',
    documentKinds: ['pdf', 'image'],
    variants: [
      { detect: {} },
      { detect: { inputFormat: 'img' } },
      { detect: { outputFormat: 'xml', selection: [{ formats: 'qrcode,ean13', pages: '1', resolution: 72 }] } },
      { detect: { selection: [{ formats: '', scanArea: { x: 0, y: 0, width: 50, height: 50 }, tryHarder: false }] } },
    ],
    weight: 3,
  },
  {
    name: 'barcode.payloadValue',
    group: 'barcode',
    documentKinds: PDF,
    payloadKinds: ['text', 'xfdf', 'html'],
    variants: [
      { add: { qrcode: [{ value: '@@PAYLOADTEXT@@' }] } },
      { add: { code128: [{ value: '@@PAYLOADTEXT@@' }], ean8: [{ value: '@@PAYLOADTEXT@@' }] } },
      { add: { aztec: [{ value: '@@PAYLOADTEXT@@', charset: 'iso-8859-1' }], codabar: [{ value: '@@PAYLOADTEXT@@' }] } },
    ],
    weight: 2,
  },
];

/**
 * URLs the urlconverter must refuse before any browser work (docs/urlconverter.md "Safe by default"):
 * internal addresses in every spelling the WHATWG parser normalises, `localhost`, the cloud metadata
 * address, schemes other than http(s), credentials in the URL, relative and empty URLs. None needs
 * DNS. Every call of this group must fail (execute.ts: a 2xx/3xx is a violation).
 */
export const REFUSED_URLS = [
  'http://127.0.0.1/',
  'http://127.1:8080/webPDF/rest/documents/list',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://0177.0.0.1/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://localhost/',
  'http://admin.localhost./',
  'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/',
  'http://192.168.1.1:8443/',
  'http://100.64.0.1/',
  'http://0.0.0.0/',
  'http://[fd00::1]/',
  'http://[::]/',
  'file:///etc/passwd',
  'file://localhost/etc/hostname',
  'data:text/html,<h1>x</h1>',
  'javascript:alert(1)',
  'ftp://127.0.0.1/',
  'chrome://version',
  'view-source:http://127.0.0.1/',
  'blob:http://127.0.0.1/1',
  'gopher://127.0.0.1:6379/_INFO',
  'http://user:pw@93.184.216.34/',
  '//127.0.0.1/',
  '/etc/passwd',
  '',
  ' ',
];

const URLCONVERTER: Target = {
  name: 'urlconverter',
  group: 'urlconverter',
  // The document is not used (the call takes none): the smallest seeds keep the upload cheap.
  documentKinds: ['text'],
  variants: REFUSED_URLS.map((url, i) => (i % 3 === 0 ? { url, page: { width: 100, height: 100, metrics: 'mm' } } : { url })),
  weight: 2,
};

/** Groups whose every call of the fuzzer must be refused (an answer below 400 is a violation). */
export const MUST_REFUSE: ReadonlySet<TargetGroup> = new Set(['urlconverter']);

export const TARGETS: Target[] = [
  { name: 'info', group: 'info', documentKinds: ALL, variants: [null], weight: 6 },
  { name: 'info.form', group: 'info', documentKinds: PDF, variants: [null], weight: 1 },
  { name: 'converter', group: 'converter', documentKinds: ALL, variants: CONVERTER_OPTIONS, weight: 10 },
  { name: 'extract', group: 'extract', documentKinds: ['zip', 'office'], variants: [{}, { fileFilter: { includeRules: [{ ruleType: 'glob', rulePattern: '**/*.pdf' }] } }], weight: 4 },
  ...TOOLBOX.map(([op, variants, weight]): Target => ({ name: `toolbox.${op}`, group: 'toolbox', documentKinds: PDF, variants, weight })),
  ...TOOLBOX_PAYLOAD.map(([name, kinds, variants]): Target => ({ name: `toolbox.${name}`, group: 'toolbox', documentKinds: PDF, payloadKinds: kinds, variants, weight: 2 })),
  ...PDFA,
  ...SIGNATURE,
  OCR,
  ...BARCODE,
  URLCONVERTER,
];

/** Chains of two or three toolbox operations as one call (a transaction over several engines). */
export const CHAIN_TARGET: Target = { name: 'toolbox.chain', group: 'toolbox', documentKinds: PDF, variants: [], weight: 3 };

export const CHAINABLE = TOOLBOX.filter(([op]) => op !== 'security' && op !== 'print').map(([, variants]) => variants);

/** The HTTP call of a target with its options (markers not yet replaced). */
export function callFor(target: Target, options: unknown, documentId: string): HttpCall {
  switch (target.group) {
    case 'info':
      return { method: 'GET', path: `documents/${documentId}/info${target.name === 'info.form' ? '/form' : ''}` };
    case 'converter':
      return { method: 'POST', path: `converter/${documentId}`, body: { converter: options } };
    case 'extract':
      return { method: 'POST', path: `documents/${documentId}/extract`, body: options };
    case 'toolbox':
      return { method: 'POST', path: `toolbox/${documentId}`, body: { toolbox: options } };
    case 'urlconverter':
      return { method: 'POST', path: 'urlconverter', body: { urlconverter: options } };
    case 'pdfa':
    case 'signature':
    case 'ocr':
    case 'barcode':
      return { method: 'POST', path: `${target.group}/${documentId}${target.query ? `?${target.query}` : ''}`, body: { [target.group]: options } };
  }
}

/** Replaces the markers of a request body. */
export function fillMarkers(body: unknown, values: Record<string, string>): unknown {
  if (body === undefined) return undefined;
  const json = JSON.stringify(body).replace(/@@([A-Z]+)@@/g, (whole, name: string) => values[name] ?? whole);
  return JSON.parse(json);
}

/** How long an answer may take: the configured limit of the work behind it (a margin is added by the caller). */
export function limitMs(group: TargetGroup | 'upload', limits: Limits): number {
  // Limits names each group's limit `<group>Ms` (the compiler checks that every group has one).
  return limits[`${group}Ms`];
}
