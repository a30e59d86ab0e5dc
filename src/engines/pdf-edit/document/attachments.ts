import { writeFile } from 'node:fs/promises';
import { asArray, asDict, isRef, type QDict, type QValue } from '../../pdf/qpdf-json.js';
import type { EditContext } from './document-info.js';
import { addFileSpec, readEmbeddedFiles, readPageAttachments, writeEmbeddedFiles, type DocumentAttachment, type NewEmbeddedFile, type PageAttachment } from './embedded-files.js';
import { DocumentEditError } from './errors.js';
import { readPages, type PageInfo } from './page-tree.js';
import { PdfObjects, type PdfUpdate } from './pdf-objects.js';
import { pdfDate, text } from './pdf-values.js';

/**
 * Adding, removing and extracting file attachments: document-level ones (EmbeddedFiles name tree)
 * and page-level ones (file attachment annotations).
 */

export type AttachmentScope = 'page' | 'document' | 'all';

export interface AttachmentSelection {
  scope: AttachmentScope;
  /** Whether a file name is selected (the caller compiles its file mask into this). */
  matches: (fileName: string) => boolean;
  /** 1-based pages whose annotations are considered; undefined: all pages. */
  pages?: ReadonlySet<number>;
}

/** Where and how a page-level attachment's annotation appears. Lengths are in points. */
export interface AnnotationPlacement {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** true: webPDF "user" coordinates (origin top-left of the page as displayed, y downwards); false: "pdf" (bottom-left of the unrotated page, y upwards). */
  fromTop: boolean;
  /** /Name of the icon; undefined: no icon is drawn. */
  icon: 'Graph' | 'Paperclip' | 'PushPin' | 'Tag' | undefined;
  color: [number, number, number];
  /** 0…1 */
  opacity: number;
  locked: boolean;
  popupText: string;
  author: string;
}

export interface NewAttachment extends NewEmbeddedFile {
  /** A page-level attachment when given, else a document-level one. */
  annotation?: AnnotationPlacement;
}

export interface AttachmentEdit {
  /** Removed first, so that `add` can replace what it removes. */
  remove: readonly AttachmentSelection[];
  add: readonly NewAttachment[];
  now: Date;
}

export interface ExtractedAttachment {
  name: string;
  /** The page of a page-level attachment. */
  page?: number;
  /** The decoded data, in a scratch file. */
  file: string;
}

const involvesPages = (selection: AttachmentSelection): boolean => selection.scope !== 'document';
const involvesDocument = (selection: AttachmentSelection): boolean => selection.scope !== 'page';

export async function editAttachments(input: string, output: string, edit: AttachmentEdit, context: EditContext): Promise<{ removed: number }> {
  const objects = await PdfObjects.open(context.qpdf, input, context.call, context.scratch);
  const update = objects.update();
  const { ref: catalogRef, dict: catalogDict } = await objects.catalog();
  const catalog = { ...catalogDict };
  const tree = await readEmbeddedFiles(objects, catalog);

  const needsPages = edit.remove.some(involvesPages) || edit.add.some((file) => file.annotation);
  const pages = needsPages ? await readPages(objects, catalog['/Pages']) : [];

  // Document level: what stays, then what is added (same key: the new file wins).
  const documentSelections = edit.remove.filter(involvesDocument);
  const documentAdds = edit.add.filter((file) => !file.annotation);
  const kept = tree.entries.filter((entry) => !documentSelections.some((s) => s.matches(entry.name)));
  let removed = tree.entries.length - kept.length;
  // A new file replaces one shown under the same name, whatever its key in the tree.
  const replaced = new Set(documentAdds.map((file) => file.name));
  const entries = kept.filter((entry) => !replaced.has(entry.name)).map((entry) => ({ key: entry.key, value: entry.filespec }));
  for (const file of documentAdds) entries.push({ key: file.name, value: addFileSpec(update, file) });
  if (removed > 0 || documentAdds.length > 0) {
    writeEmbeddedFiles(update, catalog, tree, entries);
    update.set(catalogRef, catalog);
  }

  // Page level: annotations removed and added, page by page.
  const pageSelections = edit.remove.filter(involvesPages);
  const doomed = new Map<string, Set<QValue>>();
  if (pageSelections.length > 0) {
    const all = pageSelections.some((s) => !s.pages);
    const wanted = all ? undefined : new Set(pageSelections.flatMap((s) => [...(s.pages ?? [])]));
    for (const attachment of await readPageAttachments(objects, pages, wanted)) {
      if (!pageSelections.some((s) => (!s.pages || s.pages.has(attachment.page)) && s.matches(attachment.name))) continue;
      const set = doomed.get(attachment.pageRef) ?? new Set<QValue>();
      set.add(attachment.annotation);
      doomed.set(attachment.pageRef, set);
      removed++;
    }
  }
  const added = new Map<string, string[]>();
  for (const file of edit.add) {
    if (!file.annotation) continue;
    const page = pages[file.annotation.page - 1];
    if (!page) throw new DocumentEditError('invalidOption', `page ${file.annotation.page} is out of range: the document has ${pages.length} pages`);
    const annotation = await fileAnnotation(update, page, file, edit.now, context);
    added.set(page.ref, [...(added.get(page.ref) ?? []), annotation]);
  }
  for (const page of pages) {
    if (!doomed.has(page.ref) && !added.has(page.ref)) continue;
    rewriteAnnots(objects, update, page, doomed.get(page.ref) ?? new Set(), added.get(page.ref) ?? []);
  }
  await objects.commit(update, output);
  return { removed };
}

/** The file attachment annotation (with its embedded file) for one page-level attachment. */
async function fileAnnotation(update: PdfUpdate, page: PageInfo, file: NewAttachment, now: Date, context: EditContext): Promise<string> {
  const placement = file.annotation!;
  const width = placement.width > 0 ? placement.width : 20;
  const height = placement.height > 0 ? placement.height : 20;
  const [a, b] = [toPdfSpace(page, placement, placement.x, placement.y), toPdfSpace(page, placement, placement.x + width, placement.y + height)];
  const rect = [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])].map((n) => Math.round(n * 1000) / 1000);
  const spec = addFileSpec(update, file);
  const annotation: QDict = {
    '/Type': '/Annot',
    '/Subtype': '/FileAttachment',
    '/Rect': rect,
    '/FS': spec,
    '/Contents': text(placement.popupText || file.name),
    '/Name': `/${placement.icon ?? 'Paperclip'}`,
    '/C': placement.color,
    '/CA': placement.opacity,
    // 4 = Print; 128 = Locked (the annotation cannot be moved or resized).
    '/F': 4 | (placement.locked ? 128 : 0),
    '/M': text(pdfDate(now)),
    '/P': page.ref,
  };
  if (placement.author) annotation['/T'] = text(placement.author);
  if (!placement.icon) {
    // No icon: an empty appearance, so viewers draw nothing where they would draw their default icon.
    const empty = context.scratch('bin');
    await writeFile(empty, '');
    annotation['/AP'] = { '/N': update.addStream({ '/Type': '/XObject', '/Subtype': '/Form', '/BBox': [0, 0, width, height] }, empty) };
  }
  return update.add(annotation);
}

/**
 * A point of the caller's coordinates in the page's default user space. "pdf" coordinates are that
 * space already (origin bottom-left of the unrotated page); "user" coordinates start at the top-left
 * corner of the page as displayed, so the page's /Rotate is undone.
 */
function toPdfSpace(page: PageInfo, placement: AnnotationPlacement, x: number, y: number): [number, number] {
  const [llx, lly, urx, ury] = page.box;
  if (!placement.fromTop) return [llx + x, lly + y];
  switch (page.rotate) {
    case 90:
      return [llx + y, lly + x];
    case 180:
      return [urx - x, lly + y];
    case 270:
      return [urx - y, ury - x];
    default:
      return [llx + x, ury - y];
  }
}

/** Writes a page's /Annots without `doomed` (and the pop-ups they own) and with `added`. */
function rewriteAnnots(objects: PdfObjects, update: PdfUpdate, page: PageInfo, doomed: Set<QValue>, added: string[]): void {
  const current = page.dict['/Annots'];
  const list = asArray(objects.peek(current)) ?? [];
  const popups = new Set<QValue>([...doomed].map((entry) => asDict(objects.peek(entry))?.['/Popup']).filter((p): p is string => isRef(p)));
  const next: QValue[] = [...list.filter((entry) => !doomed.has(entry) && !popups.has(entry)), ...added];
  if (isRef(current) && Array.isArray(objects.peek(current))) {
    update.set(current, next);
    return;
  }
  const dict = { ...page.dict };
  if (next.length > 0) dict['/Annots'] = next;
  else delete dict['/Annots'];
  update.set(page.ref, dict);
}

/** The data of the selected attachments, decoded into files named `<prefix>-<object number>`. */
export async function extractAttachments(input: string, selections: readonly AttachmentSelection[], prefix: string, context: EditContext): Promise<ExtractedAttachment[]> {
  const objects = await PdfObjects.open(context.qpdf, input, context.call, context.scratch, { readOnly: true });
  const { dict: catalog } = await objects.catalog();
  const chosen: (DocumentAttachment | PageAttachment)[] = [];
  if (selections.some(involvesDocument)) {
    const tree = await readEmbeddedFiles(objects, catalog);
    const documentSelections = selections.filter(involvesDocument);
    for (const entry of tree.entries) if (documentSelections.some((s) => s.matches(entry.name))) chosen.push(entry);
  }
  const pageSelections = selections.filter(involvesPages);
  if (pageSelections.length > 0) {
    const pages = await readPages(objects, catalog['/Pages']);
    const all = pageSelections.some((s) => !s.pages);
    const wanted = all ? undefined : new Set(pageSelections.flatMap((s) => [...(s.pages ?? [])]));
    for (const attachment of await readPageAttachments(objects, pages, wanted)) {
      if (pageSelections.some((s) => (!s.pages || s.pages.has(attachment.page)) && s.matches(attachment.name))) chosen.push(attachment);
    }
  }
  const withData = chosen.filter((attachment) => attachment.stream !== undefined);
  const files = await objects.streamsToFiles(
    withData.map((attachment) => attachment.stream!),
    prefix,
  );
  return withData.flatMap((attachment) => {
    const data = files.get(attachment.stream!);
    if (!data) return [];
    return [{ name: attachment.name, file: data.file, ...('page' in attachment ? { page: attachment.page } : {}) }];
  });
}
