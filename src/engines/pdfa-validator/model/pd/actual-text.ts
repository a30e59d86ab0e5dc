/**
 * Which marked-content sequences of page content have replacement text from the structure tree (ISO 32000-1 14.9.4,
 * ISO 19005-2 6.2.11.7.3): every MCID under a structure element with /ActualText (itself or an ancestor), per page.
 * A glyph shown there has `actualTextPresent` (the corpus' 2a 6-2-11-7-3-t01-pass-b/c put /ActualText on the
 * element, not in the content). Bounded: 100,000 elements, depth 64; each element once.
 */
import type { CosDict, CosDocument, CosValue } from '../../cos/index.js';
import { dictIn, nameOf } from './values.js';

const MAX_ELEMENTS = 100_000;
const MAX_DEPTH = 64;

/** Page dictionary → the MCIDs on it covered by an /ActualText of the structure tree. */
export function actualTextMcids(doc: CosDocument): Map<CosDict, Set<number>> {
  const out = new Map<CosDict, Set<number>>();
  const root = dictIn(doc, doc.catalog?.entries.get('StructTreeRoot'));
  if (root === undefined) return out;
  const seen = new Set<CosDict>();
  const add = (page: CosDict | undefined, mcid: number): void => {
    if (page === undefined) return;
    let set = out.get(page);
    if (set === undefined) {
      set = new Set();
      out.set(page, set);
    }
    set.add(mcid);
  };
  const stack: Array<{ v: CosValue | undefined; page: CosDict | undefined; covered: boolean; depth: number }> = [{ v: root.entries.get('K'), page: undefined, covered: false, depth: 0 }];
  while (stack.length > 0 && seen.size < MAX_ELEMENTS) {
    const { v, page, covered, depth } = stack.pop()!;
    const r = doc.resolve(v);
    if (r === undefined || depth > MAX_DEPTH) continue;
    if (r.kind === 'int') {
      if (covered) add(page, r.value);
      continue;
    }
    if (r.kind === 'array') {
      for (const item of r.items) stack.push({ v: item, page, covered, depth: depth + 1 });
      continue;
    }
    if (r.kind !== 'dict') continue;
    const pg = dictIn(doc, r.entries.get('Pg')) ?? page;
    const type = nameOf(doc, r, 'Type');
    if (type === 'MCR') {
      const mcid = doc.resolve(r.entries.get('MCID'));
      if (covered && mcid?.kind === 'int') add(pg, mcid.value);
      continue;
    }
    if (type === 'OBJR' || seen.has(r)) continue;
    seen.add(r);
    stack.push({ v: r.entries.get('K'), page: pg, covered: covered || r.entries.has('ActualText'), depth: depth + 1 });
  }
  return out;
}
