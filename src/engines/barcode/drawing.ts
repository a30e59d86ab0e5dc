/**
 * The heavy half of the barcode engine — bwip-js's encoders and pdf-lib's document writer — loaded
 * on the first call that draws a code (`loadDrawing()` in index.ts), not when the server starts:
 * together they hold ~30 MB that an idle server does not need.
 */
export { encodeCode } from './encode.js';
export { renderCodesImage } from './image-output.js';
export { newDocumentWithCodes, placeStamps, stampCodes } from './stamp.js';
