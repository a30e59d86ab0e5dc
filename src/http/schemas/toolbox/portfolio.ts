import Type from 'typebox';

/** `Operation_ToolboxPortfolio.portfolio` (reference §10.9): the options of the `portfolio` operation. */
export const portfolioOptions = Type.Object({}, { description: 'Operation_ToolboxPortfolio.portfolio' });
