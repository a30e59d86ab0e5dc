import { EngineError } from '../engine-error.js';

/**
 * A child process (or a pool worker) needed more memory than its configured cap and was stopped.
 * Engines let it pass unchanged (it is not a `RunError`), so every operation reports it as
 * ENGINE_MEMORY_LIMIT (-109) instead of a tool failure or a "damaged PDF": under a tight address
 * space, qpdf reports objects it could not allocate as damage, and poppler prints "Out of memory"
 * and exits 0 with a blank page.
 */
export class MemoryLimitError extends EngineError<'memoryLimit'> {
  constructor(
    /** What ran out: `qpdf`, `pdftoppm`, `Ghostscript`, `libreoffice`, ... */
    readonly engine: string,
    readonly limitBytes: number,
    /** The configuration key of the cap, e.g. `engines.qpdf.maxMemory`. */
    readonly setting: string,
    /** The tool's own diagnostics, for the log. */
    detail = '',
  ) {
    super('memoryLimit', `${engine} needed more memory than the ${formatBytes(limitBytes)} it may use (${setting}); the document is too complex or malformed.`, { detail });
  }
}

/**
 * What tools print when an allocation failed: C++ `std::bad_alloc` (qpdf, poppler's C++ tools),
 * poppler's "Out of memory" (gmem; pdftoppm then exits 0), cairo's "out of memory", Ghostscript's
 * /VMerror and "Last OS error: Cannot allocate memory" (on stdout), the dynamic loader's "failed
 * to map segment" when the cap is too low to load the libraries, and glibc/Python phrasings.
 */
const ALLOCATION_FAILED = /std::bad_alloc|\bout of memory\b|cannot allocate memory|memory exhausted|\/VMerror|failed to map segment|MemoryError|allocation failed/i;

/** True when a capped child's diagnostics say an allocation failed. */
export function reportsAllocationFailure(text: string): boolean {
  return ALLOCATION_FAILED.test(text);
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1 && value % 1024 === 0) {
    value /= 1024;
    unit++;
  }
  if (unit === 0 && bytes >= 1024 * 1024) return `${Math.round(bytes / 1048576)} MB`;
  return `${value} ${units[unit]}`;
}
