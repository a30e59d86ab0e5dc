import path from 'node:path';

/**
 * The external tools Quire starts through `run()`, with their configured executables and memory
 * caps (`engines.qpdf`, `engines.poppler`, `engines.ghostscript`, `engines.print`, ...).
 *
 * `run()` looks a command up here by name, so every caller gets the configured executable and cap
 * without each engine wrapper (and each of the many places that construct one) carrying them:
 * `run('qpdf', …)` starts `engines.qpdf.executable` under `engines.qpdf.maxMemory`, and
 * `run('/opt/qpdf/bin/qpdf', …)` runs that binary under the same cap. The wiring calls
 * `configureTools` from the configuration at start; until then the defaults below apply.
 * (Process-wide on purpose: a later issue moves engine wiring into one object per server.)
 */

export type ToolName = 'qpdf' | 'poppler' | 'ghostscript' | 'print' | 'libreoffice' | 'fontconfig';

export interface ToolSettings {
  /** The executable that a bare default name (`qpdf`, `gs`) stands for; poppler: see `directory`. */
  executable?: string;
  /** poppler: the folder of pdftotext, pdftoppm, …; "" = found on PATH. */
  directory?: string;
  /** Address-space cap (RLIMIT_AS) of one run, bytes; 0 = none. */
  maxMemoryBytes: number;
}

interface ToolEntry extends ToolSettings {
  name: ToolName;
  /** Program names (basenames) that are this tool. */
  programs: readonly string[];
  /** The configuration key of the cap, for messages. */
  setting: string;
  /**
   * Whether a call's ambient cancellation (see core/cancellation.ts) stops the tool. Not for tools
   * whose results are cached and shared between calls (fontconfig lookups): one client leaving must
   * not fail them for everyone.
   */
  cancellable: boolean;
}

const GB = 1024 * 1024 * 1024;

/** poppler's command-line tools. */
const POPPLER_PROGRAMS = ['pdftotext', 'pdftoppm', 'pdftocairo', 'pdfimages', 'pdfinfo', 'pdffonts', 'pdfseparate', 'pdfunite', 'pdfdetach', 'pdfattach', 'pdftohtml', 'pdftops', 'pdfsig'];

/**
 * Defaults, measured on Debian 12 (qpdf 11.3, poppler 22.12, Ghostscript 10.0; VmPeak sampled every
 * 10 ms): qpdf merging two 100,000-page PDFs into one of 200,000 pages peaks at 1.29 GB; qpdf's
 * JSON of a 100,000-page file at 0.35 GB; pdftoppm/pdftocairo at the toolbox's largest page image
 * (100 megapixels) at 0.40 GB; Ghostscript pdfwrite of 1,000 pages at 77 MB and pdfimage24 at 600 dpi
 * at 59 MB (it renders in bands). 2 GB leaves room above all of them and still stops a runaway long
 * before it hurts the machine (the outline cycle of issue 11 grows qpdf by ~130 MB/s to 5+ GB).
 */
function defaults(): ToolEntry[] {
  return [
    { name: 'qpdf', programs: ['qpdf'], executable: 'qpdf', maxMemoryBytes: 2 * GB, setting: 'engines.qpdf.maxMemory', cancellable: true },
    { name: 'poppler', programs: POPPLER_PROGRAMS, directory: '', maxMemoryBytes: 2 * GB, setting: 'engines.poppler.maxMemory', cancellable: true },
    { name: 'ghostscript', programs: ['gs', 'gsc', 'gswin64c'], executable: 'gs', maxMemoryBytes: 2 * GB, setting: 'engines.ghostscript.maxMemory', cancellable: true },
    // The administrator's print command (toolbox.printCommand): its program is only known from the configuration.
    { name: 'print', programs: [], maxMemoryBytes: 1 * GB, setting: 'engines.print.maxMemory', cancellable: true },
    // The one-shot LibreOffice fallback (soffice --convert-to); the warm listeners are capped by their pool.
    { name: 'libreoffice', programs: ['soffice', 'soffice.bin'], maxMemoryBytes: 4 * GB, setting: 'engines.libreoffice.memoryLimit', cancellable: true },
    // fc-list / fc-match: small, and their answers are cached across calls (not cancellable).
    { name: 'fontconfig', programs: ['fc-list', 'fc-match'], maxMemoryBytes: 1 * GB, setting: 'fontconfig (fixed)', cancellable: false },
  ];
}

let entries = defaults();

/** Applies the configured executables and caps (missing tools keep their defaults). */
export function configureTools(settings: Partial<Record<ToolName, Partial<ToolSettings>>>): void {
  entries = defaults().map((entry) => {
    const given = settings[entry.name];
    if (!given) return entry;
    return {
      ...entry,
      ...(given.executable === undefined ? {} : { executable: given.executable }),
      ...(given.directory === undefined ? {} : { directory: given.directory }),
      ...(given.maxMemoryBytes === undefined ? {} : { maxMemoryBytes: given.maxMemoryBytes }),
    };
  });
}

/** Back to the defaults (tests). */
export function resetTools(): void {
  entries = defaults();
}

export interface ResolvedCommand {
  /** What to execute. */
  executable: string;
  /** The tool it is, when it is one of Quire's. */
  tool?: { name: ToolName; maxMemoryBytes: number; setting: string; cancellable: boolean };
}

/**
 * The executable and tool of `command`: `tool` names it explicitly (the print command), otherwise
 * its basename or its configured executable does. A bare default name is replaced by the configured
 * executable; a path is kept as given.
 */
export function resolveCommand(command: string, tool?: ToolName): ResolvedCommand {
  const base = path.basename(command);
  const entry = tool !== undefined ? entries.find((e) => e.name === tool) : entries.find((e) => e.programs.includes(base) || (e.executable !== undefined && e.executable === command));
  if (!entry) return { executable: command };
  const described = { name: entry.name, maxMemoryBytes: entry.maxMemoryBytes, setting: entry.setting, cancellable: entry.cancellable };
  const bare = !command.includes('/');
  let executable = command;
  if (bare && entry.executable !== undefined && entry.programs[0] === command) executable = entry.executable;
  if (bare && entry.directory) executable = path.join(entry.directory, command);
  return { executable, tool: described };
}

/** The current settings of a tool (for health checks and the support page). */
export function toolSettings(name: ToolName): Readonly<ToolSettings> {
  const entry = entries.find((e) => e.name === name)!;
  return {
    ...(entry.executable === undefined ? {} : { executable: entry.executable }),
    ...(entry.directory === undefined ? {} : { directory: entry.directory }),
    maxMemoryBytes: entry.maxMemoryBytes,
  };
}
