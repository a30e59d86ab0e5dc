/**
 * The text engine: decodes text files (byte order mark, UTF-8, detected legacy encodings) and renders
 * plain text as a self-contained HTML document for Chromium to print.
 */
export { canonicalEncoding } from './charsets.js';
export { decodeBytes, decodeText } from './decode.js';
export type { DecodedText, DecodeTextOptions } from './decode.js';
export { htmlDocument } from './document.js';
export type { HtmlDocumentParts } from './document.js';
export { TextEngineError } from './errors.js';
export type { TextEngineErrorKind } from './errors.js';
export { escapeHtml } from './escape.js';
export { readBounded } from './read-bounded.js';
export { DEFAULT_FONT_STACK, resolveTextOptions } from './options.js';
export type { ResolvedTextOptions, TextRenderOptions, WordBreak } from './options.js';
export { renderTextBlock, textToHtml } from './render.js';
export type { TextBlock, TextToHtmlOptions } from './render.js';
