import Type from 'typebox';

/** `Operation_ToolboxCompress.compress` (reference §10.9): the options of the `compress` operation. */
export const compressOptions = Type.Object({}, { description: 'Operation_ToolboxCompress.compress' });
