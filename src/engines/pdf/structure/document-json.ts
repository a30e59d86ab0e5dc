import type { QpdfCall, QpdfRunner } from '../qpdf.js';
import { ObjectFetcher, asArray, asDict, asNumber, parseJson } from '../qpdf-json.js';
import type { QDict, QValue } from '../qpdf-json.js';

/**
 * One qpdf JSON look at a document: its page objects in order, its outline tree, the trailer and the
 * highest object number, plus an object fetcher for whatever else the caller needs (catalog,
 * AcroForm, outline items). One qpdf process for the overview; the fetcher adds one per batch.
 */
export interface OutlineNode {
  /** The item's own object ("12 0 R"). */
  object: string;
  title: string;
  open: boolean;
  /** The destination as qpdf resolved it ([page, /XYZ, …]); undefined for actions that are not page jumps. */
  dest: QValue[] | undefined;
  /** 1-based page the item jumps to, if it jumps to a page of this document. */
  page: number | undefined;
  kids: OutlineNode[];
}

export interface DocumentJson {
  pages: string[];
  outlines: OutlineNode[];
  trailer: QDict;
  /** The highest object number in use: new objects get numbers above it. */
  maxObjectId: number;
  fetcher: ObjectFetcher;
}

const MAX_JSON_BYTES = 256 * 1024 * 1024;

export async function readDocumentJson(
  qpdf: QpdfRunner,
  file: string,
  call: QpdfCall,
  parts: { pages?: boolean; outlines?: boolean } = {},
): Promise<DocumentJson> {
  const args = ['--json=2', '--json-key=qpdf', '--json-object=trailer'];
  if (parts.pages) args.push('--json-key=pages');
  if (parts.outlines) args.push('--json-key=outlines');
  const result = await qpdf.run([...args, file], { ...call, maxOutputBytes: MAX_JSON_BYTES });
  const json = parseJson(result.stdout);
  const qpdfKey = asArray(json.qpdf);
  const header = asDict(qpdfKey?.[0]);
  const objects = asDict(qpdfKey?.[1]) ?? {};
  const trailer = asDict(asDict(objects.trailer)?.value) ?? {};
  const fetcher = new ObjectFetcher(qpdf, file, call);
  fetcher.absorb({ trailer: { value: trailer } }, false);
  const size = asNumber(trailer['/Size']) ?? 0;
  return {
    pages: (asArray(json.pages) ?? []).map((page) => String(asDict(page)?.object ?? '')),
    outlines: (asArray(json.outlines) ?? []).map(outlineNode),
    trailer,
    maxObjectId: Math.max(asNumber(header?.maxobjectid) ?? 0, size - 1),
    fetcher,
  };
}

function outlineNode(value: QValue): OutlineNode {
  const item = asDict(value) ?? {};
  const page = asNumber(item.destpageposfrom1);
  const dest = asArray(item.dest);
  return {
    object: String(item.object ?? ''),
    title: typeof item.title === 'string' ? item.title : '',
    open: item.open !== false,
    dest,
    page: page !== undefined && page >= 1 ? page : undefined,
    kids: (asArray(item.kids) ?? []).map(outlineNode),
  };
}

/** Reads only the outline tree (for a merge source). */
export async function readOutlines(qpdf: QpdfRunner, file: string, call: QpdfCall): Promise<OutlineNode[]> {
  const result = await qpdf.run(['--json=2', '--json-key=outlines', file], { ...call, maxOutputBytes: MAX_JSON_BYTES });
  return (asArray(parseJson(result.stdout).outlines) ?? []).map(outlineNode);
}
