import { EngineError } from '../../engine-error.js';

/**
 * Failures of the structure engine (page assembly, splitting, rotation, scaling, outlines) that are
 * not qpdf's own (those stay `PdfEngineError`s). The toolbox maps the kinds by name:
 * `invalidOption` → -14, `unreadable` → -7, `tooLarge` → -71, `unsupported` → -104.
 */
export type StructureErrorKind = 'invalidOption' | 'unreadable' | 'tooLarge' | 'unsupported';

export class StructureError extends EngineError<StructureErrorKind> {}
