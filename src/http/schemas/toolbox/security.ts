import Type from 'typebox';

/** `Operation_ToolboxSecurity.security` (reference §10.9): the options of the `security` operation. */
export const securityOptions = Type.Object({}, { description: 'Operation_ToolboxSecurity.security' });
