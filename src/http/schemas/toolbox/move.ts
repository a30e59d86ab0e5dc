import Type from 'typebox';

/** `Operation_ToolboxMove.move` (reference §10.9): the options of the `move` operation. */
export const moveOptions = Type.Object({}, { description: 'Operation_ToolboxMove.move' });
