import { QuireError } from '../../../core/errors.js';
import { formatPageList } from '../../../core/page-selection.js';
import type { ToolboxOperation } from '../operation.js';
import { selectPages } from '../pages.js';
import type { DeleteOptions } from './delete.schema.js';

/** `delete`: removes the selected pages (qpdf keeps the others, with their annotations and links). */
export const deleteOperation: ToolboxOperation<DeleteOptions> = {
  name: 'delete',
  needsPdf: true,
  async run(input, options, context, field) {
    const { rewriter } = context.engines;
    const count = await rewriter.pageCount(input.path, context.call);
    const doomed = new Set(selectPages(options.pages, count, `${field}.pages`));
    const kept = Array.from({ length: count }, (_, i) => i + 1).filter((page) => !doomed.has(page));
    if (kept.length === 0) throw new QuireError('PARAMETER', `Invalid parameter ${field}.pages: deleting every page would leave no document.`);
    const output = context.scratch('pdf');
    await rewriter.rewrite(input.path, output, { pages: formatPageList(kept), deadline: context.deadline });
    return { path: output, type: input.type };
  },
};
