import Type from 'typebox';

/** `Operation_ToolboxDescription.description` (reference §10.9): the options of the `description` operation. */
export const descriptionOptions = Type.Object({}, { description: 'Operation_ToolboxDescription.description' });
