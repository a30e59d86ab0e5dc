import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';

/** `Operation_Sanitize<Category>`: a category is sanitised when its object is present and enabled. */
const category = (name: string, what: string) => Type.Object({ enabled: defaulted(Type.Boolean({ default: true, description: `remove ${what}` })) }, { description: `Operation_Sanitize${name}` });

/** `Operation_Blacken` (reference §10.9.18): applies the document's redaction annotations. */
const blacken = Type.Object(
  {
    collisionRatio: defaulted(
      Type.Integer({ format: 'int32', minimum: 0, maximum: 100, default: 30, description: 'percent of a glyph that an area must cover for the glyph to be removed; 0: any overlap' }),
    ),
    redactAnnotations: defaulted(Type.Boolean({ default: true, description: 'remove annotations whose rectangle overlaps a redaction area' })),
    redactImages: defaulted(Type.Boolean({ default: true, description: 'overwrite the image pixels under the areas' })),
    redactPaths: defaulted(Type.Boolean({ default: true, description: 'cut vector paths out of the areas' })),
    redactTexts: defaulted(Type.Boolean({ default: true, description: 'remove the glyphs under the areas from the content' })),
  },
  {
    description:
      'Operation_Blacken: every redaction annotation (/Subtype /Redact) of the document is applied — the content under its QuadPoints (or Rect) is removed from the content streams, the area is filled with its interior colour (/IC), and the annotation is removed',
  },
);

/** `Operation_Sanitize` (reference §10.9.18). */
const sanitize = Type.Object(
  {
    actions: Type.Optional(category('Actions', 'JavaScript, open and additional actions, and actions of links, widgets and bookmarks (go-to links stay as destinations)')),
    annotations: Type.Optional(category('Annotations', 'all annotations except form widgets')),
    attachments: Type.Optional(category('Attachments', 'embedded and associated files, portfolios, and file/media annotations')),
    forms: Type.Optional(category('Forms', 'form fields: their appearances are drawn into the page, then fields, widgets and XFA are removed')),
    layers: Type.Optional(category('Layers', 'optional content: content of hidden layers is removed, visible layers become plain content')),
    metadata: Type.Optional(category('Metadata', 'the document information, XMP metadata streams and private application data')),
    outlines: Type.Optional(category('Outlines', 'bookmarks')),
    pages: Type.Optional(
      Type.Object(
        {
          dpi: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 9600, default: 72, description: 'resolution of the page images; 0 means the default 72' })),
          enabled: defaulted(Type.Boolean({ default: true, description: 'replace the selected pages by images of themselves' })),
          pages: defaulted(Type.String({ default: '*', description: 'pages to rasterise: "1-3,5", "last", "*" or "" for all' })),
        },
        { description: 'Operation_SanitizePages' },
      ),
    ),
    tags: Type.Optional(category('Tags', 'the structure tree and marked-content properties (alternate and actual texts)')),
  },
  { description: 'Operation_Sanitize: each category present with enabled true is removed; absent categories are kept' },
);

/** `Operation_ToolboxRedact.redact` (reference §10.9.18): the options of the `redact` operation. */
export const redactOptions = Type.Object(
  {
    blacken: Type.Optional(blacken),
    sanitize: Type.Optional(sanitize),
  },
  { description: 'Operation_ToolboxRedact.redact: blacken runs first, then sanitize' },
);

export type RedactOptions = Options<typeof redactOptions>;
