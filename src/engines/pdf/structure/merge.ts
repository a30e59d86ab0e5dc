import { countPages } from '../page-count.js';
import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { assemblePages } from './assemble.js';
import type { PagePart } from './assemble.js';
import { editCatalog } from './catalog-edit.js';
import { readOutlines } from './document-json.js';
import type { OutlineNode } from './document-json.js';
import { outlineWorkNeeded, writeMergedOutlines } from './outlines.js';
import type { InsertedOutline } from './outlines.js';
import { mayContain, scanForKeys } from './token-scan.js';
import { mapLimited } from '../../../core/map-limited.js';

/**
 * Inserts PDFs into a base document (webPDF toolbox `merge`): one qpdf page assembly, then, only when
 * needed, one pass for the outline (the inserted documents' bookmarks, outline paths) and one for
 * document-level edits (reset metadata, remove XFA). Sources must be readable without a password
 * (the caller decrypts protected ones first).
 */
export type MergePosition = { at: 'end' } | { at: 'start' } | { at: 'after'; page: number } | { at: 'before'; page: number };

export interface MergeSource {
  file: string;
  /** A name for the document's bookmark when several are put under one outline path. */
  title: string;
  /** False when the caller knows the file has no bookmarks (see unlockedSource); else it is scanned. */
  mayHaveOutlines?: boolean;
}

export interface MergeRequest {
  base: string;
  /** Pages of the base, when the caller has counted them (positions need it). */
  basePageCount?: number;
  sources: readonly MergeSource[];
  position: MergePosition;
  /** merge.outlineName: the base's bookmarks go under this slash-separated path. */
  baseOutlinePath: string;
  /** data.outlineName: the inserted documents' bookmarks go under this path. */
  insertedOutlinePath: string;
  resetMetadata: boolean;
  removeXfa: boolean;
  producer: string;
  /** A fresh scratch path for an intermediate or final PDF. */
  scratch: () => string;
}

const PROBES_IN_PARALLEL = 4;

/** Returns the path of the merged document (one of `scratch()`'s). */
export async function mergeDocuments(qpdf: PdfStructureTool, request: MergeRequest, call: QpdfCall): Promise<string> {
  const { base, sources, position } = request;
  const merged = request.scratch();
  await assemblePages(qpdf, base, partsFor(position, sources, request.basePageCount), merged, call);
  let current = merged;

  // The inserted documents' own bookmarks: qpdf does not carry them. Most documents have none, and a
  // byte scan says so without starting qpdf.
  const outlines = await mapLimited(sources, PROBES_IN_PARALLEL, async (source): Promise<OutlineNode[]> => {
    const maybe = source.mayHaveOutlines ?? mayContain(await scanForKeys(source.file, ['/Outlines']), '/Outlines');
    return maybe ? readOutlines(qpdf, source.file, call) : [];
  });
  const count = (file: string) => countPages(qpdf, file, call);
  const wanted = outlineWorkNeeded(
    request.baseOutlinePath,
    request.insertedOutlinePath,
    outlines.some((items) => items.length > 0),
  );
  if (wanted) {
    const baseCount = request.basePageCount ?? (await count(base));
    const counts = await mapLimited(sources, PROBES_IN_PARALLEL, (source) => count(source.file));
    const insertedTotal = counts.reduce((sum, n) => sum + n, 0);
    const layout = pageLayout(position, baseCount, insertedTotal);
    let next = layout.insertedStart;
    const inserted: InsertedOutline[] = sources.map((source, index) => {
      const entry = { title: source.title, firstPage: next, pageCount: counts[index]!, outlines: outlines[index]! };
      next += counts[index]!;
      return entry;
    });
    const outlined = request.scratch();
    await writeMergedOutlines(
      qpdf,
      current,
      outlined,
      {
        baseFirstPage: baseCount > 0 ? layout.baseStart : undefined,
        basePath: request.baseOutlinePath,
        inserted,
        insertedPath: request.insertedOutlinePath,
        insertedFirst: layout.insertedStart < layout.baseStart,
      },
      call,
    );
    current = outlined;
  }

  if (request.resetMetadata || request.removeXfa) {
    const edited = request.scratch();
    await editCatalog(qpdf, current, edited, { resetMetadata: request.resetMetadata, removeXfa: request.removeXfa, now: new Date(), producer: request.producer }, call);
    current = edited;
  }
  return current;
}

function partsFor(position: MergePosition, sources: readonly MergeSource[], basePageCount: number | undefined): PagePart[] {
  const inserted: PagePart[] = sources.map((source) => ({ file: source.file }));
  if (basePageCount === 0) return inserted;
  switch (position.at) {
    case 'end':
      return [{ file: 'base' }, ...inserted];
    case 'start':
      return [...inserted, { file: 'base' }];
    case 'after': {
      const rest: PagePart[] = basePageCount !== undefined && position.page >= basePageCount ? [] : [{ file: 'base', pages: `${position.page + 1}-z` }];
      return [{ file: 'base', pages: `1-${position.page}` }, ...inserted, ...rest];
    }
    case 'before': {
      const head: PagePart[] = position.page > 1 ? [{ file: 'base', pages: `1-${position.page - 1}` }] : [];
      return [...head, ...inserted, { file: 'base', pages: `${position.page}-z` }];
    }
  }
}

/** Where the base's first page and the first inserted page end up (1-based). */
function pageLayout(position: MergePosition, baseCount: number, insertedTotal: number): { baseStart: number; insertedStart: number } {
  if (baseCount === 0) return { baseStart: insertedTotal + 1, insertedStart: 1 };
  switch (position.at) {
    case 'end':
      return { baseStart: 1, insertedStart: baseCount + 1 };
    case 'start':
      return { baseStart: insertedTotal + 1, insertedStart: 1 };
    case 'after':
      return { baseStart: 1, insertedStart: position.page + 1 };
    case 'before':
      return position.page === 1 ? { baseStart: insertedTotal + 1, insertedStart: 1 } : { baseStart: 1, insertedStart: position.page };
  }
}
