import Type, { type TProperties } from 'typebox';
import { defaulted, type Options } from '../option-schema.js';
import { bool, int, opt, Rectangle, str } from '../toolbox/schema-types.js';
import { operationEnvelope, type OperationRequest } from '../webservice.js';

/**
 * `Operation_BarcodeOperation` (reference §10.6): `POST barcode/{documentId}` and `POST barcode/new`
 * with `{"barcode":{"add":…}}` or `{"barcode":{"detect":…}}`. The rectangle is the toolbox's
 * `Operation_Rectangle` (x/y/width/height, `metrics`, `coordinates` user/pdf). Unknown members are
 * allowed everywhere (reference §5.3). docs/barcode.md describes what each member does here.
 */

const Position = opt(Rectangle);

/** The members every symbology has. */
function item(name: string, extra: TProperties = {}) {
  return Type.Object(
    {
      value: Type.String({ description: 'the text to encode (required; the rules of the symbology apply: docs/barcode.md)' }),
      charset: opt(str('utf-8 (default), iso-8859-1 or us-ascii: how the text becomes the bytes of 2D codes')),
      margin: defaulted(int({ default: 0, minimum: 0, description: 'quiet zone around the code, in modules (inside the position rectangle)' })),
      pages: opt(str('pages to stamp: "" or "*" all, "1-3,5", "last"')),
      position: Position,
      rotation: defaulted(int({ default: 0, minimum: 0, description: 'degrees, clockwise as seen; the rectangle is the turned code footprint' })),
      ...extra,
    },
    { description: name },
  );
}

const Shape = defaulted(Type.Enum(['default', 'rectangle', 'square'], { default: 'default', description: 'Operation_DataMatrixShape' }));

export const AztecItem = item('Operation_AztecBarcode', {
  errorCorrection: defaulted(int({ default: 7, minimum: 1, maximum: 100, description: 'percent of error-correction words (the generator takes 5-95)' })),
  layers: defaulted(int({ default: 0, minimum: -4, maximum: 32, description: 'negative: compact with that many layers; 0: automatic' })),
});
export const DataMatrixItem = item('Operation_DataMatrixBarcode', {
  compact: opt(bool(false, 'accepted; ECC 200 has no compact form')),
  errorCorrection: defaulted(int({ default: 2, minimum: 1, maximum: 8, description: 'accepted; ECC 200 fixes its error correction by the symbol size' })),
  gs1: opt(bool(false, 'GS1 DataMatrix: the value gives application identifiers in parentheses, "(01)09501101530003"')),
  shape: Shape,
});
export const Pdf417Item = item('Operation_Pdf417Barcode', {
  compact: opt(bool(false, 'compact (truncated) PDF417')),
  compactionMode: defaulted(Type.Enum(['text', 'numeric', 'byte', 'auto'], { default: 'auto', description: 'Operation_Pdf417CompactionMode; the generator chooses the compaction (auto)' })),
  dataCodewordsMax: defaulted(int({ default: 0, minimum: 0 })),
  dataCodewordsMin: defaulted(int({ default: 0, minimum: 0 })),
  errorCorrection: defaulted(int({ default: 2, minimum: 0, maximum: 8, description: 'error-correction level 0-8' })),
  shape: Shape,
  symbolsPerCodewordMax: defaulted(int({ default: 0, minimum: 0 })),
  symbolsPerCodewordMin: defaulted(int({ default: 0, minimum: 0 })),
});
export const QrItem = item('Operation_QrBarcode', {
  errorCorrection: defaulted(Type.Enum(['l', 'm', 'q', 'h'], { default: 'l', description: 'Operation_QrCodeErrorCorrection' })),
});
/** The linear symbologies' items: the reference's members, and the human-readable text (a Quire extension). */
export const LinearItem = (name: string) =>
  item(name, {
    showText: opt(
      bool(
        false,
        'Quire extension: print the human-readable text under the bars as real PDF text (Helvetica), laid out by the symbology convention (EAN/UPC digit groups); the text takes the bottom of the position rectangle',
      ),
    ),
  });

/** `Operation_QrSwissPaymentBarcode`: a Swiss QR bill (docs/barcode.md, "Swiss QR bill"). */
export const QrSwissItem = Type.Object(
  {
    content: Type.Object(
      {
        format: defaulted(Type.Enum(['plain', 'json'], { default: 'json', description: 'plain: the QR payload text (SPC, one element a line); json: the bill data as docs/barcode.md shows' })),
        source: defaulted(Type.Enum(['value', 'uri'], { default: 'value', description: 'Operation_FileDataSource: only value (Base64) is accepted; uri is refused (-104)' })),
        uri: opt(str()),
        value: opt(str('the content, Base64-encoded (UTF-8)')),
      },
      { description: 'Operation_QrSwissPaymentContent' },
    ),
    dpi: defaulted(int({ default: 200, minimum: 1, description: 'accepted; the bill is drawn as vectors (image outputs use barcode.add.dpi)' })),
    format: defaulted(
      Type.Enum(['codeOnly', 'billOnly', 'billPortraitSheet', 'billExtraSpace'], {
        default: 'codeOnly',
        description: 'Operation_QrSwissPaymentFormat: the QR code 46 × 46 mm, the bill 210 × 105 mm, an A4 portrait sheet with the bill at its foot, or the bill with 5 mm above it (210 × 110 mm)',
      }),
    ),
    language: defaulted(Type.Enum(['de', 'fr', 'it', 'en'], { default: 'de', description: 'Operation_QrSwissPaymentLanguage' })),
    pdf: opt(
      Type.Object(
        {
          mode: defaulted(
            Type.Enum(['insertBefore', 'appendAtEnd', 'addToPage'], {
              default: 'appendAtEnd',
              description: "Operation_QrSwissPaymentPdfMode: a new page of the format's size before `page` or after the last page, or drawn onto `page` at `position`",
            }),
          ),
          page: defaulted(int({ default: 1, minimum: 1 })),
        },
        { description: 'Operation_QrSwissPaymentPdf' },
      ),
    ),
    position: Position,
    separator: defaulted(
      Type.Enum(['none', 'solidLine', 'solidLineWithScissors', 'dashedLine', 'dashedLineWithScissors', 'dottedLine', 'dottedLineWithScissors'], {
        default: 'dashedLineWithScissors',
        description: 'Operation_QrSwissPaymentSeparator: the lines between receipt, payment part and the rest of the sheet',
      }),
    ),
  },
  { description: 'Operation_QrSwissPaymentBarcode' },
);

export const AddBarcode = Type.Object(
  {
    aztec: opt(Type.Array(AztecItem)),
    codabar: opt(Type.Array(LinearItem('Operation_CodabarBarcode'))),
    code128: opt(Type.Array(LinearItem('Operation_Code128Barcode'))),
    code39: opt(Type.Array(LinearItem('Operation_Code39Barcode'))),
    datamatrix: opt(Type.Array(DataMatrixItem)),
    ean13: opt(Type.Array(LinearItem('Operation_Ean13Barcode'))),
    ean8: opt(Type.Array(LinearItem('Operation_Ean8Barcode'))),
    itf: opt(Type.Array(LinearItem('Operation_ItfBarcode'))),
    pdf417: opt(Type.Array(Pdf417Item)),
    qrcode: opt(Type.Array(QrItem)),
    qrswiss: opt(Type.Array(QrSwissItem)),
    upca: opt(Type.Array(LinearItem('Operation_UpcaBarcode'))),
    outputFormat: defaulted(
      Type.Enum(['pdf', 'bmp', 'jpg', 'png', 'tif'], {
        default: 'pdf',
        description: 'Operation_BarcodeCreateOutputFormat: pdf stamps the codes; an image format makes the result an image holding only the codes',
      }),
    ),
    dpi: defaulted(int({ default: 300, minimum: 36, maximum: 1200, description: 'Quire extension: resolution of the image outputFormat makes' })),
  },
  { description: 'Operation_AddBarcode' },
);

export const BarcodeSelection = Type.Object(
  {
    formats: Type.String({ description: 'comma-separated symbology names as in add (qrcode, ean13, …); "" = all' }),
    allowedLengths: opt(str()),
    barcode39CheckDigit: opt(bool(false)),
    charset: opt(str()),
    codabarStartEndDigits: opt(bool(false)),
    gs1: opt(bool(false)),
    pages: opt(str()),
    pureBarcode: opt(bool(false)),
    resolution: defaulted(int({ default: 200, minimum: 1 })),
    scanArea: Position,
    tryHarder: opt(bool(true)),
    upcEanExtensions: opt(str()),
  },
  { description: 'Operation_BarcodeSelection' },
);

export const DetectBarcode = Type.Object(
  {
    inputFormat: defaulted(Type.Enum(['pdf', 'img'], { default: 'pdf', description: 'Operation_BarcodeDetectInputFormat' })),
    outputFormat: defaulted(Type.Enum(['xml', 'json'], { default: 'json', description: 'Operation_BarcodeDetectOutputFormat' })),
    selection: opt(Type.Array(BarcodeSelection)),
  },
  { description: 'Operation_DetectBarcode' },
);

export const Barcode = Type.Object({ add: opt(AddBarcode), detect: opt(DetectBarcode) }, { $id: 'Operation_Barcode' });

export type BarcodeOptions = Options<typeof Barcode>;
export type AddOptions = NonNullable<BarcodeOptions['add']>;
export type DetectOptions = NonNullable<BarcodeOptions['detect']>;
export type SelectionOptions = Options<typeof BarcodeSelection>;
export type QrSwissOptions = Options<typeof QrSwissItem>;

export const BarcodeOperation = operationEnvelope<BarcodeOptions>('barcode', 'Operation_Barcode');

export type BarcodeRequest = OperationRequest<'barcode', BarcodeOptions>;
