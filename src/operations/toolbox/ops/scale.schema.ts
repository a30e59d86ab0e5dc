import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';

/** `Operation_PaddedRectangle`: the target page size and the padding the content keeps from its edges. */
const PaddedRectangle = Type.Object(
  {
    bottom: defaulted(Type.Integer({ format: 'int32', default: 0 })),
    coordinates: defaulted(Type.Enum(['pdf', 'user'], { default: 'user', description: 'origin top left (user) or bottom left (pdf); paddings are distances from the named edges either way' })),
    height: defaulted(Type.Number({ format: 'float', minimum: 0, default: 0, description: "target height; 0 = follow the page's aspect ratio from width" })),
    left: defaulted(Type.Integer({ format: 'int32', default: 0 })),
    metrics: defaulted(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm' })),
    right: defaulted(Type.Integer({ format: 'int32', default: 0 })),
    top: defaulted(Type.Integer({ format: 'int32', default: 0 })),
    width: defaulted(Type.Number({ format: 'float', minimum: 0, default: 0, description: "target width; 0 = follow the page's aspect ratio from height" })),
  },
  { description: 'Operation_PaddedRectangle' },
);

const ScalePages = Type.Object(
  {
    dimensions: Type.Optional(PaddedRectangle),
    horizontalAlignment: defaulted(Type.Enum(['left', 'center', 'right'], { default: 'left', description: 'where the content sits when the aspect ratio leaves room across' })),
    pages: defaulted(Type.String({ default: '', description: 'pages to scale: "1-3,5", "last", "*" or "" for all' })),
    preserveAspectRatio: defaulted(Type.Boolean({ default: true })),
    scaleBoxes: defaulted(Type.Boolean({ default: true, description: 'true: the page becomes the target size; false: the page keeps its size and only the content is scaled' })),
    verticalAlignment: defaulted(Type.Enum(['top', 'center', 'bottom'], { default: 'top', description: 'where the content sits when the aspect ratio leaves room up and down' })),
  },
  { description: 'Operation_ScalePagesToolboxScale' },
);

/** `Operation_ToolboxScale.scale` (reference §10.9.20): page size change with the content scaled to fit. */
export const scaleOptions = Type.Object({ scalePages: Type.Optional(ScalePages) }, { description: 'Operation_ToolboxScale.scale' });

export type ScaleOptions = Options<typeof scaleOptions>;
