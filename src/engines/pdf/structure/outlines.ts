import { StructureError } from './errors.js';
import type { QpdfCall } from '../qpdf.js';
import type { PdfStructureTool } from '../../contracts.js';
import { asDict, isRef } from '../qpdf-json.js';
import type { QDict, QValue } from '../qpdf-json.js';
import { readDocumentJson } from './document-json.js';
import type { OutlineNode } from './document-json.js';
import { ObjectUpdates, text } from './json-update.js';

/**
 * The outline (bookmarks) of a merge result. qpdf keeps the base document's outline and drops those
 * of the inserted documents; this puts them back, as webPDF does: appended to the root, or under a
 * slash-separated path of new bookmarks ("A/B/name") when an `outlineName` is given, for the base
 * (merge.outlineName) and for the inserted documents (data.outlineName). Path nodes jump to the first
 * page of their part; paths that share a beginning share their nodes.
 *
 * The edit is one `qpdf --update-from-json` pass over the merged file. The whole outline is written
 * as new objects (see json-update.ts for why nothing is edited in place): the base's bookmarks are
 * copied with everything they carry (destination or action, colour, style), only their links change.
 */
export interface InsertedOutline {
  /** Shown for the document when several are inserted under one path. */
  title: string;
  /** Result page (1-based) of the document's first page. */
  firstPage: number;
  pageCount: number;
  /** The document's own outline, page numbers relative to the document. */
  outlines: OutlineNode[];
}

export interface OutlinePlan {
  /** Result page of the base document's first page; undefined when the base has no pages. */
  baseFirstPage: number | undefined;
  /** merge.outlineName; "" keeps the base's bookmarks at the root. */
  basePath: string;
  inserted: InsertedOutline[];
  /** data.outlineName; "" appends the inserted documents' bookmarks to the root. */
  insertedPath: string;
  /** The inserted part comes before the base's first page (its bookmarks come first too). */
  insertedFirst: boolean;
}

type Node =
  | { kind: 'existing'; ref: string; open: boolean; children: Node[] }
  | { kind: 'new'; title: string; page: number | undefined; view: QValue[]; open: boolean; children: Node[]; path: boolean };

const LINKS = ['/Parent', '/Prev', '/Next', '/First', '/Last', '/Count'];

/** Whether there is outline work at all (else the merged file keeps the base's outline as it is). */
export function outlineWorkNeeded(basePath: string, insertedPath: string, insertedHaveOutlines: boolean): boolean {
  return pathSegments(basePath).length > 0 || pathSegments(insertedPath).length > 0 || insertedHaveOutlines;
}

export async function writeMergedOutlines(qpdf: PdfStructureTool, input: string, output: string, plan: OutlinePlan, call: QpdfCall): Promise<void> {
  const document = await readDocumentJson(qpdf, input, call, { pages: true, outlines: true });
  const { fetcher, pages } = document;
  const rootRef = document.trailer['/Root'];
  if (!isRef(rootRef)) throw new StructureError('unreadable', 'the merged document has no catalog');
  const existing = (item: OutlineNode): Node => ({ kind: 'existing', ref: item.object, open: item.open, children: item.kids.map(existing) });
  const baseNodes = document.outlines.map(existing);
  const refsBelow = (nodes: Node[]): string[] => nodes.flatMap((n) => (n.kind === 'existing' ? [n.ref, ...refsBelow(n.children)] : []));
  await fetcher.fetch([rootRef, ...refsBelow(baseNodes)]);
  const catalog = asDict(fetcher.get(rootRef)) ?? {};
  const pageRef = (page: number | undefined): string | undefined => (page === undefined ? undefined : pages[page - 1]);

  const root: Node[] = [];
  const insertedNodes = (): Node[] => {
    const perDocument = plan.inserted.map((d) => ({ d, items: d.outlines.map((item) => copied(item, d)) }));
    const segments = pathSegments(plan.insertedPath);
    const first = plan.inserted[0];
    if (segments.length === 0 || first === undefined) return perDocument.flatMap((entry) => entry.items);
    const leaf = pathLeaf(root, segments, first.firstPage);
    if (perDocument.length === 1) for (const item of perDocument[0]!.items) leaf.push(item);
    else for (const { d, items } of perDocument) leaf.push({ kind: 'new', title: d.title, page: d.firstPage, view: [], open: true, children: items, path: false });
    return [];
  };
  const placeBase = () => {
    const segments = pathSegments(plan.basePath);
    // Loops, not push(...): an outline may have more items at one level than a call takes arguments.
    const into = segments.length > 0 && plan.baseFirstPage !== undefined ? pathLeaf(root, segments, plan.baseFirstPage) : root;
    for (const node of baseNodes) into.push(node);
  };
  if (plan.insertedFirst) {
    for (const node of insertedNodes()) root.push(node);
    placeBase();
  } else {
    placeBase();
    for (const node of insertedNodes()) root.push(node);
  }

  const updates = new ObjectUpdates(document.maxObjectId);
  const outlinesRef = updates.allocate();
  const refs = new Map<Node, string>();
  const refOf = (node: Node): string => {
    let ref = refs.get(node);
    if (!ref) {
      ref = updates.allocate();
      refs.set(node, ref);
    }
    return ref;
  };
  /** Writes `children` below `parent`; returns how many bookmarks they show when `parent` is open. */
  const emit = (parent: string, children: Node[]): number => {
    let visible = 0;
    children.forEach((node, index) => {
      let value: QDict;
      if (node.kind === 'existing') {
        value = { ...(asDict(fetcher.get(node.ref)) ?? {}) };
        for (const key of LINKS) delete value[key];
      } else {
        value = { '/Title': text(node.title) };
        const target = pageRef(node.page);
        if (target !== undefined) value['/Dest'] = [target, ...(node.view.length > 0 ? node.view : ['/XYZ', null, null, null])];
      }
      value['/Parent'] = parent;
      if (index > 0) value['/Prev'] = refOf(children[index - 1]!);
      if (index < children.length - 1) value['/Next'] = refOf(children[index + 1]!);
      visible += 1;
      if (node.children.length > 0) {
        const below = emit(refOf(node), node.children);
        value['/First'] = refOf(node.children[0]!);
        value['/Last'] = refOf(node.children[node.children.length - 1]!);
        value['/Count'] = node.open ? below : -below;
        if (node.open) visible += below;
      }
      updates.set(refOf(node), value);
    });
    return visible;
  };
  const total = emit(outlinesRef, root);
  const outlinesValue: QDict = { '/Type': '/Outlines' };
  if (root.length > 0) {
    outlinesValue['/First'] = refOf(root[0]!);
    outlinesValue['/Last'] = refOf(root[root.length - 1]!);
    outlinesValue['/Count'] = total;
  }
  updates.set(outlinesRef, outlinesValue);
  updates.setTrailer({ ...document.trailer, '/Root': updates.add({ ...catalog, '/Outlines': outlinesRef }) });
  await updates.apply(qpdf, input, output, call);
}

function pathSegments(path: string): string[] {
  return path
    .split('/')
    .map((segment) => segment.trim())
    .filter((segment) => segment !== '');
}

/** The children list at the end of `segments` below `level`, creating (or reusing) path bookmarks. */
function pathLeaf(level: Node[], segments: string[], page: number): Node[] {
  let children = level;
  for (const title of segments) {
    let node = children.find((n): n is Extract<Node, { kind: 'new' }> => n.kind === 'new' && n.path && n.title === title);
    if (!node) {
      node = { kind: 'new', title, page, view: [], open: true, children: [], path: true };
      children.push(node);
    }
    children = node.children;
  }
  return children;
}

/** A bookmark of an inserted document, its page moved to where the document landed. */
function copied(item: OutlineNode, document: InsertedOutline): Node {
  const inRange = item.page !== undefined && item.page <= document.pageCount;
  // The view (/XYZ left top zoom, /Fit, ...) carries over; references in it would point into the source file.
  const view = inRange && item.dest ? item.dest.slice(1).filter((value) => !isRef(value)) : [];
  return {
    kind: 'new',
    title: item.title,
    page: inRange ? document.firstPage + item.page! - 1 : undefined,
    view,
    open: item.open,
    children: item.kids.map((kid) => copied(kid, document)),
    path: false,
  };
}
