/** Barcodes: generation (bwip-js, drawn as vector paths into pages) and detection (zxing-wasm). */
export { encodeCode, type CodeShape } from './encode.js';
export { BarcodeError, type BarcodeErrorKind } from './errors.js';
export { newDocumentWithCodes, placeStamps, stampCodes, type CodeRectangle, type CodeStamp } from './stamp.js';
export { isSymbology, MATRIX_SYMBOLOGIES, SYMBOLOGIES, type CodeSpec, type Symbology } from './symbologies.js';
export { BarcodeDetector, type DecodeOptions, type DetectorSettings } from './detect/detector.js';
export type { FoundCode } from './detect/protocol.js';
export { imageFrames, pageBoxes, type PageBox, type PixelArea, renderPageImage } from './detect/sources.js';
export { type CodeImageFormat, renderCodesImage } from './image-output.js';
