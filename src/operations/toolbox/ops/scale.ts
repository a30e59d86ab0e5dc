import { QuireError } from '../../../core/errors.js';
import { StructureError } from '../../../engines/pdf/structure/errors.js';
import { scalePages } from '../../../engines/pdf-edit/scale.js';
import type { ToolboxOperation } from '../operation.js';
import { selectPages } from '../pages.js';
import type { ScaleOptions } from './scale.schema.js';

/** Points per unit of `metrics`. */
const POINTS = { pt: 1, pc: 12, px: 0.75, mm: 72 / 25.4, in: 72 } as const;

/**
 * `scale`: gives the selected pages the size `dimensions.width` × `height` (a side of 0 follows the
 * page's aspect ratio) and scales their content into it, less the paddings, keeping the aspect ratio
 * (aligned as asked where room is left) or stretching. `scaleBoxes` false keeps the page size and
 * scales only the content. Sizes are as a reader sees the page (rotation applied). `coordinates`
 * does not change anything here: the paddings are distances from the edges they name in both systems.
 */
export const scaleOperation: ToolboxOperation<ScaleOptions> = {
  name: 'scale',
  needsPdf: true,
  async run(input, options, context, field) {
    const scale = options.scalePages;
    const label = `${field}.scalePages`;
    if (!scale) throw new QuireError('PARAMETER', `Invalid parameter ${label}: required (the target size in scalePages.dimensions).`);
    const box = scale.dimensions;
    if (!box) throw new QuireError('PARAMETER', `Invalid parameter ${label}.dimensions: required (width and height of the target page).`);
    const { metrics } = box;
    const unit = POINTS[metrics];
    const { horizontalAlignment: horizontal, verticalAlignment: vertical, preserveAspectRatio } = scale;
    const width = box.width * unit;
    const height = box.height * unit;
    if (!(width >= 0) || !(height >= 0) || (width === 0 && height === 0)) {
      throw new QuireError('PARAMETER', `Invalid parameter ${label}.dimensions: give the target width and height (in ${metrics}); both are 0.`);
    }
    if (!preserveAspectRatio && (width === 0 || height === 0)) {
      throw new QuireError('PARAMETER', `Invalid parameter ${label}.dimensions: without preserveAspectRatio both width and height are needed.`);
    }

    const count = await context.engines.rewriter.pageCount(input.path, context.call);
    const pages = selectPages(scale.pages, count, `${label}.pages`);
    const output = context.scratch('pdf');
    try {
      await scalePages(input.path, output, pages, {
        width,
        height,
        padding: { left: box.left * unit, right: box.right * unit, top: box.top * unit, bottom: box.bottom * unit },
        preserveAspectRatio,
        scaleBoxes: scale.scaleBoxes,
        horizontal,
        vertical,
      });
    } catch (error) {
      if (error instanceof StructureError && error.kind === 'invalidOption') throw new QuireError('PARAMETER', `Invalid parameter ${label}.dimensions: ${error.message}.`, { cause: error });
      throw error;
    }
    return { path: output, type: input.type };
  },
};
