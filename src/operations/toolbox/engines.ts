import type { Ghostscript } from '../../engines/ghostscript/ghostscript.js';
import type { PdfStructureTool } from '../../engines/contracts.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';
import type { PopplerRunner } from '../../engines/poppler/tool.js';
import type { MemoryScratch } from '../../storage/memory-scratch.js';

/**
 * The long-lived engines the toolbox operations share: one configured instance per tool, built by
 * the wiring (src/engines-wiring.ts). Operations never construct a tool runner themselves.
 */
export interface ToolboxEngines {
  rewriter: PdfRewriter;
  /** qpdf: the server's one runner (configured executable, concurrency bound). */
  qpdf: PdfStructureTool;
  /** poppler: the server's one runner; passed to the poppler functions in their `ToolLimits`. */
  poppler: PopplerRunner;
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
