import Type from 'typebox';

/** `Operation_ToolboxMerge.merge` (reference §10.9): the options of the `merge` operation. */
export const mergeOptions = Type.Object({}, { description: 'Operation_ToolboxMerge.merge' });
