/**
 * Actions (ISO 32000-1 12.6): PDAction and PDNamedAction. Collected from every place an action can be
 * triggered from: the catalog's /OpenAction and /AA, pages' /AA, annotations' /A and /AA, form fields'
 * /AA, outline items' /A, and the /Next of each action (a dictionary or an array of them). Each action
 * once (by identity), the /Next chains and the outline tree cycle-safe and bounded.
 */
import type { CosDict, CosDocument, CosValue } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import { pathOf } from './pages.js';
import { dictIn, nameOf } from './values.js';

const T = { action: ['PDAction'], named: ['PDNamedAction', 'PDAction'] } as const;

const MAX_ACTIONS = 100_000;
const MAX_OUTLINE_ITEMS = 1_000_000;

export class ActionCollector {
  private readonly found = new Map<CosDict, string>();
  /** A bound cut the collection: some actions may be missing. */
  complete = true;

  constructor(private readonly doc: CosDocument) {}

  /** An action in a trigger position (`/A`, `/OpenAction`): a dictionary (an /OpenAction array is a destination). */
  add(v: CosValue | undefined, path: string): void {
    const stack: Array<{ v: CosValue | undefined; path: string }> = [{ v, path }];
    while (stack.length > 0) {
      const item = stack.pop()!;
      const d = dictIn(this.doc, item.v);
      if (d === undefined || this.found.has(d)) continue;
      if (this.found.size >= MAX_ACTIONS) {
        this.complete = false;
        return;
      }
      const p = pathOf(item.v, item.path);
      this.found.set(d, p);
      const next = this.doc.resolve(d.entries.get('Next'));
      if (next?.kind === 'array') next.items.forEach((n, i) => stack.push({ v: n, path: `${p}/Next[${i}]` }));
      else if (next !== undefined) stack.push({ v: d.entries.get('Next'), path: `${p}/Next` });
    }
  }

  /** The values of an additional-actions dictionary (/AA). */
  addAdditional(aa: CosValue | undefined, path: string): void {
    const d = dictIn(this.doc, aa);
    if (d === undefined) return;
    for (const [k, v] of d.entries) this.add(v, `${path}/AA/${k}`);
  }

  /** The /A of every outline item (ISO 32000-1 12.3.3), the tree walked by /First and /Next. */
  addOutlines(): void {
    const root = dictIn(this.doc, this.doc.catalog?.entries.get('Outlines'));
    if (root === undefined) return;
    const seen = new Set<CosDict>([root]);
    const stack: CosValue[] = [];
    const first = root.entries.get('First');
    if (first !== undefined) stack.push(first);
    while (stack.length > 0) {
      const v = stack.pop()!;
      const item = dictIn(this.doc, v);
      if (item === undefined || seen.has(item)) continue;
      if (seen.size >= MAX_OUTLINE_ITEMS) {
        this.complete = false;
        return;
      }
      seen.add(item);
      this.add(item.entries.get('A'), `${pathOf(v, 'Outlines item')}/A`);
      const next = item.entries.get('Next');
      const child = item.entries.get('First');
      if (next !== undefined) stack.push(next);
      if (child !== undefined) stack.push(child);
    }
  }

  *objects(): Generator<LocatedObject> {
    for (const [d, path] of this.found) {
      const S = nameOf(this.doc, d, 'S');
      if (S === 'Named') yield modelObject(T.named, path, { S, N: nameOf(this.doc, d, 'N') });
      else yield modelObject(T.action, path, { S });
    }
  }
}
