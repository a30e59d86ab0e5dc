import Type from 'typebox';

/** `Operation_ToolboxWatermark.watermark` (reference §10.9): the options of the `watermark` operation. */
export const watermarkOptions = Type.Object({}, { description: 'Operation_ToolboxWatermark.watermark' });
