import { QuireError } from '../../../core/errors.js';
import { addWatermark, editDocument, inField, parseColor, toPoints, type WatermarkPosition, type WatermarkSpec } from '../../../engines/pdf-edit/content/index.js';
import { defaultsOf } from '../../option-schema.js';
import { decodeFileData } from '../file-data.js';
import type { ToolboxOperation } from '../operation.js';
import { selectPages } from '../pages.js';
import { watermarkOptions, type WatermarkOptions } from './watermark.schema.js';

type PositionOptions = NonNullable<NonNullable<WatermarkOptions['text']>['position']>;

/** What an absent `font` or `position` stands for: the schema's defaults. */
const DEFAULT_FONT = defaultsOf(watermarkOptions.properties.text.properties.font);
const DEFAULT_POSITION = defaultsOf(watermarkOptions.properties.text.properties.position);

/**
 * `watermark` (reference §10.9.15): a text and/or image stamped over the selected pages, rotated
 * clockwise by `angle`, as an Acrobat-style watermark artifact (a form XObject marked as
 * /Pagination /Watermark, opacity through an ExtGState). Text in the standard fonts is not
 * embedded; other fonts and non-Latin text embed a TrueType subset of an installed font.
 */
export const watermarkOperation: ToolboxOperation<WatermarkOptions> = {
  name: 'watermark',
  needsPdf: true,
  async run(input, options, context, field) {
    if (!options.text && !options.image) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}: give a text or an image watermark (${field}.text or ${field}.image).`);
    }
    const imageBytes = options.image ? decodeFileData(options.image.data, `${field}.image.data`) : undefined;
    const output = context.scratch('pdf');
    try {
      await editDocument(input.path, output, async (document) => {
        const spec: WatermarkSpec = {
          pages: selectPages(options.pages, document.getPageCount(), `${field}.pages`),
          angle: options.angle,
          scratchPath: context.scratch('img'),
          fonts: { timeoutMs: context.engines.toolTimeoutMs, env: { ...process.env, ...context.engines.fontEnv } },
        };
        if (options.text) {
          const font = options.text.font ?? DEFAULT_FONT;
          spec.text = {
            text: options.text.text,
            font: { name: font.name, bold: font.bold, italic: font.italic },
            size: font.size,
            color: parseColor(font.color, 'text.font.color'),
            opacity: font.opacity / 100,
            outline: font.outline,
            position: position(options.text.position),
          };
        }
        if (options.image && imageBytes) {
          spec.image = { bytes: imageBytes, opacity: options.image.opacity / 100, scale: options.image.scale, position: position(options.image.position) };
        }
        await addWatermark(document, spec);
      });
    } catch (error) {
      throw inField(error, field);
    }
    return { path: output, type: input.type };
  },
};

function position(options: PositionOptions = DEFAULT_POSITION): WatermarkPosition {
  const { metrics } = options;
  return {
    anchor: options.position,
    x: toPoints(options.x, metrics),
    y: toPoints(options.y, metrics),
    width: toPoints(options.width, metrics),
    height: toPoints(options.height, metrics),
    aspectRatio: options.aspectRatio,
  };
}
