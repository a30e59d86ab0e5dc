/** The raw COS layer of the PDF/A validator: open a file, read its syntax facts and its object graph. */
export { CosDocument, type CosInput, openCosBytes, openCosDocument } from './document.js';
export { CosError, type CosErrorKind } from './errors.js';
export { type DecodeResult, type FilterStep, filterChain } from './filters.js';
export type { EofFacts, HeaderFacts } from './header.js';
export { type CosLimits, DEFAULT_COS_LIMITS } from './limits.js';
export { type ContentToken, contentTokens } from './content.js';
export { CosParser, type CosKeyword, type ParseEnv } from './parser.js';
export * from './properties.js';
export { isValidUtf8, textString } from './text.js';
export * from './types.js';
export type { XrefEntry, XrefSection } from './xref.js';
