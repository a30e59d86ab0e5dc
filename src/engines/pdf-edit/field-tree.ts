import { PDFArray, PDFDict, PDFName, PDFRef, type PDFContext, type PDFDocument, type PDFObject } from '@cantoo/pdf-lib';

/**
 * Makes the AcroForm field tree safe for pdf-lib, which walks it recursively and trusts it: its
 * getAllFields() follows /Kids without noticing a node it has seen (a loop overflows the stack, a node
 * listed twice under each of its parents multiplies the fields level by level until the heap is gone)
 * and field names are built by following /Parent upwards.
 *
 * The tree is walked here once, iteratively: a kid met a second time (a loop or a shared node) is taken
 * out of the /Kids array that lists it again, kids below MAX_FIELD_DEPTH are dropped, every kid's
 * /Parent is the node that lists it, and a top-level field loses a /Parent that leads nowhere sane.
 * What was already right is left alone.
 */
export class FieldTreeError extends Error {}

export const MAX_FIELD_DEPTH = 64;
export const MAX_FIELD_NODES = 500_000;

export function normaliseFieldTree(document: PDFDocument): void {
  const context = document.context;
  const form = dictOf(context, document.catalog.get(PDFName.of('AcroForm')));
  const fields = arrayOf(context, form?.get(PDFName.of('Fields')));
  if (!fields) return;
  const seen = new Set<PDFDict>();
  const stack: { list: PDFArray; parent: PDFRef | undefined; depth: number }[] = [{ list: fields, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const { list, parent, depth } = stack.pop()!;
    for (let i = 0; i < list.size(); ) {
      const value = list.get(i);
      const node = dictOf(context, value);
      if (!node) {
        i++;
        continue;
      }
      if (seen.has(node) || depth >= MAX_FIELD_DEPTH) {
        // A loop or a node listed twice, or too deep: out of the tree.
        list.remove(i);
        continue;
      }
      seen.add(node);
      if (seen.size > MAX_FIELD_NODES) throw new FieldTreeError(`the form has more than ${MAX_FIELD_NODES} fields and widgets`);
      if (parent) {
        if (node.get(PDFName.of('Parent')) !== parent) node.set(PDFName.of('Parent'), parent);
      } else if (parentChainLoops(context, node)) {
        node.delete(PDFName.of('Parent'));
      }
      const kids = arrayOf(context, node.get(PDFName.of('Kids')));
      if (kids && value instanceof PDFRef) stack.push({ list: kids, parent: value, depth: depth + 1 });
      else if (kids) node.delete(PDFName.of('Kids')); // a direct field cannot be a /Parent
      i++;
    }
  }
}

/** Whether following /Parent from `node` meets a node twice or goes on beyond the depth bound. */
function parentChainLoops(context: PDFContext, node: PDFDict): boolean {
  const chain = new Set<PDFDict>([node]);
  for (let current = dictOf(context, node.get(PDFName.of('Parent'))); current; current = dictOf(context, current.get(PDFName.of('Parent')))) {
    if (chain.has(current) || chain.size > MAX_FIELD_DEPTH) return true;
    chain.add(current);
  }
  return false;
}

function dictOf(context: PDFContext, value: PDFObject | undefined): PDFDict | undefined {
  const resolved = value instanceof PDFRef ? context.lookup(value) : value;
  return resolved instanceof PDFDict ? resolved : undefined;
}

function arrayOf(context: PDFContext, value: PDFObject | undefined): PDFArray | undefined {
  const resolved = value instanceof PDFRef ? context.lookup(value) : value;
  return resolved instanceof PDFArray ? resolved : undefined;
}
