import { PDFDict, PDFName, PDFRef, type PDFDocument, type PDFObject, type PDFPage } from '@cantoo/pdf-lib';
import { invalid } from './errors.js';
import { boxOf, overlaps, PageGeometry, type RectangleSpec } from './geometry.js';
import { arrayOf, matchesObjectKey, nameIn, parseObjectKey, textOf } from './pdf-values.js';

/** An annotation as it sits in a page's /Annots array. */
export interface PageAnnotation {
  pageNumber: number;
  page: PDFPage;
  /** Undefined for (invalid, but seen) direct dictionaries in /Annots. */
  ref: PDFRef | undefined;
  dict: PDFDict;
  subtype: string;
}

/** `Operation_SelectionAnnotation`. */
export interface SelectSpec {
  objectKey?: { id?: string };
  page?: number;
  position?: RectangleSpec;
}

export function requirePageNumber(page: number | undefined, pageCount: number, field: string): number {
  const value = page ?? 1;
  if (!Number.isInteger(value) || value < 1 || value > pageCount) {
    throw invalid(field, `page ${value} is out of range: the document has ${pageCount} page${pageCount === 1 ? '' : 's'}.`);
  }
  return value;
}

/** Every annotation of the page, in /Annots order. */
export function annotationsOf(document: PDFDocument, pageNumber: number): PageAnnotation[] {
  const page = document.getPage(pageNumber - 1);
  const annots = arrayOf(document.context, page.node.get(PDFName.of('Annots')));
  if (!annots) return [];
  const list: PageAnnotation[] = [];
  for (const entry of annots.asArray()) {
    const ref = entry instanceof PDFRef ? entry : undefined;
    const dict = entry instanceof PDFRef ? document.context.lookup(entry) : entry;
    if (!(dict instanceof PDFDict)) continue;
    list.push({ pageNumber, page, ref, dict, subtype: nameIn(dict, 'Subtype') ?? '' });
  }
  return list;
}

/**
 * Annotations the client can address: pop-ups belong to their parent and form field widgets to the
 * form (the forms operation handles them), so neither is selected on its own.
 */
export function isSelectable(annotation: PageAnnotation): boolean {
  return annotation.subtype !== 'Popup' && annotation.subtype !== 'Widget';
}

/**
 * The annotations a selection names: per entry, those of its page with the object key and/or
 * overlapping its position (every selectable one of the page when it gives neither). An entry
 * that matches nothing is an error: a stale key should not pass for success.
 */
export function selectAnnotations(document: PDFDocument, selects: readonly SelectSpec[] | undefined, field: string): PageAnnotation[] {
  if (!selects || selects.length === 0) throw invalid(`${field}.select`, 'required: at least one entry naming a page and optionally an objectKey or position.');
  const pageCount = document.getPageCount();
  const chosen = new Map<PDFObject, PageAnnotation>();
  for (const [index, select] of selects.entries()) {
    const entryField = `${field}.select[${index}]`;
    const pageNumber = requirePageNumber(select.page, pageCount, `${entryField}.page`);
    const id = select.objectKey?.id?.trim() ?? '';
    const key = id === '' ? undefined : parseObjectKey(id);
    if (id !== '' && !key) throw invalid(`${entryField}.objectKey.id`, `"${id}" is no object key (expected e.g. "12" or "12 0 R").`);
    const area = select.position ? new PageGeometry(document.getPage(pageNumber - 1)).rectangle(select.position) : undefined;
    const matches = annotationsOf(document, pageNumber).filter((annotation) => {
      if (!isSelectable(annotation)) return false;
      if (key && !matchesObjectKey(annotation.ref, key)) return false;
      if (area) {
        const rect = boxOf(annotation.dict.lookup(PDFName.of('Rect')));
        if (!rect || !overlaps(rect, area)) return false;
      }
      return true;
    });
    if (matches.length === 0) {
      const what = key ? `object key "${id}"` : area ? 'an area overlapping position' : 'any annotation';
      throw invalid(entryField, `page ${pageNumber} has no annotation with ${what}.`);
    }
    for (const match of matches) chosen.set(match.ref ?? match.dict, match);
  }
  return [...chosen.values()];
}

/** The annotation a comment answers, by its name (/NM) or object key, on one page. */
export function findAnnotation(document: PDFDocument, pageNumber: number, nameOrKey: string, field: string): PageAnnotation {
  const wanted = nameOrKey.trim();
  if (wanted === '') throw invalid(field, 'required: the name (/NM) or object key of the annotation.');
  const candidates = annotationsOf(document, pageNumber).filter(isSelectable);
  const byName = candidates.find((a) => textOf(a.dict.lookup(PDFName.of('NM'))) === wanted);
  if (byName) return byName;
  const key = parseObjectKey(wanted);
  const byKey = key ? candidates.find((a) => matchesObjectKey(a.ref, key)) : undefined;
  if (byKey) return byKey;
  throw invalid(field, `page ${pageNumber} has no annotation named or keyed "${wanted}".`);
}
