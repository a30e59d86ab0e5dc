import { EngineError } from '../engine-error.js';

/**
 * What goes wrong in the barcode engine. `invalidValue`: the generator refuses the value for its
 * symbology (a rule our own checks did not cover); `unreadable`: the detector cannot read an image;
 * `busy`: every detection worker is busy and the queue is full.
 */
export type BarcodeErrorKind = 'invalidValue' | 'unreadable' | 'busy' | 'failed';

export class BarcodeError extends EngineError<BarcodeErrorKind> {}

/**
 * A refusal of a Swiss QR bill's data by the standard's rules, naming the member of the bill data it
 * concerns (`creditor.account`, `reference`…). Here, not in swiss-bill.ts, so that the operations
 * can recognise it without loading PDFKit.
 */
export class SwissBillDataError extends BarcodeError {
  constructor(
    readonly member: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('invalidValue', message, options);
  }
}
