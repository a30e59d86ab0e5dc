import Type from 'typebox';

/** `Operation_ToolboxAttachment.attachment` (reference §10.9): the options of the `attachment` operation. */
export const attachmentOptions = Type.Object({}, { description: 'Operation_ToolboxAttachment.attachment' });
