import Type from 'typebox';

/** `Operation_ToolboxExtraction.extraction` (reference §10.9): the options of the `extraction` operation. */
export const extractionOptions = Type.Object({}, { description: 'Operation_ToolboxExtraction.extraction' });
