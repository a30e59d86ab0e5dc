import Type from 'typebox';

/** `Operation_ToolboxDelete.delete` (reference §10.9.3): the pages to remove. */
export const deleteOptions = Type.Object(
  { pages: Type.String({ description: 'pages to delete: "1-3,5", "last"; "" or "*" would delete all and is refused' }) },
  { description: 'Operation_ToolboxDelete.delete' },
);
