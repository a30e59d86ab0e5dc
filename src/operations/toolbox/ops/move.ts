import { QuireError } from '../../../core/errors.js';
import { reorderPages } from '../../../engines/pdf/structure/assemble.js';
import { qpdfRange } from '../../../engines/pdf/structure/page-ranges.js';
import type { ToolboxOperation } from '../operation.js';
import { requirePage, selectPages } from '../pages.js';
import type { MoveOptions } from './move.schema.js';

/**
 * `move`: takes the selected pages out and puts them back before or after `targetPosition` (a page
 * number of the document as it was, which must not be one of the moved pages), in document order or
 * reversed. One qpdf rewrite with the new page order; pages keep their annotations and links.
 */
export const moveOperation: ToolboxOperation<MoveOptions> = {
  name: 'move',
  needsPdf: true,
  async run(input, options, context, field) {
    const { mode, order } = options;
    const count = await context.engines.rewriter.pageCount(input.path, context.call);
    const moving = selectPages(options.pages, count, `${field}.pages`).sort((a, b) => (order === 'preserve' ? a - b : b - a));
    const target = requirePage(options.targetPosition, count, `${field}.targetPosition`);
    if (moving.includes(target)) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}.targetPosition: page ${target} is one of the pages being moved; choose a page outside ${field}.pages.`);
    }
    const moved = new Set(moving);
    const staying = Array.from({ length: count }, (_, i) => i + 1).filter((page) => !moved.has(page));
    const at = staying.indexOf(target) + (mode === 'afterPage' ? 1 : 0);
    const sequence = [...staying.slice(0, at), ...moving, ...staying.slice(at)];
    const output = context.scratch('pdf');
    await reorderPages(context.engines.qpdf, input.path, qpdfRange(sequence), output, context.call);
    return { path: output, type: input.type };
  },
};
