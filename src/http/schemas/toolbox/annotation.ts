import Type from 'typebox';

/** `Operation_ToolboxAnnotation.annotation` (reference §10.9): the options of the `annotation` operation. */
export const annotationOptions = Type.Object({}, { description: 'Operation_ToolboxAnnotation.annotation' });
