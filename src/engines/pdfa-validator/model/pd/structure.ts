/**
 * The logical structure (ISO 32000-1 14.7, 14.8.4): SENonStandard, each structure element whose type is
 * not a standard structure type, or is one the role map remaps. The tree is read from the structure
 * tree root's /K through each element's /K (marked-content references and object references are not
 * elements), each element once, bounded.
 */
import type { CosDict, CosDocument, CosValue } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import { pathOf } from './pages.js';
import { dictIn, nameOf } from './values.js';

const T = { nonStandard: ['SENonStandard', 'PDStructElem'] } as const;

/** Standard structure types of PDF 1.4 (PDF Reference 1.4, 9.7.4: PDF/A-1). */
const STANDARD_14 = [
  'Document',
  'Part',
  'Art',
  'Sect',
  'Div',
  'BlockQuote',
  'Caption',
  'TOC',
  'TOCI',
  'Index',
  'NonStruct',
  'Private',
  'P',
  'H',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'L',
  'LI',
  'Lbl',
  'LBody',
  'Table',
  'TR',
  'TH',
  'TD',
  'Span',
  'Quote',
  'Note',
  'Reference',
  'BibEntry',
  'Code',
  'Link',
  'Figure',
  'Formula',
  'Form',
];
/** ISO 32000-1 14.8.4 adds THead, TBody, TFoot, Annot, Ruby, RB, RT, RP, Warichu, WT, WP (PDF 1.5: PDF/A-2 and -3). */
const STANDARD_17 = [...STANDARD_14, 'THead', 'TBody', 'TFoot', 'Annot', 'Ruby', 'RB', 'RT', 'RP', 'Warichu', 'WT', 'WP'];

const MAX_ELEMENTS = 1_000_000;
const MAX_ROLE_CHAIN = 64;

export interface StructureWalk {
  complete: boolean;
}

export function* structureObjects(doc: CosDocument, part: 1 | 2 | 3, walk: StructureWalk): Generator<LocatedObject> {
  const rootRef = doc.catalog?.entries.get('StructTreeRoot');
  const root = dictIn(doc, rootRef);
  if (root === undefined) return;
  const standard = new Set(part === 1 ? STANDARD_14 : STANDARD_17);
  const roleMap = dictIn(doc, root.entries.get('RoleMap'));
  const mapped = (type: string): string | null => {
    const v = doc.resolve(roleMap?.entries.get(type));
    return v?.kind === 'name' ? v.value : null;
  };
  const seen = new Set<CosDict>([root]);
  const stack: Array<{ v: CosValue; path: string }> = [];
  const pushKids = (d: CosDict, path: string): void => {
    const k = d.entries.get('K');
    const kv = doc.resolve(k);
    if (kv?.kind === 'array') for (let i = kv.items.length - 1; i >= 0; i--) stack.push({ v: kv.items[i]!, path: pathOf(kv.items[i], `${path}/K[${i}]`) });
    else if (kv !== undefined) stack.push({ v: k!, path: pathOf(k, `${path}/K`) });
  };
  pushKids(root, pathOf(rootRef, 'StructTreeRoot'));
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    const el = dictIn(doc, v);
    if (el === undefined || seen.has(el)) continue;
    const type = nameOf(doc, el, 'Type');
    if (type === 'MCR' || type === 'OBJR') continue;
    if (seen.size >= MAX_ELEMENTS) {
      walk.complete = false;
      return;
    }
    seen.add(el);
    pushKids(el, path);
    const s = nameOf(doc, el, 'S');
    if (s === null) continue;
    // "Remapped to a non-standard type" (6.7.3.4-3): an entry that maps a standard type to itself
    // (LibreOffice writes /Document /Document, /Span /Span) or to another standard type is not that.
    const target = mapped(s);
    const remapped = standard.has(s) && target !== null && target !== s && !standard.has(target);
    if (standard.has(s) && !remapped) continue;
    // Follow the role map from the element's type (from its mapping, for a remapped standard type).
    const chain = new Set<string>([s]);
    let current: string | null = mapped(s);
    let circular = false;
    let reachesStandard = false;
    for (let n = 0; current !== null && n < MAX_ROLE_CHAIN; n++) {
      if (standard.has(current)) {
        reachesStandard = true;
        break;
      }
      if (chain.has(current)) {
        circular = true;
        break;
      }
      chain.add(current);
      current = mapped(current);
    }
    yield modelObject(T.nonStandard, path, {
      isNotMappedToStandardType: !reachesStandard,
      circularMappingExist: circular,
      remappedStandardType: remapped ? s : null,
    });
  }
}
