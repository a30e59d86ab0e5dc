import Type from 'typebox';

/** `Operation_ToolboxMove.move` (reference §10.9.9): moves pages before or after another page. */
export const moveOptions = Type.Object(
  {
    mode: Type.Optional(Type.Enum(['beforePage', 'afterPage'], { default: 'afterPage', description: 'insert the pages before or after targetPosition' })),
    order: Type.Optional(Type.Enum(['preserve', 'reverse'], { default: 'preserve', description: 'the moved pages in document order, or reversed' })),
    pages: Type.Optional(Type.String({ default: '1', description: 'pages to move: "1-3,5", "last"' })),
    targetPosition: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, default: 1, description: 'page (numbered as before the move) the pages go before or after; must not be one of them' })),
  },
  { description: 'Operation_ToolboxMove.move' },
);
