import { QuireError } from '../../../core/errors.js';
import { PdfCompressor } from '../../../engines/pdf/compress/index.js';
import type { ToolboxOperation } from '../operation.js';
import { defaultsOf } from '../../option-schema.js';
import { compressOptions, type CompressOptions } from './compress.schema.js';

/** Without `compressObjects`: its defaults. */
const NO_COMPRESS_OBJECTS = defaultsOf(compressOptions.properties.compressObjects);
/** More objects per stream gain nothing measurable and make readers inflate more to reach one object. */
const MAX_OBJECT_STREAM_SIZE = 100_000;

/**
 * `compress` (reference §10.9.21): qpdf recompresses every stream with Flate at level 9 and the
 * objects are packed into object streams of `objectStreamSize` objects. Lossless: images keep their
 * encoding and resolution. Without `compressObjects` the default size (200) applies.
 */
export const compressOperation: ToolboxOperation<CompressOptions> = {
  name: 'compress',
  needsPdf: true,
  async run(input, options, context, field) {
    const size = (options.compressObjects ?? NO_COMPRESS_OBJECTS).objectStreamSize;
    if (size > MAX_OBJECT_STREAM_SIZE) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}.compressObjects.objectStreamSize: a whole number from 1 to ${MAX_OBJECT_STREAM_SIZE} is expected.`);
    }
    const output = context.scratch('pdf');
    const compressor = new PdfCompressor({ qpdf: context.engines.qpdf, timeoutMs: context.engines.toolTimeoutMs });
    await compressor.compress(input.path, output, { objectsPerStream: size, deadline: context.deadline });
    return { path: output, type: input.type };
  },
};
