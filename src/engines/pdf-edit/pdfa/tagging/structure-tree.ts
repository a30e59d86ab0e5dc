import { PDFDict, PDFName, PDFNumber, type PDFContext, type PDFObject, type PDFRef } from '@cantoo/pdf-lib';
import { textString } from '../text-string.js';
import type { Rect } from '../../redaction/geometry.js';
import type { Leaf, PageNode } from './roles.js';

/**
 * The structure tree of the marks (ISO 32000-1 §14.7): StructTreeRoot → Document → (Sect from each
 * H1) → P, H1…H6, L → LI → Lbl/LBody, Table → TR → TH (Scope Column)/TD, Figure (with /Alt and its layout /BBox), Link (the page's
 * link annotations through object references). Each page gets /StructParents, its entry in the
 * ParentTree (a flat number tree: MCID → element), and each link annotation /StructParent.
 * Only standard types are used, so no RoleMap is needed.
 */

export interface TaggedPage {
  ref: PDFRef;
  nodes: PageNode[];
  /** The MCIDs each leaf got (a leaf without any is left out). */
  mcidsOf: Map<Leaf, number[]>;
  mcidCount: number;
  /** The page's link annotations (indirect ones: an object reference needs a reference). */
  links: PDFRef[];
}

export function writeStructureTree(context: PDFContext, catalog: PDFDict, pages: readonly TaggedPage[]): { elements: number } {
  const root = context.nextRef();
  const documentRef = context.nextRef();
  const documentKids: PDFRef[] = [];
  const nums: PDFObject[] = [];
  let elements = 1;
  let key = 0;
  // The current section (from an H1 to the next one), whose kids the page's elements join.
  let section: { ref: PDFRef; kids: PDFRef[] } | undefined;

  const element = (ref: PDFRef, role: string, parent: PDFRef, entries: Record<string, PDFObject>): void => {
    context.assign(ref, context.obj({ Type: 'StructElem', S: role, P: parent, ...entries }));
    elements++;
  };
  /** An element of the kids `kidsOf` makes under it (those that exist); none when it has none. */
  const group = (role: string, parent: PDFRef, kidsOf: (ref: PDFRef) => (PDFRef | undefined)[]): PDFRef | undefined => {
    const ref = context.nextRef();
    const kids = kidsOf(ref).filter((r): r is PDFRef => r !== undefined);
    if (kids.length === 0) return undefined;
    element(ref, role, parent, { K: context.obj(kids) });
    return ref;
  };
  const closeSection = (): void => {
    if (!section) return;
    element(section.ref, 'Sect', documentRef, { K: context.obj(section.kids) });
    section = undefined;
  };

  for (const page of pages) {
    const parentOf: (PDFRef | undefined)[] = new Array(page.mcidCount).fill(undefined);
    const leafElement = (leaf: Leaf, parent: PDFRef): PDFRef | undefined => {
      const mcids = page.mcidsOf.get(leaf);
      if (!mcids || mcids.length === 0) return undefined;
      const ref = context.nextRef();
      for (const mcid of mcids) parentOf[mcid] = ref;
      element(ref, leaf.role, parent, {
        Pg: page.ref,
        K: mcids.length === 1 ? PDFNumber.of(mcids[0]!) : context.obj(mcids),
        ...(leaf.alt !== undefined ? { Alt: textString(leaf.alt) } : {}),
        ...(leaf.box ? { A: context.obj({ O: 'Layout', BBox: boxArray(context, leaf.box) }) } : {}),
        ...(leaf.role === 'TH' ? { A: context.obj({ O: 'Table', Scope: 'Column' }) } : {}),
      });
      return ref;
    };
    for (const node of page.nodes) {
      if (node.kind === 'leaf' && node.leaf.role === 'H1' && page.mcidsOf.get(node.leaf)?.length) {
        closeSection();
        section = { ref: context.nextRef(), kids: [] };
        documentKids.push(section.ref);
      }
      const parent = section?.ref ?? documentRef;
      const kids = section?.kids ?? documentKids;
      if (node.kind === 'leaf') {
        const ref = leafElement(node.leaf, parent);
        if (ref) kids.push(ref);
        continue;
      }
      const ref =
        node.kind === 'table'
          ? group('Table', parent, (tableRef) => node.rows.map((row) => group('TR', tableRef, (rowRef) => row.map((cell) => leafElement(cell, rowRef)))))
          : group('L', parent, (listRef) => node.items.map((item) => group('LI', listRef, (itemRef) => [item.label && leafElement(item.label, itemRef), leafElement(item.body, itemRef)])));
      if (ref) kids.push(ref);
    }
    const pageDict = context.lookup(page.ref, PDFDict);
    if (page.mcidCount > 0) {
      pageDict.set(PDFName.of('StructParents'), PDFNumber.of(key));
      nums.push(PDFNumber.of(key++), context.obj(parentOf.map((ref) => ref ?? context.obj(null))));
    } else pageDict.delete(PDFName.of('StructParents'));
    for (const annotation of page.links) {
      const ref = context.nextRef();
      element(ref, 'Link', section?.ref ?? documentRef, { Pg: page.ref, K: context.obj({ Type: 'OBJR', Obj: annotation, Pg: page.ref }) });
      (section?.kids ?? documentKids).push(ref);
      context.lookup(annotation, PDFDict).set(PDFName.of('StructParent'), PDFNumber.of(key));
      nums.push(PDFNumber.of(key++), ref);
    }
  }
  closeSection();
  element(documentRef, 'Document', root, { K: context.obj(documentKids) });
  context.assign(
    root,
    context.obj({
      Type: 'StructTreeRoot',
      K: documentRef,
      ParentTree: context.register(context.obj({ Nums: context.obj(nums) })),
      ParentTreeNextKey: PDFNumber.of(key),
    }),
  );
  catalog.set(PDFName.of('StructTreeRoot'), root);
  catalog.set(PDFName.of('MarkInfo'), context.obj({ Marked: true }));
  return { elements };
}

function boxArray(context: PDFContext, box: Rect): PDFObject {
  return context.obj([box.x0, box.y0, box.x1, box.y1].map((n) => Math.round(n * 100) / 100));
}
