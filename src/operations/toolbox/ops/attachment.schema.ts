import Type from 'typebox';
import { base64FileData } from './file-data.schema.js';
import { defaulted, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxAttachment.attachment` (reference §10.9.2): `remove`, then `add`, then
 * `extract` (which makes the selected files the result: the file itself, or a ZIP).
 */
const str = (description?: string) => defaulted(Type.String({ default: '', ...(description ? { description } : {}) }));

const Selection = Type.Object(
  {
    context: defaulted(Type.Enum(['page', 'document', 'all'], { default: 'all', description: "Operation_Context: page = file attachment annotations, document = the document's embedded files" })),
    fileMask: str('file names to select: "*" and "?" wildcards, case-insensitive; "" = all'),
    pages: str('pages whose annotations are selected ("1-3,5", "last"; "" = all); only for context page or all'),
  },
  { description: 'Operation_SelectionAttachment' },
);

const Point = Type.Object(
  {
    coordinates: defaulted(Type.Enum(['pdf', 'user'], { default: 'user', description: 'Operation_Coordinates: user = origin top-left, y downwards; pdf = origin bottom-left' })),
    metrics: defaulted(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm', description: "Operation_Metrics (also the unit of the annotation's width and height)" })),
    x: defaulted(Type.Number({ default: 0, minimum: 0 })),
    y: defaulted(Type.Number({ default: 0, minimum: 0 })),
  },
  { description: 'Operation_Point' },
);

const FileAnnotation = Type.Object(
  {
    color: defaulted(Type.String({ default: '#4800FF', pattern: '^#[0-9a-fA-F]{6}$' })),
    height: defaulted(Type.Number({ default: 0, minimum: 0, description: '0: the icon size (20 pt)' })),
    icon: defaulted(Type.Enum(['graph', 'paperclip', 'pushPin', 'tag', 'none'], { default: 'paperclip', description: 'Operation_Icons; none draws nothing' })),
    lockedPosition: defaulted(Type.Boolean({ default: true })),
    opacity: defaulted(Type.Integer({ format: 'int32', default: 100, minimum: 0, maximum: 100 })),
    page: defaulted(Type.Integer({ format: 'int32', default: 1, minimum: 1 })),
    point: Point,
    popupText: str("the annotation's text (default: the file name)"),
    width: defaulted(Type.Number({ default: 0, minimum: 0, description: '0: the icon size (20 pt)' })),
  },
  { description: 'Operation_FileAnnotation: makes the file a page-level attachment' },
);

const FileAttachment = Type.Object(
  {
    annotation: Type.Optional(FileAnnotation),
    creator: str("who made the file (the annotation's author, and the file's collection item)"),
    data: base64FileData('Operation_AttachmentFileData', Type.Optional(Type.String({ description: 'Base64 content' }))),
    fileName: Type.String({ default: '', maxLength: 255, description: 'required; an attachment of the same name is replaced' }),
    mimeType: str('e.g. "text/plain"; "" = from the file name\'s extension'),
  },
  { description: 'Operation_FileAttachment' },
);

export const attachmentOptions = Type.Object(
  {
    add: Type.Optional(Type.Object({ file: Type.Optional(Type.Array(FileAttachment, { maxItems: 1000 })) }, { description: 'Operation_AddToolboxAttachment' })),
    extract: Type.Optional(
      Type.Object(
        {
          folderNameTemplate: defaulted(Type.String({ default: 'page[%d]', maxLength: 200, description: 'ZIP folder of page-level attachments; %d = the page number' })),
          selection: Type.Optional(Type.Array(Selection, { maxItems: 1000, description: 'empty: every attachment' })),
          singleFileAsZip: defaulted(Type.Boolean({ default: true, description: 'false: a single selected file becomes the result as it is' })),
        },
        { description: 'Operation_ExtractToolboxAttachment' },
      ),
    ),
    remove: Type.Optional(
      Type.Object(
        { selection: Type.Optional(Type.Array(Selection, { maxItems: 1000, description: 'required: at least one selection ([{}] selects every attachment)' })) },
        { description: 'Operation_RemoveToolboxAttachment' },
      ),
    ),
  },
  { description: 'Operation_ToolboxAttachment.attachment' },
);

export type AttachmentOptions = Options<typeof attachmentOptions>;
