export { PrintError, type PrintErrorKind } from './errors.js';
export { MAX_COPIES, sendToPrinter, type PrintJob } from './print-command.js';
export { rasterizePdf } from './rasterize.js';
