import Type, { type TSchema } from 'typebox';
import { defaulted, withDefault, type Options } from '../../option-schema.js';

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

const Metrics = () => withDefault(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm', description: 'Operation_Metrics: unit of width and height (px: pixels of the image)' }));

/** The members every image format has (`Operation_Png` and the rest). */
const size = () => ({
  dpi: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 9600, default: 72, description: 'pixels per inch of the page image; 0 means 72' })),
  height: defaulted(Type.Integer({ format: 'int32', minimum: 0, default: 0, description: 'image height in metrics (0: from dpi); with width, the page is fitted into the box' })),
  metrics: opt(Metrics()),
  width: defaulted(Type.Integer({ format: 'int32', minimum: 0, default: 0, description: 'image width in metrics (0: from dpi); alone, the height keeps the page proportions' })),
});

const SvgGraphicsStateMode = () =>
  withDefault(
    Type.Enum(['verbose', 'centralize'], {
      default: 'centralize',
      description: 'Operation_SvgGraphicsStateMode: verbose: fill/stroke state on every element; centralize: each distinct state once, as a CSS class',
    }),
  );
const SvgPathDrawMode = () =>
  withDefault(Type.Enum(['verbose', 'compact'], { default: 'compact', description: 'Operation_SvgPathDrawMode: verbose: every segment with command and spaces; compact: shortest path data' }));

/** `Operation_SvgFormat` members, shared with `transcribe.html.svgFormat`. */
export const svgFormatMembers = () => ({
  decimalPrecision: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 10, default: 2, description: 'decimals of coordinates' })),
  graphicsStateMode: opt(SvgGraphicsStateMode()),
  pathDrawMode: opt(SvgPathDrawMode()),
});

/** `Operation_ToolboxImage.image` (reference §10.9.7): renders pages as images; exactly one format member. */
export const imageOptions = Type.Object(
  {
    bmp: opt(Type.Object(size(), { description: 'Operation_Bmp: 24-bit Windows bitmap' })),
    fileNameTemplate: defaulted(Type.String({ default: 'page[%d]', description: 'names of the images in the ZIP of several pages; %d is the page number' })),
    gif: opt(Type.Object(size(), { description: 'Operation_Gif' })),
    jpeg: opt(
      Type.Object(
        {
          ...size(),
          jpegQuality: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 100, default: 80 })),
          sizeOptimization: opt(
            Type.Object(
              {
                maxRetries: defaulted(Type.Integer({ format: 'int32', default: 5, description: 'most re-encodings at lower quality' })),
                maxSize: defaulted(Type.Integer({ format: 'int32', default: 100000, description: 'bytes an image should not exceed' })),
                stepSize: defaulted(Type.Integer({ format: 'int32', default: 10, description: 'quality lowered per re-encoding' })),
              },
              { description: 'Operation_SizeOptimization: re-encode at lower quality while an image is larger than maxSize' },
            ),
          ),
        },
        { description: 'Operation_Jpeg' },
      ),
    ),
    pages: defaulted(Type.String({ default: '1', description: 'pages to render: "1-3,5", "last", "*" or "" for all' })),
    png: opt(Type.Object(size(), { description: 'Operation_Png' })),
    svg: opt(Type.Object({ ...size(), ...svgFormatMembers() }, { description: 'Operation_Svg: vector image; dpi/width/height set its pixel size' })),
    tiff: opt(
      Type.Object(
        {
          ...size(),
          blackAndWhiteQuality: defaulted(
            Type.Enum(['low', 'middle', 'high'], {
              default: 'high',
              description: 'Operation_TiffBlackAndWhiteQuality (rle, group3, group4): low: threshold, middle: ordered dithering, high: error diffusion',
            }),
          ),
          compression: defaulted(
            Type.Enum(['none', 'rle', 'deflate', 'group3', 'group4', 'jpeg', 'lzw', 'packbits', 'zlib'], {
              default: 'none',
              description: 'Operation_TiffCompression: rle, group3 and group4 are black and white (CCITT); zlib and deflate both write Adobe deflate',
            }),
          ),
          jpegQuality: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 100, default: 80, description: 'for compression jpeg' })),
          multipage: defaulted(Type.Boolean({ default: false, description: 'several pages as one multi-page TIFF instead of a ZIP' })),
        },
        { description: 'Operation_Tiff' },
      ),
    ),
  },
  { description: 'Operation_ToolboxImage.image' },
);

export type ImageOptions = Options<typeof imageOptions>;
