import { PDFArray, PDFContentStream, PDFDict, PDFName, PDFRawStream, type PDFRef, PDFStream, type PDFContext, type PDFDocument, type PDFObject, type PDFPage } from '@cantoo/pdf-lib';
import { decodeBounded } from '../stream-bounds.js';
import { PdfContentError } from './errors.js';

/**
 * Page-level plumbing shared by the content editors: the page's content streams, adding a stream
 * above or below the existing content, and resources.
 */

/** The entries of /Contents (references or direct streams), in order. */
export function contentEntries(page: PDFPage): PDFObject[] {
  const raw = page.node.get(PDFName.Contents);
  const resolved = page.node.context.lookup(raw);
  if (resolved instanceof PDFArray) return resolved.asArray();
  if (resolved instanceof PDFStream) return [raw!];
  return [];
}

export function setContentEntries(page: PDFPage, entries: PDFObject[]): void {
  if (entries.length === 0) page.node.delete(PDFName.Contents);
  else page.node.set(PDFName.Contents, page.node.context.obj(entries));
}

/** The decoded bytes of one content stream entry (none for a dangling reference, which readers skip too). */
export function decodeContent(context: PDFContext, entry: PDFObject): Uint8Array {
  const stream = context.lookup(entry);
  if (stream === undefined || !(stream instanceof PDFStream)) return new Uint8Array(0);
  try {
    if (stream instanceof PDFRawStream) return decodeBounded(stream);
    if (stream instanceof PDFContentStream) return stream.getUnencodedContents();
  } catch (error) {
    throw new PdfContentError('damaged', `a page content stream cannot be decoded: ${(error as Error).message}`, { cause: error });
  }
  return new Uint8Array(0);
}

/**
 * Per document: the two one-operator streams that isolate the existing content's graphics state,
 * so that content added on top is drawn in the page's default coordinate system (PDF 32000-1,
 * 8.4.2: a page may leave its CTM changed at the end).
 */
const isolation = new WeakMap<PDFDocument, { save: PDFRef; restore: PDFRef }>();

function isolationStreams(document: PDFDocument) {
  let streams = isolation.get(document);
  if (!streams) {
    streams = {
      save: document.context.register(document.context.stream('q\n')),
      restore: document.context.register(document.context.stream('\nQ\n')),
    };
    isolation.set(document, streams);
  }
  return streams;
}

/** Draws `content` (a stream reference) over the page. */
export function addForeground(document: PDFDocument, page: PDFPage, content: PDFRef): void {
  const { save, restore } = isolationStreams(document);
  const entries = contentEntries(page);
  const wrapped = entries.length > 0 ? [save, ...entries, restore] : [];
  setContentEntries(page, [...wrapped, content]);
}

/** Draws `content` under the page's existing content (it must leave the graphics state as it found it). */
export function addBackground(page: PDFPage, content: PDFRef): void {
  setContentEntries(page, [content, ...contentEntries(page)]);
}

/** The page's effective resource dictionary (own or inherited), if it has one. */
export function existingResources(page: PDFPage): PDFDict | undefined {
  return page.node.context.lookupMaybe(page.node.getInheritableAttribute(PDFName.Resources), PDFDict);
}

/** The page's effective resource dictionary (own or inherited), created on the page if it has none. */
export function pageResources(page: PDFPage): PDFDict {
  const context = page.node.context;
  const existing = existingResources(page);
  if (existing) return existing;
  const created = context.obj({});
  page.node.set(PDFName.Resources, created);
  return created;
}

/** A sub-dictionary of resources (/XObject, /Font, ...), created if missing. */
export function resourceCategory(resources: PDFDict, category: string): PDFDict {
  const key = PDFName.of(category);
  const existing = resources.context.lookupMaybe(resources.get(key), PDFDict);
  if (existing) return existing;
  const created = resources.context.obj({});
  resources.set(key, created);
  return created;
}

/**
 * Adds `ref` under a fresh name in a resource category, or finds the name it has there already
 * (pages often share one resource dictionary); returns the name (without slash).
 */
export function addResource(resources: PDFDict, category: string, prefix: string, ref: PDFRef | PDFDict): string {
  const dict = resourceCategory(resources, category);
  for (const [key, value] of dict.entries()) if (value === ref) return key.decodeText();
  let n = 1;
  while (dict.has(PDFName.of(`${prefix}${n}`))) n++;
  dict.set(PDFName.of(`${prefix}${n}`), ref);
  return `${prefix}${n}`;
}
