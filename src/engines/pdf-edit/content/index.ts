/**
 * Content editing of PDFs in memory (pdf-lib): watermarks, backgrounds, headers and footers, page
 * boxes, page transitions and document display settings.
 */
export { addBackgrounds, removeBackgrounds, type BackgroundLayer, type BackgroundSettings } from './background.js';
export { removeBox, resizeBox, type PageBox } from './boxes.js';
export { applyDisplaySettings, type DisplaySpec, type InitialView, type Magnification, type PageLayout, type ViewerPreferencesSpec } from './display.js';
export { editDocument } from './document.js';
export { inField, PdfContentError, type PdfContentErrorKind } from './errors.js';
export type { LocateOptions } from './font-locator.js';
export type { Anchor } from './geometry.js';
export { addHeaderFooter, removeHeaderFooter, type HeaderFooterSpec, type HeaderFooterTexts } from './header-footer.js';
export { removeTransitions, setTransitions, type TransitionDirection, type TransitionSpec, type TransitionStyle } from './transitions.js';
export { parseColor, toPoints, type Metrics, type Rgb } from './units.js';
export { addWatermark, type ImageWatermark, type TextWatermark, type WatermarkPosition, type WatermarkSpec } from './watermark.js';
