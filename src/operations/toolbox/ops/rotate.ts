import { QuireError } from '../../../core/errors.js';
import { displayedOrientation, readPageGeometry } from '../../../engines/pdf/structure/geometry.js';
import { rotatePages } from '../../../engines/pdf/structure/rotate.js';
import type { ToolboxOperation } from '../operation.js';
import { selectPages } from '../pages.js';
import type { RotateOptions } from './rotate.schema.js';

/**
 * `rotate`: turns the selected pages clockwise by `degrees` (0, 90, 180, 270 or 360), added to their
 * current rotation. Of the pages in `pages`, `pageGroup` keeps the even or odd page numbers and
 * `pageOrientation` those of one orientation, detected (`orientationDetectMode`) from the /Rotate
 * value alone (90 and 270 are landscape) or from the page size as displayed, i.e. with the page's
 * rotation applied to its box.
 */
export const rotateOperation: ToolboxOperation<RotateOptions> = {
  name: 'rotate',
  needsPdf: true,
  async run(input, options, context, field) {
    const { degrees, pageGroup: group, pageOrientation: orientation, orientationDetectMode: detect } = options;
    // The schema bounds degrees to 0..360; a multiple of 90 is this operation's own rule.
    if (degrees % 90 !== 0) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}.degrees: ${String(degrees)} is not a multiple of 90 between 0 and 360.`);
    }

    const qpdf = context.engines.qpdf;
    const count = await context.engines.rewriter.pageCount(input.path, context.call);
    let pages = selectPages(options.pages, count, `${field}.pages`);
    if (group !== 'all') pages = pages.filter((page) => (page % 2 === 0) === (group === 'even'));
    if (orientation !== 'any' && pages.length > 0) {
      const geometry = await readPageGeometry(qpdf, input.path, context.call);
      pages = pages.filter((page) => {
        const info = geometry[page - 1];
        if (!info) return false;
        const landscape = detect === 'value' ? info.rotation === 90 || info.rotation === 270 : displayedOrientation(info) === 'landscape';
        return landscape === (orientation === 'landscape');
      });
    }
    const output = context.scratch('pdf');
    await rotatePages(qpdf, input.path, output, pages, degrees, context.call);
    return { path: output, type: input.type };
  },
};
