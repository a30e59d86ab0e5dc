import Type from 'typebox';

/** `Operation_ToolboxPrint.print` (reference §10.9): the options of the `print` operation. */
export const printOptions = Type.Object({}, { description: 'Operation_ToolboxPrint.print' });
