import Type, { type TSchema } from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';
import { svgFormatMembers } from './image.schema.js';

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** `Operation_ToolboxTranscribe.transcribe` (reference §10.9.22): the PDF as self-contained HTML (pages drawn as SVG under a text layer). */
export const transcribeOptions = Type.Object(
  {
    errorReport: defaulted(
      Type.Enum(['none', 'file', 'message'], {
        default: 'none',
        description: 'Operation_TranscribeErrorReport: on failure, none: -102; message: -102 with the messages; file: the XML report becomes the document',
      }),
    ),
    failureLevel: defaulted(
      Type.Enum(['warning', 'missingContent', 'error'], {
        default: 'error',
        description: 'Operation_Failure: fail on poppler diagnostics (warning), on text without Unicode mapping (missingContent) or only on pages that cannot be drawn (error)',
      }),
    ),
    html: opt(
      Type.Object(
        {
          dpi: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 9600, default: 72, description: 'pixels per inch of the pages in the HTML; 0 means 72' })),
          pages: defaulted(Type.String({ default: '1', description: 'pages to transcribe: "1-3,5", "last", "*" or "" for all' })),
          svgFormat: opt(Type.Object(svgFormatMembers(), { description: "Operation_SvgFormat: how the pages' SVG is written" })),
        },
        { description: 'Operation_HtmlTranscribe' },
      ),
    ),
    successReport: defaulted(
      Type.Enum(['none', 'zip', 'linked'], {
        default: 'none',
        description: 'Operation_TranscribeSuccessReport: zip: document.html and report.xml in a ZIP; linked: the report embedded in the HTML as a data URL',
      }),
    ),
  },
  { description: 'Operation_ToolboxTranscribe.transcribe' },
);

export type TranscribeOptions = Options<typeof transcribeOptions>;
