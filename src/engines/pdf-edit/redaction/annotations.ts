import { PDFArray, PDFDict, PDFRef, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { rectOf, type Rect } from './geometry.js';
import { arrayValue, dictValue, N, nameValue, numbersOf } from '../pdf-objects.js';

/** A page's annotations, and removing some of them without leaving dangling parts behind. */

export interface PageAnnotation {
  /** The entry as the /Annots array holds it (usually a reference). */
  entry: PDFObject;
  dict: PDFDict;
  subtype: string | undefined;
}

export function annotationsOf(context: PDFContext, page: PDFDict): PageAnnotation[] {
  const annots = arrayValue(context, page.get(N('Annots')));
  if (!annots) return [];
  const out: PageAnnotation[] = [];
  for (let i = 0; i < annots.size(); i++) {
    const entry = annots.get(i);
    const dict = dictValue(context, entry);
    if (dict) out.push({ entry, dict, subtype: nameValue(context, dict.get(N('Subtype'))) });
  }
  return out;
}

export function annotationRect(context: PDFContext, annot: PDFDict): Rect | undefined {
  const r = numbersOf(context, annot.get(N('Rect')));
  if (!r || r.length !== 4 || !r.every(Number.isFinite)) return undefined;
  return rectOf(r[0]!, r[1]!, r[2]!, r[3]!);
}

/**
 * Removes the annotations `doomed` picks from the page, with the pop-ups that belong to them; form
 * widgets also leave the AcroForm field tree (a field without widgets left goes too), so no field
 * keeps its value behind an annotation that no longer exists.
 */
export function removeAnnotations(context: PDFContext, page: PDFDict, catalog: PDFDict, doomed: (annotation: PageAnnotation) => boolean): number {
  const all = annotationsOf(context, page);
  const removed = new Set<PDFDict>(all.filter(doomed).map((a) => a.dict));
  if (removed.size === 0) return 0;
  for (const annotation of all) {
    if (annotation.subtype !== 'Popup') continue;
    const parent = dictValue(context, annotation.dict.get(N('Parent')));
    if (parent && removed.has(parent)) removed.add(annotation.dict);
  }
  const kept = all.filter((a) => !removed.has(a.dict)).map((a) => a.entry);
  if (kept.length === 0) page.delete(N('Annots'));
  else page.set(N('Annots'), context.obj(kept));
  for (const dict of removed) {
    if (nameValue(context, dict.get(N('Subtype'))) === 'Widget') removeField(context, catalog, dict);
  }
  return removed.size;
}

function sameObject(context: PDFContext, entry: PDFObject, target: PDFDict): boolean {
  return entry === target || (entry instanceof PDFRef && context.lookup(entry) === target);
}

function removeFrom(context: PDFContext, array: PDFArray | undefined, target: PDFDict): boolean {
  if (!array) return false;
  for (let i = array.size() - 1; i >= 0; i--) {
    if (sameObject(context, array.get(i), target)) {
      array.remove(i);
      return true;
    }
  }
  return false;
}

/** Takes a widget (or a field whose last widget went) out of the field tree. */
function removeField(context: PDFContext, catalog: PDFDict, node: PDFDict, depth = 0): void {
  if (depth > 32) return;
  const parent = dictValue(context, node.get(N('Parent')));
  if (parent) {
    const kids = arrayValue(context, parent.get(N('Kids')));
    removeFrom(context, kids, node);
    if (!kids || kids.size() === 0) removeField(context, catalog, parent, depth + 1);
    return;
  }
  const form = dictValue(context, catalog.get(N('AcroForm')));
  removeFrom(context, arrayValue(context, form?.get(N('Fields'))), node);
}
