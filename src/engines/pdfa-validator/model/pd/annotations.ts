/**
 * Annotations (ISO 32000-1 12.5): PDAnnot, and PDWidgetAnnot for widgets (12.5.6.19), read from each
 * page's /Annots. Their /A and /AA actions go to the ActionCollector.
 */
import type { CosDict, CosDocument } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import type { ActionCollector } from './actions.js';
import { type PageRef, pathOf } from './pages.js';
import { dictIn, entry, inheritedFieldType, intOf, nameOf, numberOf, present } from './values.js';

const T = { annot: ['PDAnnot'], widget: ['PDWidgetAnnot', 'PDAnnot'] } as const;

/** Annotations per page at most (a hostile /Annots array beyond it stops the walk: incomplete). */
const MAX_ANNOTS_PER_PAGE = 100_000;

export interface AnnotationWalk {
  complete: boolean;
}

export function* annotationObjects(doc: CosDocument, pages: readonly PageRef[], actions: ActionCollector, walk: AnnotationWalk): Generator<LocatedObject> {
  const seen = new Set<CosDict>();
  for (const page of pages) {
    const annots = doc.resolve(page.dict.entries.get('Annots'));
    if (annots?.kind !== 'array') continue;
    if (annots.items.length > MAX_ANNOTS_PER_PAGE) walk.complete = false;
    for (const [i, item] of annots.items.slice(0, MAX_ANNOTS_PER_PAGE).entries()) {
      const d = dictIn(doc, item);
      if (d === undefined || seen.has(d)) continue;
      seen.add(d);
      const path = pathOf(item, `${page.path}/Annots[${i}]`);
      actions.add(d.entries.get('A'), `${path}/A`);
      actions.addAdditional(d.entries.get('AA'), path);
      yield annotation(doc, d, path);
    }
  }
}

function annotation(doc: CosDocument, d: CosDict, path: string): LocatedObject {
  const subtype = nameOf(doc, d, 'Subtype');
  const ap = entry(doc, d, 'AP');
  // AP: the appearance dictionary's keys joined by '&' (the rules want exactly "N"); '' for a value that is no dictionary.
  const apKeys = ap === undefined || ap.kind === 'null' ? null : ap.kind === 'dict' ? [...ap.entries.keys()].join('&') : '';
  const n = ap?.kind === 'dict' ? doc.resolve(ap.entries.get('N')) : undefined;
  const nType = n?.kind === 'stream' ? 'Stream' : n?.kind === 'dict' ? 'Dict' : null;
  const rect = doc.resolve(d.entries.get('Rect'));
  const corner = (i: number): number | null => {
    const v = rect?.kind === 'array' ? doc.resolve(rect.items[i]) : undefined;
    return v?.kind === 'int' || v?.kind === 'real' ? v.value : null;
  };
  const [x1, y1, x2, y2] = [corner(0), corner(1), corner(2), corner(3)];
  const props = {
    Subtype: subtype,
    CA: numberOf(doc, d, 'CA'),
    F: intOf(doc, d, 'F'),
    containsC: present(doc, d, 'C'),
    containsIC: present(doc, d, 'IC'),
    AP: apKeys,
    FT: inheritedFieldType(doc, d),
    N_type: nType,
    // A subappearance dictionary (one stream per appearance state, ISO 32000-1 12.5.5): at least one state, each a stream.
    containsAppearances: n?.kind === 'dict' && n.entries.size > 0 && [...n.entries.values()].every((s) => doc.resolve(s)?.kind === 'stream'),
    width: x1 === null || x2 === null ? null : Math.abs(x2 - x1),
    height: y1 === null || y2 === null ? null : Math.abs(y2 - y1),
  };
  if (subtype === 'Widget') return modelObject(T.widget, path, { ...props, containsA: present(doc, d, 'A'), containsAA: present(doc, d, 'AA') });
  return modelObject(T.annot, path, props);
}
