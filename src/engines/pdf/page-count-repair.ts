import { rm } from 'node:fs/promises';
import { PdfEngineError } from './errors.js';
import type { PageList } from './page-count.js';
import type { QpdfCall } from './qpdf.js';
import type { PdfStructureTool } from '../contracts.js';
import { ObjectFetcher, asDict, isRef, parseJson, asArray, asNumber } from './qpdf-json.js';
import { ObjectUpdates } from './structure/json-update.js';

/**
 * A copy of a PDF whose page tree root declares the page count the tree really has.
 *
 * A wrong root /Count (2147483647, -5, missing) is harmless to the count we use (page-count.ts walks
 * the tree) but not to the tools: qpdf refuses to assemble pages from such a primary input ("/Count
 * is wrong after flattening pages tree"), poppler reads no page at all when the count exceeds the
 * object count, pdf-lib inserts pages by the counts. So a document whose root lies is repaired once,
 * before any operation sees it, as qpdf would write it: same objects, the root's /Count corrected.
 *
 * qpdf 11.3 keeps the old value of an object that lives in an object stream when --update-from-json
 * replaces it (see json-update.ts), so the file is first rewritten without object streams; only
 * damaged files take this path.
 */
export async function repairPageCount(qpdf: PdfStructureTool, input: string, output: string, listing: PageList, call: QpdfCall): Promise<void> {
  const flat = `${output}.flat.pdf`;
  try {
    await qpdf.run(['--object-streams=disable', input, flat], call);
    const json = parseJson((await qpdf.run(['--json=2', '--json-key=qpdf', '--json-object=trailer', flat], { ...call, maxOutputBytes: 4 * 1024 * 1024 })).stdout);
    const qpdfKey = asArray(json.qpdf);
    const trailer = asDict(asDict(asDict(qpdfKey?.[1])?.trailer)?.value) ?? {};
    const fetcher = new ObjectFetcher(qpdf, flat, call);
    const rootRef = trailer['/Root'];
    const root = asDict(await fetcher.resolve(rootRef));
    if (!isRef(rootRef) || !root) throw new PdfEngineError('invalidPdf', 'The PDF has no document catalog.');
    const pagesValue = root['/Pages'];
    const pages = asDict(await fetcher.resolve(pagesValue));
    if (!pages) throw new PdfEngineError('invalidPdf', 'The PDF has no page tree.');
    const maxObjectId = Math.max(asNumber(asDict(qpdfKey?.[0])?.maxobjectid) ?? 0, 0);
    const updates = new ObjectUpdates(maxObjectId);
    const corrected = { ...pages, '/Count': listing.count };
    // The root is normally an indirect object; a page tree written inline in the catalog is corrected there.
    if (isRef(pagesValue)) updates.set(pagesValue, corrected);
    else updates.set(rootRef, { ...root, '/Pages': corrected });
    await updates.apply(qpdf, flat, output, call);
  } finally {
    await rm(flat, { force: true });
  }
}

/** Whether the root's declared /Count differs from the tree's real page count. */
export function declaresWrongCount(listing: PageList): boolean {
  return listing.declared !== listing.count;
}
