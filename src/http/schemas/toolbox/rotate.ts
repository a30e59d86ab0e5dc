import Type from 'typebox';

/** `Operation_ToolboxRotate.rotate` (reference §10.9): the options of the `rotate` operation. */
export const rotateOptions = Type.Object({}, { description: 'Operation_ToolboxRotate.rotate' });
