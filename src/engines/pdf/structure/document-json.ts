import { PdfEngineError } from '../errors.js';
import { listPages } from '../page-count.js';
import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { ObjectFetcher, asArray, asDict, asNumber, parseJson } from '../qpdf-json.js';
import type { QDict } from '../qpdf-json.js';
import { readOutlineTree } from './outline-reader.js';
import type { OutlineNode } from './outline-reader.js';

export type { OutlineNode } from './outline-reader.js';

/**
 * One qpdf JSON look at a document: its page objects in order, its outline tree, the trailer and the
 * highest object number, plus an object fetcher for whatever else the caller needs (catalog,
 * AcroForm, outline items).
 *
 * The pages come from qpdf's walk of the page tree (page-count.ts) and the outline from our own
 * bounded walk of the items (outline-reader.ts), never from qpdf's `--json-key=pages` or
 * `--json-key=outlines`, which loop on an outline cycle. For the outline walk every object is read in
 * the one JSON run (dictionaries only, no stream data) when that output stays within bounds.
 */
export interface DocumentJson {
  pages: string[];
  outlines: OutlineNode[];
  trailer: QDict;
  /** The highest object number in use: new objects get numbers above it. */
  maxObjectId: number;
  fetcher: ObjectFetcher;
}

const MAX_JSON_BYTES = 256 * 1024 * 1024;

export async function readDocumentJson(qpdf: PdfStructureTool, file: string, call: QpdfCall, parts: { pages?: boolean; outlines?: boolean } = {}): Promise<DocumentJson> {
  const trailerOnly = ['--json=2', '--json-key=qpdf', '--json-object=trailer', file];
  const overview = async (): Promise<{ json: QDict; complete: boolean }> => {
    if (!parts.outlines) return { json: parseJson((await qpdf.run(trailerOnly, { ...call, maxOutputBytes: MAX_JSON_BYTES })).stdout), complete: false };
    try {
      return { json: parseJson((await qpdf.run(['--json=2', '--json-key=qpdf', file], { ...call, maxOutputBytes: MAX_JSON_BYTES })).stdout), complete: true };
    } catch (error) {
      // Too many objects to hold at once: the outline items are fetched as the walk reaches them.
      if (!(error instanceof PdfEngineError && error.kind === 'outputTooLarge')) throw error;
      return { json: parseJson((await qpdf.run(trailerOnly, { ...call, maxOutputBytes: MAX_JSON_BYTES })).stdout), complete: false };
    }
  };
  const needPages = parts.pages === true || parts.outlines === true;
  const [{ json, complete }, listing] = await Promise.all([overview(), needPages ? listPages(qpdf, file, call) : undefined]);
  const qpdfKey = asArray(json.qpdf);
  const header = asDict(qpdfKey?.[0]);
  const objects = asDict(qpdfKey?.[1]) ?? {};
  const trailer = asDict(asDict(objects.trailer)?.value) ?? {};
  const fetcher = new ObjectFetcher(qpdf, file, call, 2000, MAX_JSON_BYTES);
  fetcher.absorb(complete ? objects : { trailer: { value: trailer } }, complete);
  const size = asNumber(trailer['/Size']) ?? 0;
  const pages = listing?.refs ?? [];
  const catalog = parts.outlines ? asDict(await fetcher.resolve(trailer['/Root'])) : undefined;
  return {
    pages,
    outlines: catalog ? await readOutlineTree(fetcher, catalog, pages) : [],
    trailer,
    maxObjectId: Math.max(asNumber(header?.maxobjectid) ?? 0, size - 1),
    fetcher,
  };
}

/** Reads only the outline tree (for a merge source). */
export async function readOutlines(qpdf: PdfStructureTool, file: string, call: QpdfCall): Promise<OutlineNode[]> {
  return (await readDocumentJson(qpdf, file, call, { outlines: true })).outlines;
}
