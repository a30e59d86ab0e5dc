import Type from 'typebox';
import { defaulted, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxSplit.split` (reference §10.9.14). last/first/list give one PDF; single, each,
 * group and burst give a ZIP of PDFs (or the PDF itself for one part with singleFileAsZip false).
 */
export const splitOptions = Type.Object(
  {
    fileNameTemplate: defaulted(Type.String({ default: 'page[%d]', description: 'names of the PDFs in the ZIP; %d becomes the (first) page number of the part, ".pdf" is added' })),
    mode: defaulted(
      Type.Enum(['last', 'first', 'list', 'single', 'each', 'group', 'burst'], {
        default: 'last',
        description:
          'last: pages 1 to the page in pages; first: from the page in pages to the end; list: the listed pages as one PDF; single: each listed page as its own PDF; each: every n-th page (n = pages) from startPage, each its own PDF; group: parts of n pages (n = pages) from startPage; burst: every page its own PDF',
      }),
    ),
    pages: defaulted(Type.String({ default: '1', description: 'a page (last, first), a page list (list, single) or a count (each, group); burst ignores it' })),
    singleFileAsZip: defaulted(Type.Boolean({ default: true, description: 'single/each/group/burst: false returns a lone part as the PDF itself' })),
    startPage: defaulted(Type.Integer({ format: 'int32', minimum: 1, default: 1, description: 'first page of each and group' })),
  },
  { description: 'Operation_ToolboxSplit.split' },
);

export type SplitOptions = Options<typeof splitOptions>;
