import Type from 'typebox';

/** `Operation_ToolboxXmp.xmp` (reference §10.9): the options of the `xmp` operation. */
export const xmpOptions = Type.Object({}, { description: 'Operation_ToolboxXmp.xmp' });
