import Type from 'typebox';
import type { Options } from '../../option-schema.js';

/** `Operation_ToolboxDelete.delete` (reference §10.9.3): the pages to remove. */
export const deleteOptions = Type.Object(
  { pages: Type.String({ description: 'pages to delete: "1-3,5", "last"; "" or "*" would delete all and is refused' }) },
  { description: 'Operation_ToolboxDelete.delete' },
);

export type DeleteOptions = Options<typeof deleteOptions>;
