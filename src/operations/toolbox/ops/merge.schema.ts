import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxMerge.merge` (reference §10.9.8): inserts other PDFs into the document. `data` is
 * required by the reference, but optional here because `sourceIsZip` may stand in for it (the
 * operation answers -14 when both are missing).
 */
const MergeFileData = Type.Object(
  {
    format: defaulted(
      Type.Enum(['pdf', 'zip', 'id'], {
        default: 'pdf',
        description: 'pdf: one Base64 PDF; zip: a Base64 ZIP of PDFs; id: Base64 of a ";"-separated list of documentIds of this session',
      }),
    ),
    outlineName: defaulted(Type.String({ default: '', description: 'slash-separated bookmark path ("A/B/name") the inserted documents\' bookmarks go under' })),
    source: defaulted(Type.Enum(['value', 'uri'], { default: 'value', description: '"uri" is refused (-104): send the content in value' })),
    uri: defaulted(Type.String({ default: '' })),
    value: Type.Optional(Type.String({ description: 'Base64 content (see format)' })),
  },
  { description: 'Operation_MergeFileData' },
);

export const mergeOptions = Type.Object(
  {
    data: Type.Optional(MergeFileData),
    mode: defaulted(Type.Enum(['atTheEnd', 'atTheBeginning', 'afterPage', 'beforePage'], { default: 'atTheEnd', description: 'where the inserted pages go; afterPage/beforePage use page' })),
    outlineName: defaulted(Type.String({ default: '', description: "slash-separated bookmark path the document's own bookmarks go under" })),
    page: defaulted(Type.Integer({ format: 'int32', minimum: 1, default: 1, description: 'the page of afterPage/beforePage' })),
    removeStaticXFA: defaulted(Type.Boolean({ default: false, description: 'drop XFA and usage rights so that an XFA document can be merged (refused otherwise)' })),
    resetMetadata: defaulted(Type.Boolean({ default: false, description: 'replace the document information and drop the XMP metadata' })),
    sourceIsZip: defaulted(Type.Boolean({ default: false, description: 'the document is a ZIP of PDFs: its first PDF is the base, the others are appended' })),
  },
  { description: 'Operation_ToolboxMerge.merge' },
);

export type MergeOptions = Options<typeof mergeOptions>;
