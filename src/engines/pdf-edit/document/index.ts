/**
 * Document-level editors: the information dictionary and XMP metadata, file attachments, and PDF
 * portfolios. They work on qpdf's JSON view of individual objects and write with
 * `qpdf --update-from-json`, so the document is streamed, never held in memory.
 */
import type { PdfStructureTool } from '../../contracts.js';
import { QpdfRunner } from '../../pdf/qpdf.js';
import type { EditContext } from './document-info.js';

export { editAttachments, extractAttachments } from './attachments.js';
export type { AnnotationPlacement, AttachmentEdit, AttachmentScope, AttachmentSelection, ExtractedAttachment, NewAttachment } from './attachments.js';
export { editDescription } from './document-info.js';
export type { DescriptionEdit, EditContext, InfoValue } from './document-info.js';
export { safeFileName } from './embedded-files.js';
export { DocumentEditError } from './errors.js';
export type { DocumentEditErrorKind } from './errors.js';
export { isMimeType, mimeTypeOf, writeEmbeddedData } from './new-file.js';
export { parseDate } from './pdf-values.js';
export { editPortfolio, extractPortfolio } from './portfolio.js';
export type { PortfolioEdit, PortfolioExtracted, PortfolioNewFile, PortfolioSelection, SortCriterion, SortKey } from './portfolio.js';
export { addXmpProperties, parsePacket, replaceXmp } from './xmp-metadata.js';
export { parseXmpJson } from './xmp-schema.js';
export type { XmpNamespaceDefinition, XmpPropertyDefinition } from './xmp-schema.js';

/**
 * The qpdf runner, time limit and scratch space of one edit. `qpdf`: the server's one configured
 * runner (injected by the operations); without it a runner of its own (engine tests).
 */
export function editContext(options: { qpdf?: PdfStructureTool; timeoutMs: number; deadline: number; scratch: (extension: string) => string }): EditContext {
  return {
    qpdf: options.qpdf ?? new QpdfRunner({ qpdfPath: 'qpdf', timeoutMs: options.timeoutMs }),
    call: { deadline: options.deadline },
    scratch: options.scratch,
  };
}
