import { QuireError } from '../../../core/errors.js';
import { formatPageList } from '../../../core/page-selection.js';
import { MAX_COPIES, PrintError, rasterizePdf, sendToPrinter } from '../../../engines/print/index.js';
import type { ToolboxOperation } from '../operation.js';
import { selectPages } from '../pages.js';
import type { PrintOptions } from './print.schema.js';

const DEFAULT_RASTER_DPI = 300;
const MAX_RASTER_DPI = 600;

/**
 * `print` (reference §10.9.11): pipes the selected pages to the print command the administrator
 * configured (`toolbox.printCommand`). The document is returned unchanged. Placement options that
 * need the printer's paper size and margins (centring, fitting to margins, no auto-rotation) are
 * the print queue's business and are refused rather than ignored.
 */
export const printOperation: ToolboxOperation<PrintOptions> = {
  name: 'print',
  needsPdf: true,
  async run(input, options, context, field) {
    const command = context.engines.printCommand;
    if (!command || command.length === 0) {
      throw new QuireError('OPTION_UNSUPPORTED', `${field} is not available: no printer is configured on this server.`);
    }
    const { mode, copies, dpi } = options;
    // The schema has the lower bounds; the upper ones are this server's.
    if (copies > MAX_COPIES) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}.copies: a whole number from 1 to ${MAX_COPIES} is expected.`);
    }
    if (dpi > MAX_RASTER_DPI) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}.dpi: 0 (= ${DEFAULT_RASTER_DPI}) to ${MAX_RASTER_DPI} is expected.`);
    }
    const layout: [keyof PrintOptions, boolean][] = [
      ['autoRotate', true],
      ['centerInPage', false],
      ['expandToMargins', false],
      ['shrinkToMargins', false],
    ];
    for (const [member, supported] of layout) {
      if (options[member] !== supported) {
        throw new QuireError(
          'OPTION_UNSUPPORTED',
          `${field}.${member} ${String(!supported)} cannot be honoured: the server does not know the printer's paper and margins; configure placement in the print queue (e.g. CUPS fit-to-page).`,
        );
      }
    }

    const { rewriter } = context.engines;
    const count = await rewriter.pageCount(input.path, context.call);
    const pages = selectPages(options.pages, count, `${field}.pages`);
    let file = input.path;
    if (pages.length !== count || pages.some((page, i) => page !== i + 1)) {
      file = context.scratch('pdf');
      await rewriter.rewrite(input.path, file, { pages: formatPageList(pages), deadline: context.deadline });
    }
    const timeoutMs = () => Math.max(1, Math.min(context.engines.toolTimeoutMs, context.deadline - Date.now()));
    try {
      if (mode !== 'default') {
        const raster = context.scratch('pdf');
        await rasterizePdf(file, raster, { dpi: dpi || DEFAULT_RASTER_DPI, timeoutMs: timeoutMs() });
        file = raster;
      }
      await sendToPrinter(file, { command, jobName: options.jobName, printerName: options.printerName, copies }, { timeoutMs: timeoutMs() });
    } catch (error) {
      if (error instanceof PrintError && error.kind === 'failed') throw new QuireError('CONVERSION_FAILED', `${field}: ${error.message}.`, { cause: error });
      throw error;
    }
    // Printing does not change the document.
    return input;
  },
};
