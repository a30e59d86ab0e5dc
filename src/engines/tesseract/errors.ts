import { EngineError } from '../engine-error.js';

/** Tesseract's own failures (the pool's timeout, busy and crash are `PoolError`s). */
export type TesseractKind =
  /** Tesseract exited with an error or wrote no output (unreadable image, broken traineddata). */
  | 'failed'
  /** The traineddata of a language is not installed (Debian package tesseract-ocr-<lang>). */
  | 'languageMissing'
  /** The tesseract executable cannot be started (engines.tesseract.executable). */
  | 'notFound';

export class TesseractError extends EngineError<TesseractKind> {}
