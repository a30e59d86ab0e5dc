import { EngineError } from '../engine-error.js';

/**
 * Failures of printing. The toolbox maps the kinds by name: `invalidOption` → -14,
 * `unsupported` → -104, `timeout` → -93, `failed` (the print command or the rasterizer failed) → -102.
 */
export type PrintErrorKind = 'invalidOption' | 'unsupported' | 'timeout' | 'failed';

export class PrintError extends EngineError<PrintErrorKind> {}
