import { asArray, asDict, asText, isRef, type QDict, type QValue } from '../../pdf/qpdf-json.js';
import { DocumentEditError } from './errors.js';
import type { PdfObjects, PdfUpdate } from './pdf-objects.js';
import { byteString, keyBytes } from './pdf-values.js';

/** One entry of a name tree (ISO 32000-1 §7.9.6): its key as text and its value as qpdf wrote it. */
export interface NameTreeEntry {
  key: string;
  value: QValue;
}

/** Bounds that keep a hostile file from making the walk endless. */
const MAX_DEPTH = 32;
const MAX_ENTRIES = 200_000;

/**
 * All entries of the name tree rooted at `root`, in tree order. Nodes are fetched level by level
 * (one qpdf run per level); a node seen twice is skipped, so cycles end.
 */
export async function readNameTree(objects: PdfObjects, root: QValue | undefined): Promise<NameTreeEntry[]> {
  if (root === undefined || root === null) return [];
  const rootDict = await objects.dict(root);
  if (!rootDict) return [];
  const seen = new Set<string>(isRef(root) ? [root] : []);
  // Prefetch every level first, then walk in order from the cache.
  let level: QDict[] = [rootDict];
  for (let depth = 0; level.length > 0 && depth < MAX_DEPTH; depth++) {
    const kids = level.flatMap((node) => (asArray(node['/Kids']) ?? []).filter((kid): kid is string => isRef(kid) && !seen.has(kid)));
    kids.forEach((kid) => seen.add(kid));
    await objects.fetch(kids);
    level = kids.map((kid) => asDict(objects.peek(kid))).filter((node): node is QDict => node !== undefined);
  }
  const entries: NameTreeEntry[] = [];
  const visited = new Set<QDict>();
  const walk = (node: QDict, depth: number): void => {
    if (visited.has(node) || depth > MAX_DEPTH) return;
    visited.add(node);
    const names = asArray(node['/Names']) ?? [];
    for (let i = 0; i + 1 < names.length; i += 2) {
      const key = asText(names[i]);
      if (key === undefined) continue;
      entries.push({ key, value: names[i + 1]! });
      if (entries.length > MAX_ENTRIES) throw new DocumentEditError('tooLarge', `The PDF has more than ${MAX_ENTRIES} embedded files.`);
    }
    for (const kid of asArray(node['/Kids']) ?? []) {
      const child = asDict(objects.peek(kid));
      if (child) walk(child, depth + 1);
    }
  };
  walk(rootDict, 0);
  return entries;
}

const LEAF_SIZE = 1024;

/**
 * Writes a new name tree holding `entries` (later entries win over earlier ones with the same key)
 * and returns the reference of its root. Keys are written as exact bytes and sorted by them, as
 * the format requires; small trees are one node, large ones a root over leaves with /Limits.
 */
export function writeNameTree(update: PdfUpdate, entries: readonly NameTreeEntry[]): string {
  const byKey = new Map<string, { bytes: Buffer; value: QValue }>();
  for (const entry of entries) byKey.set(entry.key, { bytes: keyBytes(entry.key), value: entry.value });
  const sorted = [...byKey.values()].sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  const flat = (items: typeof sorted): QValue[] => items.flatMap((item) => [byteString(item.bytes), item.value]);
  if (sorted.length <= LEAF_SIZE * 4) return update.add({ '/Names': flat(sorted) });
  const kids: string[] = [];
  for (let i = 0; i < sorted.length; i += LEAF_SIZE) {
    const chunk = sorted.slice(i, i + LEAF_SIZE);
    kids.push(update.add({ '/Names': flat(chunk), '/Limits': [byteString(chunk[0]!.bytes), byteString(chunk[chunk.length - 1]!.bytes)] }));
  }
  return update.add({ '/Kids': kids });
}
