import { asArray, asDict, asName, asText, isRef, type QDict, type QValue } from '../../pdf/qpdf-json.js';
import { readNameTree, writeNameTree, type NameTreeEntry } from './name-tree.js';
import type { PageInfo } from './page-tree.js';
import type { PdfObjects, PdfUpdate } from './pdf-objects.js';
import { byteString, name, pdfDate, text } from './pdf-values.js';

/**
 * Embedded files (ISO 32000-1 §7.11.4): the document-level ones in the EmbeddedFiles name tree and
 * the page-level ones behind file attachment annotations (§12.5.6.15).
 */

/** What a file specification says about its embedded file. */
export interface EmbeddedFileInfo {
  /** The file name to show (/UF, else /F). */
  name: string;
  description: string;
  /** The embedded file stream (/EF /UF, else /EF /F); undefined for a reference to an external file. */
  stream: string | undefined;
}

export interface DocumentAttachment extends EmbeddedFileInfo {
  /** The key in the EmbeddedFiles name tree. */
  key: string;
  /** The tree's value: the file specification (usually a reference). */
  filespec: QValue;
}

export interface PageAttachment extends EmbeddedFileInfo {
  /** 1-based page number. */
  page: number;
  pageRef: string;
  /** The entry of the page's /Annots array (a reference, or an inline dictionary). */
  annotation: QValue;
}

/** The catalog's name dictionary and EmbeddedFiles tree, with their entries. */
export interface EmbeddedFilesTree {
  /** The catalog's /Names value (a reference, a dictionary, or undefined). */
  names: QValue | undefined;
  namesDict: QDict;
  entries: DocumentAttachment[];
}

export async function readEmbeddedFiles(objects: PdfObjects, catalog: QDict): Promise<EmbeddedFilesTree> {
  const names = catalog['/Names'];
  const namesDict = (await objects.dict(names)) ?? {};
  const raw = await readNameTree(objects, namesDict['/EmbeddedFiles']);
  await objects.fetch(raw.map((entry) => entry.value).filter((value): value is string => isRef(value)));
  await objects.fetch(raw.map((entry) => asDict(objects.peek(entry.value))?.['/EF']).filter((value): value is string => isRef(value)));
  const entries: DocumentAttachment[] = [];
  for (const entry of raw) {
    const info = describe(objects, entry.value, entry.key);
    if (info) entries.push({ ...info, key: entry.key, filespec: entry.value });
  }
  return { names, namesDict, entries };
}

/** Reads a file specification (fetched already); undefined when it is no dictionary. */
function describe(objects: PdfObjects, filespec: QValue, fallbackName: string): EmbeddedFileInfo | undefined {
  const dict = asDict(objects.peek(filespec));
  if (!dict) return undefined;
  const ef = asDict(objects.peek(dict['/EF']));
  const stream = [ef?.['/UF'], ef?.['/F']].find((candidate) => isRef(candidate)) as string | undefined;
  const fileName = asText(objects.peek(dict['/UF'])) || asText(objects.peek(dict['/F'])) || asText(objects.peek(dict['/DOS'])) || fallbackName;
  return { name: fileName, description: asText(objects.peek(dict['/Desc'])) ?? '', stream };
}

/** The file attachment annotations of the given pages, in page and /Annots order. */
export async function readPageAttachments(objects: PdfObjects, pages: readonly PageInfo[], selected: ReadonlySet<number> | undefined): Promise<PageAttachment[]> {
  const wanted = pages.map((page, index) => ({ page, number: index + 1 })).filter(({ number }) => !selected || selected.has(number));
  await objects.fetch(wanted.map(({ page }) => page.dict['/Annots']).filter((value): value is string => isRef(value)));
  const annotationRefs = wanted.flatMap(({ page }) => asArray(objects.peek(page.dict['/Annots'])) ?? []).filter((value): value is string => isRef(value));
  await objects.fetch(annotationRefs);
  const fileSpecs = annotationRefs.map((ref) => asDict(objects.peek(ref))?.['/FS']).filter((value): value is string => isRef(value));
  await objects.fetch(fileSpecs);
  await objects.fetch(fileSpecs.map((ref) => asDict(objects.peek(ref))?.['/EF']).filter((value): value is string => isRef(value)));
  const found: PageAttachment[] = [];
  for (const { page, number } of wanted) {
    for (const annotation of asArray(objects.peek(page.dict['/Annots'])) ?? []) {
      const dict = asDict(objects.peek(annotation));
      if (!dict || asName(dict['/Subtype']) !== 'FileAttachment') continue;
      const info = describe(objects, dict['/FS'] ?? null, asText(dict['/Contents']) || `attachment-${number}`);
      if (info) found.push({ ...info, page: number, pageRef: page.ref, annotation });
    }
  }
  return found;
}

/** A file to embed: its data is in `dataFile` (written by the caller, unfiltered). */
export interface NewEmbeddedFile {
  name: string;
  dataFile: string;
  size: number;
  /** MD5 of the data (the /CheckSum of the parameters). */
  md5: Buffer;
  mimeType: string;
  description?: string;
  created: Date;
  /** Collection item entries (/CI), e.g. Creator or Order; omitted when empty. */
  collectionItem?: Record<string, QValue>;
}

/** Adds the embedded file stream and its file specification; returns the specification's reference. */
export function addFileSpec(update: PdfUpdate, file: NewEmbeddedFile): string {
  const stream = update.addStream(
    {
      '/Type': '/EmbeddedFile',
      '/Subtype': name(file.mimeType || 'application/octet-stream'),
      '/Params': { '/Size': file.size, '/CreationDate': text(pdfDate(file.created)), '/ModDate': text(pdfDate(file.created)), '/CheckSum': byteString(file.md5) },
    },
    file.dataFile,
  );
  const spec: QDict = { '/Type': '/Filespec', '/F': text(file.name), '/UF': text(file.name), '/EF': { '/F': stream, '/UF': stream } };
  if (file.description) spec['/Desc'] = text(file.description);
  if (file.collectionItem && Object.keys(file.collectionItem).length > 0) {
    spec['/CI'] = update.add({ '/Type': '/CollectionItem', ...file.collectionItem });
  }
  return update.add(spec);
}

/**
 * Points the catalog at a new EmbeddedFiles tree with `entries` (none: the tree is removed). The
 * catalog copy `catalog` is changed in place when the name dictionary is inline; an indirect name
 * dictionary is rewritten through `update`.
 */
export function writeEmbeddedFiles(update: PdfUpdate, catalog: QDict, tree: EmbeddedFilesTree, entries: readonly NameTreeEntry[]): void {
  const names: QDict = { ...tree.namesDict };
  if (entries.length > 0) names['/EmbeddedFiles'] = writeNameTree(update, entries);
  else delete names['/EmbeddedFiles'];
  if (isRef(tree.names)) update.set(tree.names, names);
  else if (Object.keys(names).length > 0) catalog['/Names'] = names;
  else delete catalog['/Names'];
}

/** A name for a ZIP entry: no path separators, control characters or dot-only names. */
export function safeFileName(value: string, fallback = 'attachment'): string {
  const cleaned = value
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[/\\]/g, '_')
    .trim()
    .slice(0, 200);
  if (cleaned === '' || /^\.+$/.test(cleaned)) return fallback;
  return cleaned;
}
