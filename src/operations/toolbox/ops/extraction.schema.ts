import Type, { type TSchema } from 'typebox';
import { defaulted, withDefault, type Options } from '../../option-schema.js';

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

const FileFormat = (defaultValue: 'xml' | 'zip', description: string) =>
  withDefault(Type.Enum(['text', 'xml', 'json', 'zip'], { default: defaultValue, description: `Operation_ExtractionFileFormat: ${description}` }));

const pages = () => defaulted(Type.String({ default: '', description: 'pages to extract from: "1-3,5", "last"; "" or "*" for all' }));
const textual = 'text, xml or json (zip is refused with -14: it is the format of images)';

/** `Operation_ToolboxExtraction.extraction` (reference §10.9.5): exactly one of the members; the result replaces the document. */
export const extractionOptions = Type.Object(
  {
    images: opt(
      Type.Object(
        {
          fallbackFormat: defaulted(Type.Enum(['png', 'jpeg'], { default: 'png', description: 'Operation_ExtractionImageFormat: format of images not stored as JPEG' })),
          fileFormat: opt(FileFormat('zip', 'zip: the image files in a folder per page; text, xml, json: a listing of the images')),
          fileNameTemplate: defaulted(Type.String({ default: 'file[%d]', description: 'image file names; %d is the number of the image on its page' })),
          folderNameTemplate: defaulted(Type.String({ default: 'page[%d]', description: 'folder names; %d is the page number' })),
          pages: pages(),
        },
        { description: 'Operation_ExtractionImages' },
      ),
    ),
    info: opt(
      Type.Object(
        { fileFormat: opt(FileFormat('xml', `${textual}; JSON: {"document": Metadata_Document}`)), pages: pages() },
        { description: 'Operation_ExtractionInfo: document metadata; pages selects the pages and images listed' },
      ),
    ),
    links: opt(
      Type.Object(
        {
          fileFormat: opt(FileFormat('xml', textual)),
          pages: pages(),
          text: opt(
            Type.Object(
              {
                fromText: defaulted(Type.Boolean({ default: false, description: 'also report URLs written in the text' })),
                protocol: defaulted(Type.String({ default: '', description: 'schemes text links must have, e.g. "https" or "http,https"; "" for any' })),
                withoutProtocol: defaulted(Type.Boolean({ default: true, description: 'also report text links without a scheme (www.… and e-mail addresses)' })),
              },
              { description: 'Operation_TextExtractionLinks' },
            ),
          ),
        },
        { description: 'Operation_ExtractionLinks: link annotations (and with text.fromText, links in the text)' },
      ),
    ),
    paragraphs: opt(Type.Object({ fileFormat: opt(FileFormat('xml', textual)), pages: pages() }, { description: 'Operation_ExtractionParagraphs' })),
    text: opt(Type.Object({ fileFormat: opt(FileFormat('xml', textual)), pages: pages() }, { description: 'Operation_ExtractionText' })),
    words: opt(
      Type.Object(
        {
          delimitAfterPunctuation: defaulted(Type.Boolean({ default: true, description: 'a word ends after punctuation followed by more characters ("end.Next" → "end." "Next")' })),
          extendedSequenceCharacters: defaulted(
            Type.Boolean({ default: false, description: 'connectors between letters or digits (- \' _ . , : / @ &) join a word ("e-mail", "3.14") instead of ending it' }),
          ),
          fileFormat: opt(FileFormat('xml', textual)),
          pages: pages(),
          removePunctuation: defaulted(Type.Boolean({ default: false, description: 'drop punctuation from the words' })),
        },
        { description: 'Operation_ExtractionWords' },
      ),
    ),
  },
  { description: 'Operation_ToolboxExtraction.extraction' },
);

export type ExtractionOptions = Options<typeof extractionOptions>;
