import Type from 'typebox';

/** `Operation_ToolboxOptions.options` (reference §10.9): the options of the `options` operation. */
export const optionsOptions = Type.Object({}, { description: 'Operation_ToolboxOptions.options' });
