import { QuireError } from '../../../core/errors.js';
import { StructureError } from '../../../engines/pdf/structure/errors.js';
import { scalePages } from '../../../engines/pdf-edit/scale.js';
import type { ToolboxOperation } from '../operation.js';
import { selectPages } from '../pages.js';

/** `Operation_ToolboxScale.scale` (reference §10.9.20). */
export interface ScaleOptions {
  scalePages?: {
    dimensions?: PaddedRectangle;
    horizontalAlignment?: 'left' | 'center' | 'right';
    pages?: string;
    preserveAspectRatio?: boolean;
    scaleBoxes?: boolean;
    verticalAlignment?: 'top' | 'center' | 'bottom';
  };
}

/** `Operation_PaddedRectangle`. */
export interface PaddedRectangle {
  bottom?: number;
  coordinates?: 'pdf' | 'user';
  height?: number;
  left?: number;
  metrics?: 'pt' | 'pc' | 'px' | 'mm' | 'in';
  right?: number;
  top?: number;
  width?: number;
}

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
    const metrics = box.metrics ?? 'mm';
    const unit = POINTS[metrics];
    if (unit === undefined) throw new QuireError('PARAMETER', `Invalid parameter ${label}.dimensions.metrics: "${String(metrics)}" is not one of pt, pc, px, mm, in.`);
    const coordinates = box.coordinates ?? 'user';
    if (coordinates !== 'user' && coordinates !== 'pdf') throw new QuireError('PARAMETER', `Invalid parameter ${label}.dimensions.coordinates: "${String(coordinates)}" is not user or pdf.`);
    const horizontal = scale.horizontalAlignment ?? 'left';
    const vertical = scale.verticalAlignment ?? 'top';
    if (!['left', 'center', 'right'].includes(horizontal)) throw new QuireError('PARAMETER', `Invalid parameter ${label}.horizontalAlignment: "${String(horizontal)}" is not left, center or right.`);
    if (!['top', 'center', 'bottom'].includes(vertical)) throw new QuireError('PARAMETER', `Invalid parameter ${label}.verticalAlignment: "${String(vertical)}" is not top, center or bottom.`);
    const width = (box.width ?? 0) * unit;
    const height = (box.height ?? 0) * unit;
    const preserveAspectRatio = scale.preserveAspectRatio !== false;
    if (!(width >= 0) || !(height >= 0) || (width === 0 && height === 0)) {
      throw new QuireError('PARAMETER', `Invalid parameter ${label}.dimensions: give the target width and height (in ${metrics}); both are 0.`);
    }
    if (!preserveAspectRatio && (width === 0 || height === 0)) {
      throw new QuireError('PARAMETER', `Invalid parameter ${label}.dimensions: without preserveAspectRatio both width and height are needed.`);
    }

    const count = await context.engines.rewriter.pageCount(input.path, { deadline: context.deadline });
    const pages = selectPages(scale.pages ?? '', count, `${label}.pages`);
    const output = context.scratch('pdf');
    try {
      await scalePages(input.path, output, pages, {
        width,
        height,
        padding: { left: (box.left ?? 0) * unit, right: (box.right ?? 0) * unit, top: (box.top ?? 0) * unit, bottom: (box.bottom ?? 0) * unit },
        preserveAspectRatio,
        scaleBoxes: scale.scaleBoxes !== false,
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
