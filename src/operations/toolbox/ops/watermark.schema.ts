import Type, { type TSchema } from 'typebox';
import { base64FileData } from './file-data.schema.js';
import { defaulted, withDefault, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxWatermark.watermark` (reference §10.9.15): a text and/or image watermark over
 * the selected pages. Every member is optional with the reference's default; unknown members are
 * ignored (§5.3).
 */

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const int = (options: Record<string, unknown>) => Type.Integer({ format: 'int32', ...options });

const Metrics = withDefault(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm', description: 'Operation_Metrics: unit of x, y, width and height (px = 1/96 in)' }));

const Position = Type.Object(
  {
    aspectRatio: defaulted(Type.Boolean({ default: true, description: 'with both width and height forced: keep the aspect ratio inside that area' })),
    height: defaulted(int({ default: 0, minimum: 0, description: 'forced height (0 = natural)' })),
    metrics: opt(Metrics),
    position: defaulted(
      Type.Enum(['custom', 'top_left', 'top_center', 'top_right', 'center_left', 'center_center', 'center_right', 'bottom_left', 'bottom_center', 'bottom_right'], {
        default: 'center_center',
        description:
          'Operation_WatermarkPositionMode: where the bounding box of the (rotated) watermark goes on the page as displayed; custom: its top-left corner at x/y from the top-left corner of the page',
      }),
    ),
    width: defaulted(int({ default: 0, minimum: 0, description: 'forced width (0 = natural)' })),
    x: defaulted(int({ default: 0, minimum: 0, description: 'custom: from the left edge; presets: offset inwards from the edge the preset sticks to (rightwards when centred)' })),
    y: defaulted(int({ default: 0, minimum: 0, description: 'custom: from the top edge; presets: offset inwards from the edge the preset sticks to (downwards when centred)' })),
  },
  { description: 'Operation_WatermarkPosition' },
);

const Font = Type.Object(
  {
    bold: defaulted(Type.Boolean({ default: false })),
    color: defaulted(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', default: '#A0A0A0', description: '#RRGGBB' })),
    italic: defaulted(Type.Boolean({ default: false })),
    name: defaulted(
      Type.String({
        default: '',
        description:
          'a standard PDF font (Helvetica, Times, Courier, Symbol, ZapfDingbats; "" = Helvetica) or an installed font family, embedded as a TrueType subset; text a standard font cannot show uses an installed TrueType font that has its characters',
      }),
    ),
    opacity: defaulted(int({ default: 100, minimum: 0, maximum: 100, description: 'percent' })),
    outline: defaulted(Type.Boolean({ default: false, description: 'outlined (stroked) instead of filled glyphs' })),
    size: defaulted(int({ default: 24, minimum: 1, maximum: 1296, description: 'points' })),
  },
  { description: 'Operation_WatermarkFont' },
);

const FileData = base64FileData('Operation_WatermarkFileData', opt(Type.String({ description: 'Base64 of a PNG, JPEG, GIF, BMP, TIFF or WebP image (first frame)' })));

export const watermarkOptions = Type.Object(
  {
    angle: defaulted(int({ default: 45, minimum: 0, maximum: 360, description: 'rotation of the text or image, clockwise degrees' })),
    image: opt(
      Type.Object(
        {
          data: FileData,
          opacity: defaulted(int({ default: 25, minimum: 0, maximum: 100, description: 'percent (0 = invisible)' })),
          position: opt(Position),
          scale: defaulted(int({ default: 0, minimum: 0, description: "percent of the natural size (pixels at the image's resolution, 72 dpi if it states none); 0 = 100" })),
        },
        { description: 'Operation_WatermarkImage' },
      ),
    ),
    pages: defaulted(Type.String({ default: '', description: 'pages to stamp: "1,5-6,9", "last"; "" or "*" = all' })),
    text: opt(
      Type.Object(
        {
          font: opt(Font),
          position: opt(Position),
          text: defaulted(Type.String({ default: 'Confidential', description: 'line breaks start new (centred) lines' })),
        },
        { description: 'Operation_WatermarkText' },
      ),
    ),
  },
  { description: 'Operation_ToolboxWatermark.watermark' },
);

export type WatermarkOptions = Options<typeof watermarkOptions>;
