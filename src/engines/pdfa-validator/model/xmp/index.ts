/**
 * The XMP part of the PDF/A validator's document model: the objects with veraPDF's XMP types
 * (MainXMPPackage, XMPProperty, PDFAIdentification…) read from the document's metadata streams.
 * See README.md in this folder for the types and properties implemented.
 */
import type { CosDocument } from '../../cos/index.js';
import type { ModelObject } from '../../profile/model.js';

/** The veraPDF types this folder implements (a rule on any other type is not-checked). */
export const XMP_TYPES: readonly string[] = [];

/** The XMP model objects of the document. */
export function xmpObjects(_doc: CosDocument): ModelObject[] {
  return [];
}
