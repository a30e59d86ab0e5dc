import Type from 'typebox';

/** `Operation_ToolboxSplit.split` (reference §10.9): the options of the `split` operation. */
export const splitOptions = Type.Object({}, { description: 'Operation_ToolboxSplit.split' });
