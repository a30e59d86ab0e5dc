import type { ObjectFetcher } from '../qpdf-json.js';
import { asArray, asDict, asName, asNumber, asText, isRef } from '../qpdf-json.js';
import type { QDict, QValue } from '../qpdf-json.js';
import { readNameTree } from '../trees.js';

/**
 * The outline (bookmark) tree of a document, read from its objects with bounds — not with qpdf's
 * `--json-key=outlines`: qpdf 11.3 follows outline links without noticing loops, and two items that
 * point at each other (/Next, /First) made it grow to gigabytes (issue 11, defect 2).
 *
 * Every item is visited at most once (a link back to an item already seen ends that chain: loops and
 * items listed twice are cut), the tree is followed at most MAX_DEPTH levels deep and at most
 * MAX_ITEMS items are read. What qpdf's JSON reported is kept: the resolved destination (explicit, a
 * named one from /Dests or the /Names /Dests name tree, or a GoTo action's), the 1-based page it
 * jumps to, and "open" for a /Count that is not negative.
 */
export interface OutlineNode {
  /** The item's own object ("12 0 R"). */
  object: string;
  title: string;
  open: boolean;
  /** The resolved destination ([page, /XYZ, …]); undefined for actions that are not page jumps. */
  dest: QValue[] | undefined;
  /** 1-based page the item jumps to, if it jumps to a page of this document. */
  page: number | undefined;
  kids: OutlineNode[];
}

export const OUTLINE_LIMITS = { maxItems: 100_000, maxDepth: 64 } as const;
/** Rounds of fetching when the objects are not all in memory (each round one qpdf run). */
const MAX_FETCH_ROUNDS = 256;

export async function readOutlineTree(fetcher: ObjectFetcher, catalog: QDict, pages: readonly string[]): Promise<OutlineNode[]> {
  const root = asDict(await fetcher.resolve(catalog['/Outlines']));
  if (!root) return [];
  await prefetchItems(fetcher, root['/First']);
  const pageNumbers = new Map(pages.map((ref, index) => [ref, index + 1]));
  const destinations = new NamedDestinations(fetcher, catalog);
  // The root counts as seen: an item whose /First or /Next leads back to it would make it its own child.
  const seen = new Set<string>(isRef(catalog['/Outlines']) ? [catalog['/Outlines']] : []);

  const children = async (first: QValue | undefined, depth: number): Promise<OutlineNode[]> => {
    const nodes: OutlineNode[] = [];
    if (depth >= OUTLINE_LIMITS.maxDepth) return nodes;
    for (let ref = first; isRef(ref) && !seen.has(ref) && seen.size < OUTLINE_LIMITS.maxItems; ) {
      seen.add(ref);
      const item = asDict(fetcher.get(ref));
      if (!item) break;
      const dest = await destinations.of(item);
      const target = isRef(dest?.[0]) ? pageNumbers.get(dest[0]) : undefined;
      nodes.push({
        object: ref,
        title: asText(fetcher.peek(item['/Title'])) ?? '',
        open: (asNumber(fetcher.peek(item['/Count'])) ?? 0) >= 0,
        dest,
        page: target,
        kids: await children(item['/First'], depth + 1),
      });
      ref = item['/Next'];
    }
    return nodes;
  };
  return children(root['/First'], 0);
}

/**
 * Fetches the items reachable from `first` (siblings and children), round by round, when the
 * fetcher does not hold all objects already; the same bounds as the walk.
 */
async function prefetchItems(fetcher: ObjectFetcher, first: QValue | undefined): Promise<void> {
  const reached = new Set<string>();
  let frontier = isRef(first) ? [first] : [];
  for (let round = 0; frontier.length > 0 && round < MAX_FETCH_ROUNDS && reached.size < OUTLINE_LIMITS.maxItems; round++) {
    await fetcher.fetch(frontier);
    for (const ref of frontier) reached.add(ref);
    const next = new Set<string>();
    for (const ref of frontier) {
      const item = asDict(fetcher.get(ref));
      for (const key of ['/Next', '/First', '/A', '/Dest', '/Title', '/Count']) {
        const link = item?.[key];
        if (isRef(link) && !reached.has(link)) next.add(link);
      }
    }
    frontier = [...next];
  }
}

/** Destinations of outline items; the /Dests name tree is read once, when a string destination needs it. */
class NamedDestinations {
  private tree: Map<string, QValue> | undefined;

  constructor(
    private readonly fetcher: ObjectFetcher,
    private readonly catalog: QDict,
  ) {}

  /** The explicit destination an item jumps to: its /Dest, or its GoTo action's /D. */
  async of(item: QDict): Promise<QValue[] | undefined> {
    let target = await this.fetcher.resolve(item['/Dest']);
    if (target === undefined || target === null) {
      const action = asDict(await this.fetcher.resolve(item['/A']));
      if (!action || asName(await this.fetcher.resolve(action['/S'])) !== 'GoTo') return undefined;
      target = await this.fetcher.resolve(action['/D']);
    }
    const array = asArray(target);
    if (array) return array;
    const name = asName(target);
    const text = name === undefined ? asText(target) : undefined;
    let value: QValue | undefined;
    if (name !== undefined) {
      // A name: the catalog's /Dests dictionary (PDF 1.1).
      const dests = asDict(await this.fetcher.resolve(this.catalog['/Dests']));
      value = await this.fetcher.resolve(dests?.[`/${name}`]);
    } else if (text !== undefined) {
      // A string: the /Names /Dests name tree (PDF 1.2).
      this.tree ??= await readNameTree(this.fetcher, asDict(await this.fetcher.resolve(this.catalog['/Names']))?.['/Dests']);
      value = await this.fetcher.resolve(this.tree.get(text));
    }
    // A destination may be a dictionary whose /D is the array.
    const dict = asDict(value);
    return asArray(dict ? await this.fetcher.resolve(dict['/D']) : value);
  }
}
