import Type from 'typebox';

/** `Operation_ToolboxForms.forms` (reference §10.9): the options of the `forms` operation. */
export const formsOptions = Type.Object({}, { description: 'Operation_ToolboxForms.forms' });
