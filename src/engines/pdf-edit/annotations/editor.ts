import { randomUUID } from 'node:crypto';
import { PDFArray, PDFDict, PDFName, PDFRef, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';
import { setNormalAppearance } from './content.js';
import { invalid } from './errors.js';
import { AppearanceBurner } from './flatten.js';
import { FontCache } from './fonts.js';
import { boxOf, PageGeometry, type Box } from './geometry.js';
import { ANNOTATION_KINDS, buildKind, opacityOf, SUBTYPES, type AnnotationKind, type Built, type CommonSpec, type KindSpecs, type PageContext } from './kinds.js';
import { arrayOf, dateString, dictOf, isPlainName, literalString, nameIn, rgb, round, textString } from './pdf-values.js';
import { annotationsOf, findAnnotation, requirePageNumber, selectAnnotations, type PageAnnotation, type SelectSpec } from './selection.js';

/**
 * Adds, edits, answers and removes annotations of a document loaded with pdf-lib (the low-level
 * objects: the annotation dictionaries are written exactly as ISO 32000 describes them).
 * `finish()` must run before saving: it writes flattened appearances into the pages.
 */

export interface ReplySpec {
  page?: number;
  replyTo?: string;
  creator?: string;
  name?: string;
  subject?: string;
}

export interface ReplyEditSpec {
  objectKey?: { id?: string };
  page?: number;
  comment?: string;
  creator?: string;
  name?: string;
  subject?: string;
}

export type ReplyState = 'accepted' | 'rejected' | 'cancelled' | 'completed' | 'none';

const FLAGS = { invisible: 1, hidden: 2, print: 4, noZoom: 8, noRotate: 16, noView: 32, readOnly: 64, locked: 128 } as const;

const REVIEW_STATES: Record<ReplyState, string> = { accepted: 'Accepted', rejected: 'Rejected', cancelled: 'Cancelled', completed: 'Completed', none: 'None' };

export class AnnotationEditor {
  private readonly fonts: FontCache;
  private readonly burner: AppearanceBurner;
  private readonly geometries = new Map<number, PageGeometry>();
  private readonly now = new Date();

  constructor(private readonly document: PDFDocument) {
    this.fonts = new FontCache(document);
    this.burner = new AppearanceBurner(document);
  }

  get pageCount(): number {
    return this.document.getPageCount();
  }

  // ---- add / edit ----

  async add<K extends AnnotationKind>(kind: K, spec: KindSpecs[K], field: string): Promise<PDFRef> {
    const pageNumber = requirePageNumber(spec.page, this.pageCount, `${field}.page`);
    const page = this.pageContext(pageNumber);
    const built = await buildKind(kind, spec, page, undefined, field);
    const { context } = this.document;
    const dict = context.obj({});
    this.writeCommon(dict, spec, built, page, true, field);
    const ref = context.register(dict);
    page.page.node.addAnnot(ref);
    if (kind === 'text') this.addPopup(page, ref, dict, built.rect, built.popupOpen ?? true);
    return ref;
  }

  /** Applies each given kind to the selected annotations of that kind; returns how many changed. */
  async edit(selection: readonly SelectSpec[] | undefined, kinds: Partial<KindSpecs>, field: string): Promise<number> {
    const given = ANNOTATION_KINDS.filter((kind) => kinds[kind] !== undefined);
    if (given.length === 0) throw invalid(field, `give the new properties in one of ${ANNOTATION_KINDS.join(', ')}.`);
    const selected = selectAnnotations(this.document, selection, `${field}.selection`);
    let changed = 0;
    for (const annotation of selected) {
      const kind = given.find((k) => SUBTYPES[k].includes(annotation.subtype) && !(k === 'text' && isComment(annotation.dict)));
      if (!kind) continue;
      const page = this.pageContext(annotation.pageNumber);
      const spec = kinds[kind]!;
      const built = await buildKind(kind, spec, page, annotation.dict, `${field}.${kind}`);
      this.writeCommon(annotation.dict, spec, built, page, false, `${field}.${kind}`);
      if (kind === 'text') {
        const popup = dictOf(this.document.context, annotation.dict.get(PDFName.of('Popup')));
        popup?.set(PDFName.of('Open'), this.document.context.obj(built.popupOpen ?? true));
      }
      changed++;
    }
    if (changed === 0) {
      const found = [...new Set(selected.map((a) => a.subtype || 'unknown'))].join(', ');
      throw invalid(field, `the selection holds ${found} annotations; none of them is of the kind given (${given.join(', ')}).`);
    }
    return changed;
  }

  // ---- remove / clear ----

  /** Removes the selected annotations (with their pop-ups and replies); returns how many. */
  remove(selection: readonly SelectSpec[] | undefined, flatten: boolean, field: string): number {
    const selected = selectAnnotations(this.document, selection, `${field}.selection`);
    this.drop(selected, flatten);
    return selected.length;
  }

  /** Removes every annotation of the pages except form field widgets; returns how many. */
  clear(pages: readonly number[], flatten: boolean): number {
    let count = 0;
    for (const pageNumber of pages) {
      const doomed = annotationsOf(this.document, pageNumber).filter((a) => a.subtype !== 'Widget');
      this.drop(doomed, flatten);
      count += doomed.length;
    }
    return count;
  }

  private drop(annotations: readonly PageAnnotation[], flatten: boolean): void {
    const byPage = new Map<number, PageAnnotation[]>();
    for (const annotation of annotations) byPage.set(annotation.pageNumber, [...(byPage.get(annotation.pageNumber) ?? []), annotation]);
    for (const [pageNumber, list] of byPage) {
      if (flatten) for (const annotation of list) if (!isComment(annotation.dict)) this.burner.burn(annotation.page, annotation.dict);
      this.removeFromPage(pageNumber, list);
    }
  }

  /** Takes the annotations, their pop-ups and (transitively) their replies off the page and deletes them. */
  private removeFromPage(pageNumber: number, targets: readonly PageAnnotation[]): void {
    const { context } = this.document;
    const all = annotationsOf(this.document, pageNumber);
    const doomed = new Set<PDFObject>(targets.map((t) => t.ref ?? t.dict));
    const refOf = (a: PageAnnotation) => a.ref ?? a.dict;
    let grew = true;
    while (grew) {
      grew = false;
      for (const annotation of all) {
        if (doomed.has(refOf(annotation))) continue;
        const parent = annotation.dict.get(PDFName.of(annotation.subtype === 'Popup' ? 'Parent' : 'IRT'));
        if (parent && doomed.has(parent)) {
          doomed.add(refOf(annotation));
          grew = true;
        }
      }
    }
    const page = this.document.getPage(pageNumber - 1);
    const annots = arrayOf(context, page.node.get(PDFName.of('Annots')));
    if (!annots) return;
    for (let i = annots.size() - 1; i >= 0; i--) {
      const entry = annots.get(i);
      if (doomed.has(entry)) annots.remove(i);
    }
    for (const item of doomed) if (item instanceof PDFRef) context.delete(item);
  }

  // ---- comments ----

  addReply(spec: ReplySpec & { comment?: string }, field: string): PDFRef {
    return this.addComment(spec, field, { contents: spec.comment ?? '' });
  }

  addReviewState(spec: ReplySpec & { replyState?: ReplyState }, field: string): PDFRef {
    const state = REVIEW_STATES[spec.replyState ?? 'none'];
    return this.addComment(spec, field, { state, model: 'Review', contents: spec.creator ? `${state} set by ${spec.creator}` : state });
  }

  addMarkedState(spec: ReplySpec & { markedState?: boolean }, field: string): PDFRef {
    const state = (spec.markedState ?? true) ? 'Marked' : 'Unmarked';
    return this.addComment(spec, field, { state, model: 'Marked', contents: spec.creator ? `${state} set by ${spec.creator}` : state });
  }

  editReply(spec: ReplyEditSpec, field: string): void {
    const pageNumber = requirePageNumber(spec.page, this.pageCount, `${field}.page`);
    const id = spec.objectKey?.id?.trim() ?? '';
    if (id === '') throw invalid(`${field}.objectKey.id`, 'required: the object key of the reply.');
    const target = findAnnotation(this.document, pageNumber, id, `${field}.objectKey.id`);
    if (!isComment(target.dict)) throw invalid(`${field}.objectKey.id`, `annotation "${id}" on page ${pageNumber} is no reply (a text annotation answering another, /IRT).`);
    const { dict } = target;
    if (spec.comment) dict.set(PDFName.of('Contents'), textString(spec.comment));
    if (spec.creator) dict.set(PDFName.of('T'), textString(spec.creator));
    if (spec.subject) dict.set(PDFName.of('Subj'), textString(spec.subject));
    if (spec.name) dict.set(PDFName.of('NM'), textString(spec.name));
    dict.set(PDFName.of('M'), dateString(this.now));
  }

  private addComment(spec: ReplySpec, field: string, what: { contents: string; state?: string; model?: string }): PDFRef {
    const pageNumber = requirePageNumber(spec.page, this.pageCount, `${field}.page`);
    const parent = findAnnotation(this.document, pageNumber, spec.replyTo ?? '', `${field}.replyTo`);
    if (!parent.ref) throw invalid(`${field}.replyTo`, 'the annotation is stored inline in the page and cannot be answered.');
    const rect = boxOf(parent.dict.lookup(PDFName.of('Rect'))) ?? [0, 0, 0, 0];
    const { context } = this.document;
    const entries: Record<string, PDFObject> = {
      Type: PDFName.of('Annot'),
      Subtype: PDFName.of('Text'),
      // A reply sits on its parent's top-left corner, as an icon.
      Rect: context.obj([round(rect[0]), round(rect[3] - 20), round(rect[0] + 20), round(rect[3])]),
      P: parent.page.ref,
      IRT: parent.ref,
      RT: PDFName.of('R'),
      Name: PDFName.of('Comment'),
      Open: context.obj(false),
      // Review and mark states are records, not notes: hidden (12.5.6.3); replies neither zoom nor rotate, like notes.
      F: context.obj(FLAGS.noZoom | FLAGS.noRotate | (what.state ? FLAGS.hidden : 0)),
      Contents: textString(what.contents),
      NM: textString(spec.name || `quire-${randomUUID()}`),
      M: dateString(this.now),
      CreationDate: dateString(this.now),
    };
    if (spec.creator) entries.T = textString(spec.creator);
    if (spec.subject) entries.Subj = textString(spec.subject);
    if (what.state) {
      entries.State = literalString(what.state);
      entries.StateModel = literalString(what.model!);
    }
    const color = parent.dict.get(PDFName.of('C'));
    if (color instanceof PDFArray) entries.C = color;
    const ref = context.register(context.obj(entries));
    parent.page.node.addAnnot(ref);
    return ref;
  }

  // ---- finishing ----

  /** Draws the flattened appearances into their pages. */
  finish(): void {
    this.burner.finish();
  }

  // ---- helpers ----

  private pageContext(pageNumber: number): PageContext {
    const page = this.document.getPage(pageNumber - 1);
    let geometry = this.geometries.get(pageNumber);
    if (!geometry) {
      geometry = new PageGeometry(page);
      this.geometries.set(pageNumber, geometry);
    }
    return { document: this.document, page, geometry, fonts: this.fonts };
  }

  /**
   * The entries every kind has. On edit an empty string keeps the current value (the clients send
   * "" for every text member they were not given, reference §5.3).
   */
  private writeCommon(dict: PDFDict, spec: CommonSpec, built: Built, page: PageContext, isNew: boolean, field: string): void {
    const { context } = this.document;
    const set = (key: string, value: PDFObject | undefined) => (value === undefined ? dict.delete(PDFName.of(key)) : dict.set(PDFName.of(key), value));
    const text = (key: string, value: string | undefined) => {
      if (value) set(key, textString(value));
    };
    set('Type', PDFName.of('Annot'));
    set('Subtype', PDFName.of(built.subtype));
    set('Rect', context.obj(built.rect.map((v) => round(v)) as Box));
    set('P', page.page.ref);
    set('F', context.obj(flagsOf(spec)));
    set('C', context.obj(rgb(spec.color, '#4800FF')));
    set('CA', context.obj(opacityOf(spec)));
    text('Contents', spec.contents);
    text('T', spec.creator);
    text('Subj', spec.subject);
    if (spec.name) set('NM', textString(spec.name));
    else if (isNew) set('NM', textString(`quire-${randomUUID()}`));
    if (spec.intents) {
      if (!isPlainName(spec.intents)) throw invalid(`${field}.intents`, `"${spec.intents}" is no intent name (letters and digits, e.g. FreeTextCallout).`);
      set('IT', PDFName.of(spec.intents));
    }
    set('M', dateString(this.now));
    if (isNew) set('CreationDate', dateString(this.now));
    for (const [key, value] of Object.entries(built.entries)) set(key, value);
    setNormalAppearance(context, dict, built.appearance);
  }

  private addPopup(page: PageContext, parentRef: PDFRef, parent: PDFDict, rect: Box, open: boolean): void {
    const { context } = this.document;
    const [left, bottom, right, top] = page.geometry.box;
    const width = Math.min(200, right - left);
    const height = Math.min(120, top - bottom);
    let x = rect[2] + 4;
    if (x + width > right) x = Math.max(left, rect[0] - 4 - width);
    const y = Math.min(top, Math.max(bottom + height, rect[3]));
    const popup = context.obj({
      Type: 'Annot',
      Subtype: 'Popup',
      Rect: [round(x), round(y - height), round(x + width), round(y)],
      Parent: parentRef,
      Open: open,
      F: FLAGS.noZoom | FLAGS.noRotate,
    });
    const popupRef = context.register(popup);
    parent.set(PDFName.of('Popup'), popupRef);
    page.page.node.addAnnot(popupRef);
  }
}

function flagsOf(spec: CommonSpec): number {
  let flags = 0;
  if (spec.invisible) flags |= FLAGS.invisible;
  if (spec.hidden) flags |= FLAGS.hidden;
  if (spec.printable) flags |= FLAGS.print;
  if (spec.zoomable === false) flags |= FLAGS.noZoom;
  if (spec.rotatable === false) flags |= FLAGS.noRotate;
  if (spec.viewable === false) flags |= FLAGS.noView;
  if (spec.writable === false) flags |= FLAGS.readOnly;
  if (spec.locked ?? true) flags |= FLAGS.locked;
  return flags;
}

/** A reply or state annotation (a text annotation answering another). */
function isComment(dict: PDFDict): boolean {
  return nameIn(dict, 'Subtype') === 'Text' && dict.get(PDFName.of('IRT')) !== undefined;
}
