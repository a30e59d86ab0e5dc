import Type from 'typebox';

/** `Operation_PaddedRectangle`: the target page size and the padding the content keeps from its edges. */
const PaddedRectangle = Type.Object(
  {
    bottom: Type.Optional(Type.Integer({ format: 'int32', default: 0 })),
    coordinates: Type.Optional(
      Type.Enum(['pdf', 'user'], { default: 'user', description: 'origin top left (user) or bottom left (pdf); paddings are distances from the named edges either way' }),
    ),
    height: Type.Optional(Type.Number({ format: 'float', minimum: 0, default: 0, description: 'target height; 0 = follow the page\'s aspect ratio from width' })),
    left: Type.Optional(Type.Integer({ format: 'int32', default: 0 })),
    metrics: Type.Optional(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm' })),
    right: Type.Optional(Type.Integer({ format: 'int32', default: 0 })),
    top: Type.Optional(Type.Integer({ format: 'int32', default: 0 })),
    width: Type.Optional(Type.Number({ format: 'float', minimum: 0, default: 0, description: 'target width; 0 = follow the page\'s aspect ratio from height' })),
  },
  { description: 'Operation_PaddedRectangle' },
);

const ScalePages = Type.Object(
  {
    dimensions: Type.Optional(PaddedRectangle),
    horizontalAlignment: Type.Optional(Type.Enum(['left', 'center', 'right'], { default: 'left', description: 'where the content sits when the aspect ratio leaves room across' })),
    pages: Type.Optional(Type.String({ default: '', description: 'pages to scale: "1-3,5", "last", "*" or "" for all' })),
    preserveAspectRatio: Type.Optional(Type.Boolean({ default: true })),
    scaleBoxes: Type.Optional(Type.Boolean({ default: true, description: 'true: the page becomes the target size; false: the page keeps its size and only the content is scaled' })),
    verticalAlignment: Type.Optional(Type.Enum(['top', 'center', 'bottom'], { default: 'top', description: 'where the content sits when the aspect ratio leaves room up and down' })),
  },
  { description: 'Operation_ScalePagesToolboxScale' },
);

/** `Operation_ToolboxScale.scale` (reference §10.9.20): page size change with the content scaled to fit. */
export const scaleOptions = Type.Object({ scalePages: Type.Optional(ScalePages) }, { description: 'Operation_ToolboxScale.scale' });
