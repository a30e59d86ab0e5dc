import Type from 'typebox';

/** `Operation_ToolboxScale.scale` (reference §10.9): the options of the `scale` operation. */
export const scaleOptions = Type.Object({}, { description: 'Operation_ToolboxScale.scale' });
