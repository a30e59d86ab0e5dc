import type { Ghostscript } from '../../engines/ghostscript/ghostscript.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';
import type { MemoryScratch } from '../../storage/memory-scratch.js';

/**
 * The long-lived engines the toolbox operations share. Stateless tools (qpdf, poppler, pdf-lib
 * helpers) are called through their engine modules directly, with `ToolboxContext.deadline`.
 */
export interface ToolboxEngines {
  rewriter: PdfRewriter;
  ghostscript: Ghostscript;
  /** The command a `print` operation pipes the PDF to; absent: printing is refused. */
  printCommand?: readonly string[];
  /** fontconfig environment (FONTCONFIG_FILE) that adds the data dir's fonts folder to the system fonts. */
  fontEnv: Record<string, string>;
  /** Time limit of one tool run, in milliseconds. */
  toolTimeoutMs: number;
  /** tmpfs scratch for many-small-file intermediates (split parts); absent: always the disk scratch. */
  memoryScratch?: MemoryScratch;
}
