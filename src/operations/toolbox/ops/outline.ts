import { QuireError } from '../../../core/errors.js';
import { editPdf } from '../../../engines/pdf-edit/annotations/edit-pdf.js';
import { OutlineEditor } from '../../../engines/pdf-edit/annotations/outline.js';
import type { ToolboxOperation } from '../operation.js';
import type { OutlineOptions } from './outline.schema.js';

/**
 * `outline`: clear → remove → add, the items one after the other (an item can be placed under one
 * added before it). The tree is rewritten consistently (links and counts) whatever its state was.
 */
export const outlineOperation: ToolboxOperation<OutlineOptions> = {
  name: 'outline',
  needsPdf: true,
  async run(input, options, context, field) {
    const { add, remove, clear } = options;
    if (!add && !remove && !clear) throw new QuireError('PARAMETER', `Invalid parameter ${field}: give add, remove or clear.`);
    const output = context.scratch('pdf');
    await editPdf(
      input.path,
      output,
      (document) => {
        const editor = new OutlineEditor(document);
        if (clear) editor.clear();
        for (const [index, item] of (remove?.item ?? []).entries()) editor.remove(item.path, `${field}.remove.item[${index}].path`);
        for (const [index, item] of (add?.item ?? []).entries()) editor.add(item, `${field}.add.item[${index}]`);
        editor.finish();
      },
      context.call,
    );
    return { path: output, type: input.type };
  },
};
