/**
 * What the operations need of each engine, named by capability rather than by tool. The wiring
 * (src/engines-wiring.ts) builds ONE configured instance per tool and injects it; operations hold
 * these interfaces, never a tool's class or a module-level instance, so a tool can be replaced (or
 * faked in a test) at one place. See docs/ARCHITECTURE.md, "How to add an engine".
 */
import type { HtmlJob, HtmlResult } from './chromium/types.js';
import type { UnoJob, UnoResult } from './libreoffice/uno-worker.js';
import type { DownsampleOptions } from './ghostscript/ghostscript.js';
import type { QpdfCall, QpdfResult } from './pdf/qpdf.js';
import type { RunResult } from './process/run.js';

/** Options of one pool job (see pool/worker-pool.ts `RunOptions`). */
export interface JobOptions {
  timeoutMs?: number;
  key?: string;
  signal?: AbortSignal;
}

/** Office documents to PDF (LibreOffice). */
export interface OfficeConverter {
  convert(job: UnoJob, options?: JobOptions): Promise<UnoResult>;
}

/** HTML to PDF in a real browser (Chromium). */
export interface HtmlRenderer {
  convert(job: HtmlJob, options?: JobOptions): Promise<HtmlResult>;
}

/** PostScript to PDF and image down-sampling of a PDF (Ghostscript pdfwrite). */
export interface PostScriptConverter {
  postscriptToPdf(input: string, output: string, timeoutMs: number, downsample?: Omit<DownsampleOptions, 'timeoutMs'>): Promise<void>;
  downsample(input: string, output: string, options: DownsampleOptions): Promise<void>;
}

/**
 * The PDF structure tool (qpdf): page trees, objects, encryption, repair. Passwords go through stdin,
 * never argv; failures are `PdfEngineError`s.
 */
export interface PdfStructureTool {
  run(args: readonly string[], call?: QpdfCall): Promise<QpdfResult>;
  runWithSecretFile(file: string, content: string, args: readonly string[], call?: QpdfCall): Promise<QpdfResult>;
  raw(args: readonly string[], call?: QpdfCall): Promise<RunResult & { exitCode: number }>;
}
