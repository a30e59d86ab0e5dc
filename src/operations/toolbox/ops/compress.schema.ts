import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxCompress.compress` (reference §10.9.21): lossless size reduction — every stream
 * Flate-compressed at the highest level and the objects packed into object streams. Images are not
 * re-encoded. Rewriting invalidates signatures.
 */
export const compressOptions = Type.Object(
  {
    compressObjects: Type.Optional(
      Type.Object(
        {
          objectStreamSize: defaulted(Type.Integer({ format: 'int32', default: 200, minimum: 1, description: 'objects per object stream (the last one may hold fewer)' })),
        },
        { description: 'Operation_CompressObjects; absent: objectStreamSize 200' },
      ),
    ),
  },
  { description: 'Operation_ToolboxCompress.compress' },
);

export type CompressOptions = Options<typeof compressOptions>;
