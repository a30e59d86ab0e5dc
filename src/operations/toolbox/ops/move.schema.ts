import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';

/** `Operation_ToolboxMove.move` (reference §10.9.9): moves pages before or after another page. */
export const moveOptions = Type.Object(
  {
    mode: defaulted(Type.Enum(['beforePage', 'afterPage'], { default: 'afterPage', description: 'insert the pages before or after targetPosition' })),
    order: defaulted(Type.Enum(['preserve', 'reverse'], { default: 'preserve', description: 'the moved pages in document order, or reversed' })),
    pages: defaulted(Type.String({ default: '1', description: 'pages to move: "1-3,5", "last"' })),
    targetPosition: defaulted(Type.Integer({ format: 'int32', minimum: 1, default: 1, description: 'page (numbered as before the move) the pages go before or after; must not be one of them' })),
  },
  { description: 'Operation_ToolboxMove.move' },
);

export type MoveOptions = Options<typeof moveOptions>;
