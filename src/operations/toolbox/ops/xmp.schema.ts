import Type from 'typebox';
import { base64FileData } from './file-data.schema.js';
import { defaulted, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxXmp.xmp` (reference §10.9.16): XMP metadata from Base64 `data`. `json` (the
 * default): an array of `{propertyName, propertyType, propertyCategory, propertyDescription,
 * propertyValue}` added under `namespace` to the document's packet, with a PDF/A extension schema;
 * `xml`: a complete XMP packet (x:xmpmeta or rdf:RDF) that replaces the document's.
 */
export const xmpOptions = Type.Object(
  {
    data: base64FileData('Operation_XmpFileData', Type.Optional(Type.String({ description: 'Base64 of the JSON property array or of the XMP packet' }))),
    dataFormat: defaulted(Type.Enum(['json', 'xml'], { default: 'json', description: 'Operation_XmpDataFormat' })),
    namespace: Type.Optional(
      Type.Object(
        {
          namespaceName: defaulted(Type.String({ default: '', description: 'the schema\'s name, e.g. "webPDF XMP Properties" (pdfaSchema:schema)' })),
          namespacePrefix: defaulted(Type.String({ default: '', description: 'e.g. "webpdf"' })),
          namespaceURI: defaulted(Type.String({ default: '', description: 'e.g. "http://ns.webpdf.de/webpdf/6.0/"' })),
        },
        { description: 'Operation_XmpNamespace: required for dataFormat json; for xml a given namespaceURI must occur in the packet' },
      ),
    ),
  },
  { description: 'Operation_ToolboxXmp.xmp' },
);

export type XmpOptions = Options<typeof xmpOptions>;
