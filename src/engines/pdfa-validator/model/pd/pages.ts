/**
 * The pages of a document: the leaves of the page tree from the catalog's /Pages (ISO 32000-1 7.7.3),
 * in order. Hostile trees are bounded: a node met twice (a cycle, or a shared subtree) is not entered
 * again, the depth is capped, and so is the number of nodes. `complete` is false when a bound cut the walk.
 */
import type { CosDict, CosDocument, CosValue } from '../../cos/index.js';
import { dictIn, nameOf } from './values.js';

export interface PageRef {
  readonly dict: CosDict;
  readonly path: string;
  /** 1-based. */
  readonly number: number;
}

export interface PageTree {
  readonly pages: PageRef[];
  readonly complete: boolean;
}

const MAX_DEPTH = 256;
const MAX_NODES = 1_000_000;

export function pageTree(doc: CosDocument): PageTree {
  const pages: PageRef[] = [];
  const root = doc.catalog?.entries.get('Pages');
  const seen = new Set<CosDict>();
  let complete = true;
  // Depth first, kids in order, without recursion.
  const stack: Array<{ v: typeof root; depth: number; path: string }> = [{ v: root, depth: 0, path: pathOf(root, 'Pages') }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    const node = dictIn(doc, v);
    if (node === undefined || seen.has(node)) continue;
    if (seen.size >= MAX_NODES || depth > MAX_DEPTH) {
      complete = false;
      break;
    }
    seen.add(node);
    const kids = doc.resolve(node.entries.get('Kids'));
    const type = nameOf(doc, node, 'Type');
    if (type === 'Page' || (type !== 'Pages' && kids?.kind !== 'array')) {
      pages.push({ dict: node, path, number: pages.length + 1 });
      continue;
    }
    if (kids?.kind !== 'array') continue;
    for (let i = kids.items.length - 1; i >= 0; i--) {
      const kid = kids.items[i];
      stack.push({ v: kid, depth: depth + 1, path: pathOf(kid, `${path}/Kids[${i}]`) });
    }
  }
  return { pages, complete };
}

/** A page attribute from the page or its nearest ancestor (ISO 32000-1 7.7.3.4: Resources, MediaBox, CropBox, Rotate), at most 64 levels up. */
export function inheritedEntry(doc: CosDocument, page: CosDict, key: string): CosValue | undefined {
  let node: CosDict | undefined = page;
  const seen = new Set<CosDict>();
  for (let depth = 0; node !== undefined && depth < 64 && !seen.has(node); depth++) {
    seen.add(node);
    const v = node.entries.get(key);
    if (v !== undefined) return v;
    node = dictIn(doc, node.entries.get('Parent'));
  }
  return undefined;
}

/** `12 0 obj` for a reference, else the path it was found at. */
export function pathOf(v: { kind: string; num?: number; gen?: number } | undefined, fallback: string): string {
  return v?.kind === 'ref' && v.num !== undefined ? `${v.num} ${v.gen ?? 0} obj` : fallback;
}
