import Type from 'typebox';

/** `Operation_ToolboxOutline.outline` (reference §10.9): the options of the `outline` operation. */
export const outlineOptions = Type.Object({}, { description: 'Operation_ToolboxOutline.outline' });
