import type { ObjectFetcher } from './qpdf-json.js';
import { asArray, asDict, asNumber, asText, isRef } from './qpdf-json.js';
import type { QValue } from './qpdf-json.js';

/**
 * Name trees and number trees (ISO 32000-1 §7.9.6, §7.9.7) read from a document's objects, bounded.
 *
 * qpdf walks these trees without remembering the nodes it has been to: a node listed twice under each
 * of its parents makes its walk exponential (40 levels of that kept `qpdf --json-key=attachments` or
 * `--json-key=pagelabels` busy until its time limit), and a /Kids loop is only caught by its depth
 * check. Here each node is read once (a loop or a second listing is skipped), at most MAX_DEPTH levels
 * deep, at most MAX_NODES nodes and MAX_ENTRIES entries. Nodes are fetched level by level, one qpdf
 * run per level, when the fetcher does not hold every object already.
 */
export const TREE_LIMITS = { maxDepth: 64, maxNodes: 100_000, maxEntries: 500_000 } as const;

export interface TreeEntry<K> {
  key: K;
  /** The value as the tree holds it (often a reference). */
  value: QValue;
}

/** The entries of a name tree, in tree order; a key given twice keeps its first value. */
export async function readNameTree(fetcher: ObjectFetcher, root: QValue | undefined): Promise<Map<string, QValue>> {
  const entries = new Map<string, QValue>();
  await walkTree(fetcher, root, '/Names', (key, value) => {
    const name = asText(fetcher.peek(key));
    if (name !== undefined && !entries.has(name)) entries.set(name, value);
    return entries.size;
  });
  return entries;
}

/** The entries of a number tree, in tree order. */
export async function readNumberTree(fetcher: ObjectFetcher, root: QValue | undefined): Promise<TreeEntry<number>[]> {
  const entries: TreeEntry<number>[] = [];
  await walkTree(fetcher, root, '/Nums', (key, value) => {
    const number = asNumber(fetcher.peek(key));
    if (number !== undefined) entries.push({ key: number, value });
    return entries.length;
  });
  return entries;
}

/** Visits the leaf pairs of the tree in order; `visit` returns how many entries are held so far. */
async function walkTree(fetcher: ObjectFetcher, root: QValue | undefined, leafKey: '/Names' | '/Nums', visit: (key: QValue, value: QValue) => number): Promise<void> {
  if (root === undefined || root === null) return;
  await prefetch(fetcher, root, leafKey);
  const visited = new Set<string>();
  const stack: { node: QValue; depth: number }[] = [{ node: root, depth: 0 }];
  for (let nodes = 0; stack.length > 0 && nodes < TREE_LIMITS.maxNodes; nodes++) {
    const { node: value, depth } = stack.pop()!;
    if (isRef(value)) {
      if (visited.has(value)) continue;
      visited.add(value);
    }
    const node = asDict(fetcher.peek(value));
    if (!node || depth > TREE_LIMITS.maxDepth) continue;
    const pairs = asArray(fetcher.peek(node[leafKey])) ?? [];
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      if (visit(pairs[i]!, pairs[i + 1]!) >= TREE_LIMITS.maxEntries) return;
    }
    const kids = asArray(fetcher.peek(node['/Kids'])) ?? [];
    // Pushed in reverse so that the tree is read in order.
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i]!, depth: depth + 1 });
  }
}

/** Fetches the tree's nodes (and indirect /Kids, /Names or /Nums arrays) level by level. */
async function prefetch(fetcher: ObjectFetcher, root: QValue, leafKey: string): Promise<void> {
  const seen = new Set<string>();
  let level: QValue[] = [root];
  for (let depth = 0; level.length > 0 && depth <= TREE_LIMITS.maxDepth && seen.size < TREE_LIMITS.maxNodes; depth++) {
    await fetcher.fetch(level.filter((node): node is string => isRef(node) && !seen.has(node)));
    for (const node of level) if (isRef(node)) seen.add(node);
    // Indirect arrays of this level's nodes.
    const arrays = level.flatMap((node) => [asDict(fetcher.peek(node))?.['/Kids'], asDict(fetcher.peek(node))?.[leafKey]]).filter(isRef);
    await fetcher.fetch(arrays);
    // The next level, each node once (a node listed twice would double the level at every step).
    const next = new Set<QValue>();
    for (const node of level) {
      for (const kid of asArray(fetcher.peek(asDict(fetcher.peek(node))?.['/Kids'])) ?? []) if (!isRef(kid) || !seen.has(kid)) next.add(kid);
      if (next.size > TREE_LIMITS.maxNodes) break;
    }
    level = [...next];
  }
}
