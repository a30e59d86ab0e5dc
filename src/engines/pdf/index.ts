/** The PDF engine: protection, metadata and form data of PDF files, read with qpdf in separate processes. */
export { PdfEngineError } from './errors.js';
export type { PdfEngineErrorKind } from './errors.js';
export { createPdfInspector, PDF_INSPECTOR_DEFAULTS, QpdfInspector } from './inspector.js';
export type { PdfInspector, PdfInspectorOptions } from './inspector.js';
export type * from './types.js';
