import { EngineError } from '../engine-error.js';

/**
 * Failures of the poppler engine (text, layout, images, rendering and transcription of PDFs), by
 * kind. The toolbox maps the kinds by name: `damaged` → -7, `timeout` → -93, `invalidOption` → -14,
 * `unsupported` → -104, `tooLarge` → -71, the rest → -102.
 */
export type PopplerErrorKind =
  /** poppler cannot open the PDF (exit 1) or its output shows the file is beyond repair. */
  | 'damaged'
  /** The tool ran past the call's deadline and was killed. */
  | 'timeout'
  /** The result (or an intermediate output the engine must hold) exceeds its bound. */
  | 'tooLarge'
  /** An option value that cannot work with this document (e.g. a render of too many pixels). */
  | 'invalidOption'
  /** A valid option this engine cannot honour. */
  | 'unsupported'
  /** The tool binary is missing or cannot be started. */
  | 'toolMissing'
  /** Any other failure of a tool (its stderr is in `detail`, for the log). */
  | 'failed';

export class PopplerError extends EngineError<PopplerErrorKind> {}
