import { EngineError } from '../../engine-error.js';

/**
 * Failures of the redaction engine. `unsupported`: an option this server cannot honour for this
 * document (e.g. a page raster that would exceed the pixel budget); `renderFailed`: poppler could not
 * render a page that has to be rasterised; `timeout`: a tool ran out of the call's time.
 */
export type RedactionErrorKind = 'unsupported' | 'renderFailed' | 'timeout' | 'invalidPdf';

export class RedactionError extends EngineError<RedactionErrorKind> {}
