/**
 * The poppler engine: text, word and paragraph layout, images, links and rendering of PDFs with
 * poppler-utils (pdftotext, pdfimages, pdfinfo, pdftoppm, pdftocairo) in separate processes, plus
 * the writers of the formats the toolbox returns (structured JSON/XML/text, SVG formatting,
 * BMP, multi-page TIFF, transcription HTML).
 */
export { MAX_ARCHIVE_MEMBERS, nameFromTemplate, zipFiles } from './archive.js';
export type { BlackAndWhiteQuality } from './bilevel.js';
export { BILEVEL_COMPRESSIONS, encodePage } from './encode.js';
export type { PageEncoding, TiffCompression } from './encode.js';
export { PopplerError } from './errors.js';
export type { PopplerErrorKind } from './errors.js';
export { documentInfo, pageGeometry, toViewRect } from './geometry.js';
export type { PageGeometry } from './geometry.js';
export { buildReport, HTML_TAIL, htmlHead, htmlPage } from './html.js';
export type { HtmlPage, ReportMessage } from './html.js';
export { extractImages, extractedSuffix, listImages } from './images.js';
export type { ExtractedImage, PageImage } from './images.js';
export { linkBox, linkInWord, readLinks } from './links.js';
export type { AnnotationLink, LinkKind, TextLinkRules } from './links.js';
export { planRuns } from './page-runs.js';
export type { PageRun } from './page-runs.js';
export { renderPages, renderSvg } from './render.js';
export { toFlatText, toJson, toXml } from './structured.js';
export type { Json } from './structured.js';
export { formatSvg } from './svg-format.js';
export type { SvgFormat } from './svg-format.js';
export { pageLayouts, pageTexts } from './text.js';
export type { LayoutBlock, LayoutLine, LayoutPage, LayoutWord } from './text.js';
export { mergeTiffs } from './tiff-merge.js';
export { diagnostics } from './tool.js';
export type { ToolLimits } from './tool.js';
export { applyWordRules } from './words.js';
export type { WordRules } from './words.js';
export { requireResultWithin } from './result-size.js';
