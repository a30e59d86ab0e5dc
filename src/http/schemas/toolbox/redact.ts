import Type from 'typebox';

/** `Operation_ToolboxRedact.redact` (reference §10.9): the options of the `redact` operation. */
export const redactOptions = Type.Object({}, { description: 'Operation_ToolboxRedact.redact' });
