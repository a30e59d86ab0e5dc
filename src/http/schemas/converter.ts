import Type, { type TSchema } from 'typebox';
import { PdfPassword } from './document-operations.js';
import { component, ref } from './shared.js';

/**
 * `Operation_ConverterOperation` and its members as webPDF defines them (reference §10.4). Every
 * member is optional with the reference's default; unknown members are ignored (the official clients
 * send every default explicitly, and newer clients may send more).
 */

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const FileSource = Type.Enum(['value', 'uri'], { default: 'value' });
const Metrics = Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm' });
const WrapMode = Type.Enum(['auto', 'none', 'word', 'all'], { default: 'auto' });
const FontOrigin = Type.Enum(['system', 'folder'], { default: 'system' });

function fileData(id: string, extra: Record<string, TSchema> = {}) {
  return component(
    Type.Object(
      { source: opt(FileSource), uri: opt(Type.String({ default: '' })), value: opt(Type.String({ description: 'Base64 content' })), ...extra },
      { $id: id },
    ),
  );
}

const HeaderFooterHtml = { value: opt(Type.String({ description: 'Base64 of the HTML of the header or footer' })) };
export const ConverterHeader = fileData('Operation_ConverterHeader', HeaderFooterHtml);
export const ConverterFooter = fileData('Operation_ConverterFooter', HeaderFooterHtml);
export const TemplateData = fileData('Operation_TemplateData');

export const ConverterPage = component(
  Type.Object(
    {
      width: opt(Type.Integer({ format: 'int32', default: 210 })),
      height: opt(Type.Integer({ format: 'int32', default: 297 })),
      left: opt(Type.Integer({ format: 'int32', default: 20 })),
      right: opt(Type.Integer({ format: 'int32', default: 20 })),
      top: opt(Type.Integer({ format: 'int32', default: 20 })),
      bottom: opt(Type.Integer({ format: 'int32', default: 20 })),
      metrics: opt(Metrics),
      header: opt(ref(ConverterHeader)),
      footer: opt(ref(ConverterFooter)),
    },
    { $id: 'Operation_ConverterPage', description: 'Page size and margins for documents without their own layout (HTML, text, images, mail)' },
  ),
);

export const ConverterHtml = component(
  Type.Object(
    {
      adjustFonts: opt(Type.Boolean({ default: false })),
      baseURL: opt(Type.String({ default: '', description: 'base of relative references; fetching from it obeys the address policy' })),
      downloadImages: opt(Type.Boolean({ default: false, description: 'allow fetching remote resources (public addresses only unless configured)' })),
      errorReport: opt(
        Type.Object(
          { format: opt(Type.Enum(['xml', 'json'], { default: 'xml' })), mode: opt(Type.Enum(['none', 'message'], { default: 'none' })) },
          { description: 'Operation_ConverterHtmlErrorReport' },
        ),
      ),
      imageMode: opt(Type.Enum(['base64', 'file'], { default: 'base64' })),
      preferCSSPageSize: opt(Type.Boolean({ default: false })),
      templateData: opt(ref(TemplateData)),
      useAsTemplate: opt(Type.Boolean({ default: false })),
      useBackground: opt(Type.Boolean({ default: true })),
    },
    { $id: 'Operation_ConverterHtml' },
  ),
);

export const ConverterMail = component(
  Type.Object(
    {
      adjustFonts: opt(Type.Boolean({ default: false })),
      attachmentMode: opt(Type.Enum(['embed', 'remove', 'convert', 'convertMerge', 'convertEmbed', 'convertMergeEmbed'], { default: 'embed' })),
      downloadImages: opt(Type.Boolean({ default: false })),
      ignoreMissingBodyChunk: opt(Type.Boolean({ default: false })),
      reduceImageSize: opt(Type.Boolean({ default: false })),
      resizeImages: opt(Type.Boolean({ default: false })),
      resizeTables: opt(Type.Boolean({ default: false })),
      useBackground: opt(Type.Boolean({ default: true })),
    },
    { $id: 'Operation_ConverterMail' },
  ),
);

export const ConverterImage = component(
  Type.Object({ maintainAspectRatio: opt(Type.Boolean({ default: false })) }, { $id: 'Operation_ConverterImage' }),
);

export const ConverterOffice = component(
  Type.Object(
    {
      word: opt(
        Type.Object(
          { form: opt(Type.Object({ enabled: opt(Type.Boolean({ default: true })) }, { description: 'Operation_ConverterOfficeForm' })) },
          { description: 'Operation_ConverterOfficeWord' },
        ),
      ),
    },
    { $id: 'Operation_ConverterOffice' },
  ),
);

const textStyle = {
  fontFamily: opt(Type.String({ default: '' })),
  fontOrigin: opt(FontOrigin),
  fontSize: opt(Type.String({ default: '10px' })),
  lineHeight: opt(Type.String({ default: '12px' })),
  wordBreak: opt(WrapMode),
};

export const ConverterText = component(
  Type.Object(
    {
      syntaxHighlight: opt(
        Type.Object(
          {
            ...textStyle,
            available: opt(Type.String({ default: '' })),
            language: opt(Type.String({ default: '' })),
            lineNumbers: opt(Type.Boolean({ default: true })),
            relevance: opt(Type.Integer({ format: 'int32', default: 90 })),
          },
          { description: 'Operation_SyntaxHighlight' },
        ),
      ),
      textHighlight: opt(
        Type.Object(
          { ...textStyle, color: opt(Type.String({ default: '#000000' })), lineNumbers: opt(Type.Boolean({ default: false })) },
          { description: 'Operation_TextHighlight' },
        ),
      ),
      useSyntaxDetection: opt(Type.Boolean({ default: false })),
    },
    { $id: 'Operation_ConverterText' },
  ),
);

export const ConverterReport = component(
  Type.Object(
    {
      contentProblems: opt(Type.Boolean({ default: false })),
      fontAliasUsage: opt(Type.Boolean({ default: false })),
      fontIsMissing: opt(Type.Boolean({ default: false })),
    },
    { $id: 'Operation_ConverterReport' },
  ),
);

const PdfaLevel = Type.Enum(['1a', '1b', '2a', '2b', '2u', '3a', '3b', '3u'], { default: '3b' });

export const Pdfa = component(
  Type.Object(
    {
      convert: opt(
        Type.Object(
          {
            level: opt(PdfaLevel),
            autoTagging: opt(Type.Boolean({ default: false })),
            errorReport: opt(Type.Enum(['none', 'file', 'message'], { default: 'none' })),
            successReport: opt(Type.Enum(['none', 'zip', 'linked'], { default: 'none' })),
            imageQuality: opt(Type.Integer({ format: 'int32', minimum: 0, maximum: 100, default: 75 })),
            errorCorrection: opt(Type.Object({ enabled: opt(Type.Boolean({ default: false })) })),
            zugferd: opt(Type.Object({}, { description: 'Operation_Zugferd' })),
          },
          { description: 'Operation_ConvertPdfa' },
        ),
      ),
      analyze: opt(Type.Object({ level: opt(PdfaLevel) }, { description: 'Operation_AnalyzePdfa' })),
    },
    { $id: 'Operation_Pdfa' },
  ),
);

/** Free-form members the converter reads only to refuse them clearly (see the converter options check). */
const Opaque = (description: string) => Type.Object({}, { description });

export const Converter = component(
  Type.Object(
    {
      pages: opt(Type.String({ default: '', description: 'pages to keep: "" or "*" = all, "1-3,5", "last"' })),
      embedFonts: opt(Type.Boolean({ default: false })),
      compression: opt(Type.Boolean({ default: true })),
      reduceResolution: opt(Type.Boolean({ default: false })),
      dpi: opt(Type.Integer({ format: 'int32', minimum: 0, maximum: 9600, default: 300 })),
      jpegQuality: opt(Type.Integer({ format: 'int32', minimum: 0, maximum: 100, default: 90 })),
      fileExtension: opt(Type.String({ default: '', description: 'forces the input type (e.g. "txt", "html"), skipping content detection' })),
      accessPassword: opt(Type.String({ default: '', description: 'password that opens a protected Office document' })),
      maxRecursion: opt(Type.Integer({ format: 'int32', minimum: 1, default: 1, description: 'depth of converting attachments (mail)' })),
      page: opt(ref(ConverterPage)),
      html: opt(ref(ConverterHtml)),
      mail: opt(ref(ConverterMail)),
      image: opt(ref(ConverterImage)),
      office: opt(ref(ConverterOffice)),
      text: opt(ref(ConverterText)),
      report: opt(ref(ConverterReport)),
      pdfa: opt(ref(Pdfa)),
      signature: opt(Opaque('Operation_Signature: a signing step after the conversion')),
      template: opt(Opaque('Operation_ConverterTemplate')),
      transform: opt(Opaque('Operation_ConverterTransform')),
      officeBridge: opt(Opaque('Operation_OfficeBridge')),
      sharePointBridge: opt(Opaque('Operation_SharePointBridge')),
    },
    { $id: 'Operation_Converter' },
  ),
);

export const Billing = component(
  Type.Object(
    {
      applicationName: opt(Type.String({ default: 'external' })),
      customerCode: opt(Type.String({ default: '' })),
      userName: opt(Type.String({ default: '' })),
    },
    { $id: 'Operation_Billing' },
  ),
);

export const Settings = component(Type.Object({}, { $id: 'Operation_Settings', description: 'Compression, HTTP, PDF/A and signature profiles (see the reference)' }));

export const ConverterOperation = component(
  Type.Object(
    {
      converter: ref(Converter),
      password: opt(ref(PdfPassword)),
      billing: opt(ref(Billing)),
      settings: opt(ref(Settings)),
    },
    { $id: 'Operation_ConverterOperation' },
  ),
);
