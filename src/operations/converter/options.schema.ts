import Type, { type TSchema } from 'typebox';
import { defaulted, withDefault, type Options } from '../option-schema.js';

/**
 * `Operation_Converter` and its members as webPDF defines them (reference §10.4): the one
 * declaration of the converter's options (validation, OpenAPI document, types, defaults). Every
 * member is optional with the reference's default; unknown members are ignored (the official clients
 * send every default explicitly, and newer clients may send more). The schemas with an `$id` are
 * OpenAPI components: http/schemas/converter.ts registers them, in this order.
 */

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

/**
 * A reference to a component (`{"$ref": "<$id>#"}`, as http/schemas/shared.ts `ref()` writes it),
 * typed as the component itself so that `Options<>` sees its members and defaults: ajv resolves the
 * reference and fills the defaults inside it.
 */
function refTo<T extends TSchema & { $id?: string }>(schema: T): T {
  if (!schema.$id) throw new Error('refTo() needs a schema with $id');
  return Type.Unsafe({ $ref: `${schema.$id}#` } as unknown as TSchema) as unknown as T;
}

const FileSource = withDefault(Type.Enum(['value', 'uri'], { default: 'value' }));
const Metrics = withDefault(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm' }));
const WrapMode = withDefault(Type.Enum(['auto', 'none', 'word', 'all'], { default: 'auto' }));
const FontOrigin = withDefault(Type.Enum(['system', 'folder'], { default: 'system' }));

function fileData<E extends Record<string, TSchema>>(id: string, extra: E) {
  return Type.Object({ source: opt(FileSource), uri: defaulted(Type.String({ default: '' })), value: opt(Type.String({ description: 'Base64 content' })), ...extra }, { $id: id });
}

const HeaderFooterHtml = { value: opt(Type.String({ description: 'Base64 of the HTML of the header or footer' })) };
export const ConverterHeader = fileData('Operation_ConverterHeader', HeaderFooterHtml);
export const ConverterFooter = fileData('Operation_ConverterFooter', HeaderFooterHtml);
export const TemplateData = fileData('Operation_TemplateData', {});

/** The reference's page box of the HTML renderers (converter and urlconverter): A4 with 20 mm margins by default. */
export const A4_PAGE_BOX = {
  width: defaulted(Type.Integer({ format: 'int32', default: 210 })),
  height: defaulted(Type.Integer({ format: 'int32', default: 297 })),
  left: defaulted(Type.Integer({ format: 'int32', default: 20 })),
  right: defaulted(Type.Integer({ format: 'int32', default: 20 })),
  top: defaulted(Type.Integer({ format: 'int32', default: 20 })),
  bottom: defaulted(Type.Integer({ format: 'int32', default: 20 })),
};

export const ConverterPage = Type.Object(
  {
    ...A4_PAGE_BOX,
    metrics: opt(Metrics),
    header: opt(refTo(ConverterHeader)),
    footer: opt(refTo(ConverterFooter)),
  },
  { $id: 'Operation_ConverterPage', description: 'Page size and margins for documents without their own layout (HTML, text, images, mail)' },
);

export const ConverterHtml = Type.Object(
  {
    adjustFonts: defaulted(Type.Boolean({ default: false })),
    baseURL: defaulted(Type.String({ default: '', description: 'base of relative references; fetching from it obeys the address policy' })),
    downloadImages: defaulted(Type.Boolean({ default: false, description: 'allow fetching remote resources (public addresses only unless configured)' })),
    errorReport: opt(
      Type.Object(
        { format: defaulted(Type.Enum(['xml', 'json'], { default: 'xml' })), mode: defaulted(Type.Enum(['none', 'message'], { default: 'none' })) },
        { description: 'Operation_ConverterHtmlErrorReport' },
      ),
    ),
    imageMode: defaulted(Type.Enum(['base64', 'file'], { default: 'base64' })),
    preferCSSPageSize: defaulted(Type.Boolean({ default: false })),
    templateData: opt(refTo(TemplateData)),
    useAsTemplate: defaulted(Type.Boolean({ default: false })),
    useBackground: defaulted(Type.Boolean({ default: true })),
  },
  { $id: 'Operation_ConverterHtml' },
);

export const ConverterMail = Type.Object(
  {
    adjustFonts: defaulted(Type.Boolean({ default: false })),
    attachmentMode: defaulted(Type.Enum(['embed', 'remove', 'convert', 'convertMerge', 'convertEmbed', 'convertMergeEmbed'], { default: 'embed' })),
    downloadImages: defaulted(Type.Boolean({ default: false })),
    ignoreMissingBodyChunk: defaulted(Type.Boolean({ default: false })),
    reduceImageSize: defaulted(Type.Boolean({ default: false })),
    resizeImages: defaulted(Type.Boolean({ default: false })),
    resizeTables: defaulted(Type.Boolean({ default: false })),
    useBackground: defaulted(Type.Boolean({ default: true })),
  },
  { $id: 'Operation_ConverterMail' },
);

export const ConverterImage = Type.Object({ maintainAspectRatio: defaulted(Type.Boolean({ default: false })) }, { $id: 'Operation_ConverterImage' });

export const ConverterOffice = Type.Object(
  {
    word: opt(
      Type.Object(
        { form: opt(Type.Object({ enabled: defaulted(Type.Boolean({ default: true })) }, { description: 'Operation_ConverterOfficeForm' })) },
        { description: 'Operation_ConverterOfficeWord' },
      ),
    ),
  },
  { $id: 'Operation_ConverterOffice' },
);

const textStyle = {
  fontFamily: defaulted(Type.String({ default: '' })),
  fontOrigin: opt(FontOrigin),
  fontSize: defaulted(Type.String({ default: '10px' })),
  lineHeight: defaulted(Type.String({ default: '12px' })),
  wordBreak: opt(WrapMode),
};

export const ConverterText = Type.Object(
  {
    syntaxHighlight: opt(
      Type.Object(
        {
          ...textStyle,
          available: defaulted(Type.String({ default: '' })),
          language: defaulted(Type.String({ default: '' })),
          lineNumbers: defaulted(Type.Boolean({ default: true })),
          relevance: defaulted(Type.Integer({ format: 'int32', default: 90 })),
        },
        { description: 'Operation_SyntaxHighlight' },
      ),
    ),
    textHighlight: opt(
      Type.Object({ ...textStyle, color: defaulted(Type.String({ default: '#000000' })), lineNumbers: defaulted(Type.Boolean({ default: false })) }, { description: 'Operation_TextHighlight' }),
    ),
    useSyntaxDetection: defaulted(Type.Boolean({ default: false })),
  },
  { $id: 'Operation_ConverterText' },
);

export const ConverterReport = Type.Object(
  {
    contentProblems: defaulted(Type.Boolean({ default: false })),
    fontAliasUsage: defaulted(Type.Boolean({ default: false })),
    fontIsMissing: defaulted(Type.Boolean({ default: false })),
  },
  { $id: 'Operation_ConverterReport' },
);

const PdfaLevel = withDefault(Type.Enum(['1a', '1b', '2a', '2b', '2u', '3a', '3b', '3u'], { default: '3b' }));

export const Pdfa = Type.Object(
  {
    convert: opt(
      Type.Object(
        {
          level: opt(PdfaLevel),
          autoTagging: defaulted(Type.Boolean({ default: false })),
          errorReport: defaulted(Type.Enum(['none', 'file', 'message'], { default: 'none' })),
          successReport: defaulted(Type.Enum(['none', 'zip', 'linked'], { default: 'none' })),
          imageQuality: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 100, default: 75 })),
          errorCorrection: opt(Type.Object({ enabled: defaulted(Type.Boolean({ default: false })) })),
          zugferd: opt(
            Type.Object(
              {
                xmlFile: Type.Object(
                  {
                    source: opt(FileSource),
                    uri: defaulted(Type.String({ default: '' })),
                    value: opt(Type.String({ description: 'Base64 of the ZUGFeRD/Factur-X invoice XML' })),
                    version: opt(Type.String({ default: 'v10Comfort', description: 'Operation_ZugferdVersion: v10Comfort, v20Minimum … v23XRechnung (operations/pdfa/zugferd.ts)' })),
                  },
                  { description: 'Operation_ZugferdFileData' },
                ),
              },
              { description: 'Operation_Zugferd: PDF/A-3 levels only' },
            ),
          ),
        },
        { description: 'Operation_ConvertPdfa' },
      ),
    ),
    analyze: opt(Type.Object({ level: opt(PdfaLevel) }, { description: 'Operation_AnalyzePdfa' })),
  },
  { $id: 'Operation_Pdfa' },
);

/** Free-form members the converter reads only to refuse them clearly (see the converter options check). */
const Opaque = (description: string) => Type.Object({}, { description });

export const Converter = Type.Object(
  {
    pages: defaulted(Type.String({ default: '', description: 'pages to keep: "" or "*" = all, "1-3,5", "last"' })),
    embedFonts: defaulted(Type.Boolean({ default: false })),
    compression: defaulted(Type.Boolean({ default: true })),
    reduceResolution: defaulted(Type.Boolean({ default: false })),
    dpi: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 9600, default: 300 })),
    jpegQuality: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 100, default: 90 })),
    fileExtension: defaulted(Type.String({ default: '', description: 'forces the input type (e.g. "txt", "html"), skipping content detection' })),
    accessPassword: defaulted(Type.String({ default: '', description: 'password that opens a protected Office document' })),
    maxRecursion: defaulted(Type.Integer({ format: 'int32', minimum: 1, default: 1, description: 'depth of converting attachments (mail)' })),
    page: opt(refTo(ConverterPage)),
    html: opt(refTo(ConverterHtml)),
    mail: opt(refTo(ConverterMail)),
    image: opt(refTo(ConverterImage)),
    office: opt(refTo(ConverterOffice)),
    text: opt(refTo(ConverterText)),
    report: opt(refTo(ConverterReport)),
    pdfa: opt(refTo(Pdfa)),
    signature: opt(Opaque('Operation_Signature: a signing step after the conversion')),
    template: opt(Opaque('Operation_ConverterTemplate')),
    transform: opt(Opaque('Operation_ConverterTransform')),
    officeBridge: opt(Opaque('Operation_OfficeBridge')),
    sharePointBridge: opt(Opaque('Operation_SharePointBridge')),
  },
  { $id: 'Operation_Converter' },
);

/** `Operation_Converter` as the converter receives it: validated, defaults filled. */
export type ConverterOptions = Options<typeof Converter>;
