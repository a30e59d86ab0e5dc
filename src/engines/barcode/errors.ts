import { EngineError } from '../engine-error.js';

/**
 * What goes wrong in the barcode engine. `invalidValue`: the generator refuses the value for its
 * symbology (a rule our own checks did not cover); `unreadable`: the detector cannot read an image;
 * `busy`: every detection worker is busy and the queue is full.
 */
export type BarcodeErrorKind = 'invalidValue' | 'unreadable' | 'busy' | 'failed';

export class BarcodeError extends EngineError<BarcodeErrorKind> {}
