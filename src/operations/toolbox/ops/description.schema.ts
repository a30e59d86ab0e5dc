import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxDescription.description` (reference §10.9.4): the document information
 * dictionary, kept in step with the XMP metadata where the document has some. Empty strings leave a
 * field as it is, unless `allowEmptyValues` is true: then they clear it.
 */
const text = (description: string) => defaulted(Type.String({ default: '', maxLength: 32_768, description }));

export const descriptionOptions = Type.Object(
  {
    allowEmptyValues: defaulted(Type.Boolean({ default: false, description: 'true: an empty string removes the field; false: empty strings are ignored' })),
    author: text('/Author (XMP dc:creator)'),
    creator: text('/Creator, the application that made the original (XMP xmp:CreatorTool)'),
    custom: Type.Optional(
      Type.Array(
        Type.Object(
          {
            key: defaulted(
              Type.String({ default: '', maxLength: 127, description: 'the entry name, e.g. "Company"; CreationDate, ModDate (dates) and Trapped (True/False/Unknown) are accepted too' }),
            ),
            remove: defaulted(Type.Boolean({ default: false, description: 'removes the entry' })),
            value: defaulted(Type.String({ default: '', maxLength: 32_768 })),
          },
          { description: 'Operation_DescriptionCustom' },
        ),
        { maxItems: 1000 },
      ),
    ),
    keywords: text('/Keywords (XMP pdf:Keywords)'),
    producer: text('/Producer (XMP pdf:Producer)'),
    subject: text('/Subject (XMP dc:description)'),
    title: text('/Title (XMP dc:title)'),
  },
  { description: 'Operation_ToolboxDescription.description' },
);

export type DescriptionOptions = Options<typeof descriptionOptions>;
