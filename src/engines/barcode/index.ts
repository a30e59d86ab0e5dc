/** Barcodes: generation (bwip-js, drawn as vector paths into pages) and detection (zxing-wasm). */
export { CleanInputTool } from './clean-input.js';
export type { CodeShape } from './encode.js';
export { BarcodeError, type BarcodeErrorKind, SwissBillDataError } from './errors.js';
export type { SwissBillData, SwissBillFormat, SwissBillLanguage, SwissBillSeparator, SwissBillSpec } from './swiss-bill.js';
export type { CodeRectangle, CodeStamp } from './stamp.js';
export { isSymbology, MATRIX_SYMBOLOGIES, SYMBOLOGIES, type CodeSpec, type Symbology } from './symbologies.js';
export { BarcodeDetector, type DecodeOptions, type DetectorSettings } from './detect/detector.js';
export type { FoundCode } from './detect/protocol.js';
export { imageFrames, pageBoxes, type PageBox, type PixelArea, renderPageImage } from './detect/sources.js';
export type { CodeImageFormat } from './image-output.js';

let drawing: Promise<typeof import('./drawing.js')> | undefined;
/** Encoding and drawing codes (bwip-js, pdf-lib): loaded on first use, see drawing.ts. */
export function loadDrawing(): Promise<typeof import('./drawing.js')> {
  drawing ??= import('./drawing.js');
  return drawing;
}

let swissBill: Promise<typeof import('./swiss-bill.js')> | undefined;
/** The Swiss QR bill (swissqrbill and PDFKit, with its font metrics): loaded by the first call that makes one. */
export function loadSwissBill(): Promise<typeof import('./swiss-bill.js')> {
  swissBill ??= import('./swiss-bill.js');
  return swissBill;
}
