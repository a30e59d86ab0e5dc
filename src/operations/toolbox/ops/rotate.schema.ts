import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';

/** `Operation_ToolboxRotate.rotate` (reference §10.9.12): turns pages clockwise. */
export const rotateOptions = Type.Object(
  {
    degrees: defaulted(Type.Integer({ format: 'int32', minimum: 0, maximum: 360, default: 90, description: 'clockwise, a multiple of 90 (other values are refused with -14)' })),
    orientationDetectMode: defaulted(
      Type.Enum(['value', 'dimensions'], { default: 'value', description: 'value: landscape = /Rotate 90 or 270; dimensions: the displayed width exceeds the height (rotation taken into account)' }),
    ),
    pageGroup: defaulted(Type.Enum(['all', 'even', 'odd'], { default: 'all', description: 'of the selected pages, all or those with an even/odd page number' })),
    pageOrientation: defaulted(Type.Enum(['any', 'portrait', 'landscape'], { default: 'any', description: 'of the selected pages, only those of this orientation' })),
    pages: defaulted(Type.String({ default: '1', description: 'pages to rotate: "1-3,5", "last", "*" or "" for all' })),
  },
  { description: 'Operation_ToolboxRotate.rotate' },
);

export type RotateOptions = Options<typeof rotateOptions>;
