import { PDFArray, PDFCatalog, PDFDict, PDFName, PDFNumber, PDFPageLeaf, PDFPageTree, PDFRef, type PDFContext, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';

/**
 * Makes pdf-lib's view of the page tree safe to use and the same as qpdf's, before any edit.
 *
 * pdf-lib walks the tree recursively and trusts it: a /Kids loop or a /Parent loop overflows the
 * stack, a node listed under itself twice at every level multiplies the pages until the heap is gone,
 * and page insertion goes by the declared /Count values. And it classifies nodes by /Type, while qpdf
 * (whose page count every operation validates against, see engines/pdf/page-count.ts) takes a kid
 * with /Kids for a node and any other kid for a page. So the tree is walked here once, iteratively and
 * bounded, and put right the way qpdf would read it:
 *
 * - a node met a second time on the walk (a loop, or a node shared by two parents) → refused, as qpdf
 *   refuses it ("Loop detected in /Pages structure");
 * - a page listed twice → the second occurrence becomes a copy of the page (qpdf does the same);
 * - a kid that is not a dictionary (qpdf would count it as a page it cannot use) → refused;
 * - /Type, pdf-lib's node classes, every /Parent and every /Count are set from what the walk found;
 *   the root loses any /Parent.
 *
 * Values that were already right are left alone, so a sound file is saved as it was.
 */
export class PageTreeError extends Error {}

/** Deeper trees are refused: real ones are a few levels deep, and pdf-lib recurses per level. */
export const MAX_PAGE_TREE_DEPTH = 256;
/** Nodes and pages walked at most (a page costs pdf-lib a few hundred bytes; the file limit comes first). */
export const MAX_PAGE_TREE_NODES = 2_000_000;

interface Frame {
  node: PDFPageTree;
  ref: PDFRef;
  depth: number;
  /** Index of the next kid to look at. */
  next: number;
  /** Pages found below this node so far. */
  leaves: number;
}

export function normalisePageTree(document: PDFDocument): void {
  const context = document.context;
  const catalog = catalogOf(document);
  const rootValue = catalog.get(PDFName.of('Pages'));
  const root = asPageTree(context, rootValue, rootValue instanceof PDFRef ? rootValue : undefined);
  if (!root) throw new PageTreeError('the document catalog has no page tree');
  // Pages point at their parent by reference: the root must be an indirect object.
  const rootRef = rootValue instanceof PDFRef ? rootValue : context.register(root);
  if (rootValue !== rootRef) catalog.set(PDFName.of('Pages'), rootRef);
  if (root.has(PDFName.of('Parent'))) root.delete(PDFName.of('Parent'));

  const nodes = new Set<PDFDict>([root]);
  const pages = new Set<PDFDict>();
  const stack: Frame[] = [{ node: root, ref: rootRef, depth: 0, next: 0, leaves: 0 }];
  let walked = 1;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const kids = kidsOf(context, frame.node);
    if (frame.next >= kids.size()) {
      setIfDifferent(frame.node, 'Count', PDFNumber.of(frame.leaves));
      stack.pop();
      const parent = stack[stack.length - 1];
      if (parent) parent.leaves += frame.leaves;
      continue;
    }
    const index = frame.next++;
    if (++walked > MAX_PAGE_TREE_NODES) throw new PageTreeError(`the page tree has more than ${MAX_PAGE_TREE_NODES} nodes`);
    const kidValue = kids.get(index);
    const kidRef = kidValue instanceof PDFRef ? kidValue : undefined;
    const kid = kidRef ? context.lookup(kidRef) : kidValue;
    if (!(kid instanceof PDFDict)) throw new PageTreeError(`a page tree node lists kid ${index}, which is neither a page nor a node`);
    if (kid.has(PDFName.of('Kids'))) {
      if (nodes.has(kid)) throw new PageTreeError('the page tree loops (a node is listed more than once)');
      if (frame.depth + 1 > MAX_PAGE_TREE_DEPTH) throw new PageTreeError(`the page tree is more than ${MAX_PAGE_TREE_DEPTH} levels deep`);
      const node = asPageTree(context, kid, kidRef)!;
      const ref = placeKid(context, kids, index, node, kidRef);
      setIfDifferent(node, 'Parent', frame.ref);
      nodes.add(node);
      stack.push({ node, ref, depth: frame.depth + 1, next: 0, leaves: 0 });
      continue;
    }
    let page = asPageLeaf(context, kid, kidRef);
    let pageRef = kidRef;
    if (pages.has(page)) {
      // A page listed twice: the second place gets a copy, as qpdf makes one.
      page = page.clone(context);
      pageRef = undefined;
    }
    placeKid(context, kids, index, page, pageRef);
    pages.add(page);
    setIfDifferent(page, 'Parent', frame.ref);
    frame.leaves++;
  }
}

/** The document's catalog as pdf-lib's class (a catalog without /Type is read as a plain dictionary). */
function catalogOf(document: PDFDocument): PDFCatalog {
  const current = document.catalog as PDFObject | undefined;
  if (current instanceof PDFCatalog) return current;
  if (!(current instanceof PDFDict)) throw new PageTreeError('the document has no catalog');
  const catalog = PDFCatalog.fromMapWithContext(current.asMap(), document.context);
  const rootRef = document.context.trailerInfo.Root;
  if (rootRef instanceof PDFRef) document.context.assign(rootRef, catalog);
  (document as { catalog: PDFCatalog }).catalog = catalog;
  return catalog;
}

function kidsOf(context: PDFContext, node: PDFPageTree): PDFArray {
  const value = node.get(PDFName.of('Kids'));
  const kids = value instanceof PDFRef ? context.lookup(value) : value;
  if (kids instanceof PDFArray) {
    // An indirect /Kids array is made direct: pdf-lib edits it through the node.
    if (value instanceof PDFRef) node.set(PDFName.of('Kids'), kids);
    return kids;
  }
  const empty = context.obj([]);
  node.set(PDFName.of('Kids'), empty);
  return empty;
}

/** The node as pdf-lib's page tree class, replacing a plain dictionary in the context. */
function asPageTree(context: PDFContext, value: PDFObject | undefined, ref: PDFRef | undefined): PDFPageTree | undefined {
  const dict = value instanceof PDFRef ? context.lookup(value) : value;
  if (dict instanceof PDFPageTree) return withType(dict, 'Pages');
  if (!(dict instanceof PDFDict)) return undefined;
  const tree = PDFPageTree.fromMapWithContext(dict.asMap(), context);
  if (ref) context.assign(ref, tree);
  return withType(tree, 'Pages');
}

function asPageLeaf(context: PDFContext, dict: PDFDict, ref: PDFRef | undefined): PDFPageLeaf {
  if (dict instanceof PDFPageLeaf) return withType(dict, 'Page');
  const leaf = PDFPageLeaf.fromMapWithContext(dict.asMap(), context);
  if (ref) context.assign(ref, leaf);
  return withType(leaf, 'Page');
}

/** Puts `node` into the /Kids array as an indirect object (registering it when it has no number yet). */
function placeKid(context: PDFContext, kids: PDFArray, index: number, node: PDFDict, ref: PDFRef | undefined): PDFRef {
  const placed = ref ?? context.register(node);
  if (kids.get(index) !== placed) kids.set(index, placed);
  return placed;
}

function withType<T extends PDFDict>(dict: T, type: 'Page' | 'Pages'): T {
  const current = dict.get(PDFName.of('Type'));
  if (!(current instanceof PDFName) || current.decodeText() !== type) dict.set(PDFName.of('Type'), PDFName.of(type));
  return dict;
}

function setIfDifferent(dict: PDFDict, key: string, value: PDFNumber | PDFRef): void {
  const current = dict.get(PDFName.of(key));
  if (current instanceof PDFNumber && value instanceof PDFNumber && current.asNumber() === value.asNumber()) return;
  if (current === value) return;
  dict.set(PDFName.of(key), value);
}
