import { PDFDict, PDFName, PDFRef, PDFStream, PDFString, type PDFDocument, type PDFPage } from '@cantoo/pdf-lib';
import { cutRanges, findBlocks, scanContent, type Operand } from './content-scanner.js';
import type { Box, Matrix } from './geometry.js';
import { addBackground, addForeground, addResource, contentEntries, decodeContent, existingResources, pageResources, setContentEntries } from './page-content.js';
import { dropGroups } from './optional-content.js';
import { num } from './units.js';

/**
 * Watermarks, backgrounds, headers and footers the way Acrobat marks them, so that they can be
 * found and removed again (by this server or by Acrobat): each is a form XObject whose
 * /PieceInfo /ADBE_CompoundType /Private names the kind, drawn inside an /Artifact marked-content
 * block (PDF 32000-1, 14.8.2.2: pagination artifacts are not part of the document's real content,
 * so assistive technology and text reflow skip them).
 */
export type PaginationKind = 'Watermark' | 'Background' | 'Header' | 'Footer';

export interface ArtifactForm {
  bbox: Box;
  /** The form's content stream. */
  content: string;
  /** The form's /Resources. */
  resources: Record<string, unknown>;
  kind: PaginationKind;
  /** An optional content group that controls where it shows (screen / print). */
  optionalContent?: PDFRef;
}

export function createArtifactForm(document: PDFDocument, form: ArtifactForm): PDFRef {
  const context = document.context;
  const modified = PDFString.of(pdfDate(new Date()));
  return context.register(
    context.flateStream(form.content, {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: form.bbox.map((v) => Number(num(v))),
      Resources: form.resources,
      LastModified: modified,
      PieceInfo: { ADBE_CompoundType: { LastModified: modified, Private: form.kind } },
      ...(form.optionalContent ? { OC: form.optionalContent } : {}),
    } as Parameters<typeof context.flateStream>[1]),
  );
}

/**
 * The operators that draw a form on a page through `matrix` (form space → the page's default user
 * space), inside its artifact block; the form is added to the page's resources. The caller adds the
 * operators of one page as one stream (`addForeground` / `addBackground`).
 */
export function artifactOperators(page: PDFPage, form: PDFRef, kind: PaginationKind, matrix: Matrix): string {
  const name = addResource(pageResources(page), 'XObject', PREFIX[kind], form);
  // Backgrounds are artifacts of type /Background (14.8.2.2.2); the others pagination artifacts.
  const properties = kind === 'Background' ? '<</Type /Background>>' : `<</Type /Pagination /Subtype /${kind}>>`;
  return `/Artifact ${properties} BDC\nq ${matrix.map(num).join(' ')} cm /${name} Do Q\nEMC\n`;
}

/** Adds operators as a new content stream over or under the page's content. */
export function addPageContent(document: PDFDocument, page: PDFPage, operators: string, layer: 'foreground' | 'background'): void {
  const ref = document.context.register(document.context.flateStream(operators));
  if (layer === 'foreground') addForeground(document, page, ref);
  else addBackground(page, ref);
}

const PREFIX: Record<PaginationKind, string> = { Watermark: 'QWm', Background: 'QBg', Header: 'QHd', Footer: 'QFt' };

/** The first page (0-based) that shows content of one of these kinds; -1 if none does. */
export function findArtifacts(document: PDFDocument, kinds: ReadonlySet<PaginationKind>): number {
  return document.getPages().findIndex((page) => {
    const matcher = artifactMatcher(page, kinds);
    return contentEntries(page).some((entry) => {
      const bytes = decodeContent(page.node.context, entry);
      return matcher.worthScanning(bytes) && findBlocks(scanContent(bytes), matcher.block, matcher.xObject).length > 0;
    });
  });
}

/** Cuts content of these kinds out of every page; true if there was any. */
export function removeArtifacts(document: PDFDocument, kinds: ReadonlySet<PaginationKind>): boolean {
  let removed = false;
  const unused: { xObjects: PDFDict; names: Set<string> }[] = [];
  for (const page of document.getPages()) {
    const matcher = artifactMatcher(page, kinds);
    let changed = false;
    const entries = contentEntries(page).map((entry) => {
      const bytes = decodeContent(document.context, entry);
      if (!matcher.worthScanning(bytes)) return entry;
      const ranges = findBlocks(scanContent(bytes), matcher.block, matcher.xObject);
      if (ranges.length === 0) return entry;
      changed = true;
      // A new stream: the old one may be shared with another page.
      return document.context.register(document.context.flateStream(cutRanges(bytes, ranges)));
    });
    if (!changed) continue;
    removed = true;
    setContentEntries(page, entries);
    if (matcher.xObjects) unused.push({ xObjects: matcher.xObjects, names: matcher.xObjectNames() });
  }
  // The forms are unused now: drop their resource names once every page is done (pages may share
  // resources); the objects themselves go when the file is rewritten.
  const groups = new Set<PDFRef>();
  for (const { xObjects, names } of unused) {
    for (const name of names) {
      const form = document.context.lookup(xObjects.get(PDFName.of(name)));
      const group = form instanceof PDFStream ? form.dict.get(PDFName.of('OC')) : undefined;
      if (group instanceof PDFRef) groups.add(group);
      xObjects.delete(PDFName.of(name));
    }
  }
  dropGroups(document, groups);
  return removed;
}

function artifactMatcher(page: PDFPage, kinds: ReadonlySet<PaginationKind>) {
  const context = page.node.context;
  const resources = existingResources(page);
  const xObjects = resources ? context.lookupMaybe(resources.get(PDFName.of('XObject')), PDFDict) : undefined;
  const properties = resources ? context.lookupMaybe(resources.get(PDFName.of('Properties')), PDFDict) : undefined;
  const privateKind = (name: string): string | undefined => {
    const stream = xObjects ? context.lookup(xObjects.get(PDFName.of(name))) : undefined;
    const dict = stream instanceof PDFStream ? stream.dict : undefined;
    const piece = dict ? context.lookupMaybe(dict.get(PDFName.of('PieceInfo')), PDFDict) : undefined;
    const compound = piece ? context.lookupMaybe(piece.get(PDFName.of('ADBE_CompoundType')), PDFDict) : undefined;
    const value = compound ? context.lookup(compound.get(PDFName.of('Private'))) : undefined;
    return value instanceof PDFName ? value.decodeText() : undefined;
  };
  const matchingNames = new Set<string>();
  const kindXObjects = xObjects ? xObjects.keys().some((key) => kinds.has(privateKind(key.decodeText()) as PaginationKind)) : false;
  return {
    xObjects,
    /** Most pages have no artifacts: a byte search spares tokenising their content. */
    worthScanning: (bytes: Uint8Array) => {
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return buffer.includes('/Artifact') || (kindXObjects && buffer.includes('Do'));
    },
    block: (tag: string, props: Operand | undefined) => {
      if (tag !== 'Artifact' || !props) return false;
      let type: string | undefined;
      let subtype: string | undefined;
      if (props.type === 'dict') {
        const t = props.entries.get('Type');
        const s = props.entries.get('Subtype');
        type = t?.type === 'name' ? t.value : undefined;
        subtype = s?.type === 'name' ? s.value : undefined;
      } else if (props.type === 'name' && properties) {
        const dict = context.lookupMaybe(properties.get(PDFName.of(props.value)), PDFDict);
        const t = dict ? context.lookup(dict.get(PDFName.of('Type'))) : undefined;
        const s = dict ? context.lookup(dict.get(PDFName.of('Subtype'))) : undefined;
        type = t instanceof PDFName ? t.decodeText() : undefined;
        subtype = s instanceof PDFName ? s.decodeText() : undefined;
      }
      if (type === 'Background') return kinds.has('Background');
      return type === 'Pagination' && subtype !== undefined && kinds.has(subtype as PaginationKind);
    },
    xObject: (name: string) => {
      const kind = privateKind(name);
      const match = kind !== undefined && kinds.has(kind as PaginationKind);
      if (match) matchingNames.add(name);
      return match;
    },
    /** Every XObject name of these kinds in the page's resources. */
    xObjectNames: () => {
      if (xObjects) for (const key of xObjects.keys()) if (kinds.has(privateKind(key.decodeText()) as PaginationKind)) matchingNames.add(key.decodeText());
      return matchingNames;
    },
  };
}

/** A PDF date (7.9.4) in UTC. */
function pdfDate(date: Date): string {
  const p = (n: number, width = 2) => String(n).padStart(width, '0');
  return `D:${p(date.getUTCFullYear(), 4)}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}Z`;
}
