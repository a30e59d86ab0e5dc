import Type from 'typebox';

/** `Operation_ToolboxImage.image` (reference §10.9): the options of the `image` operation. */
export const imageOptions = Type.Object({}, { description: 'Operation_ToolboxImage.image' });
