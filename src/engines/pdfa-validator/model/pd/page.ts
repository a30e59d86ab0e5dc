/**
 * PDPage (ISO 32000-1 7.7.3.3): additional actions, presentation steps, the page group's colour space,
 * and whether the page contains transparency (ISO 19005-2 6.2.10: a page with transparency and no
 * PDF/A output intent needs a page group with /CS).
 */
import type { CosDict, CosDocument, CosValue } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import { type PageRef, inheritedEntry } from './pages.js';
import { dictIn, entry, intOf, nameOf, numberOf, present } from './values.js';

const T = { page: ['PDPage'] } as const;

/** Resource dictionaries, XObjects and graphics states looked at per page at most; beyond it the page counts as containing transparency. */
const MAX_NODES = 100_000;

export function pageObject(doc: CosDocument, page: PageRef): LocatedObject {
  const group = dictIn(doc, page.dict.entries.get('Group'));
  return modelObject(T.page, page.path, {
    containsAA: present(doc, page.dict, 'AA'),
    containsPresSteps: present(doc, page.dict, 'PresSteps'),
    containsGroupCS: group !== undefined && present(doc, group, 'CS'),
    containsTransparency: containsTransparency(doc, page.dict),
  });
}

/**
 * Whether anything the page can draw is transparent (ISO 32000-1 11: a soft mask, a constant alpha
 * other than 1, a blend mode other than Normal/Compatible, an image with /SMask or /SMaskInData, a
 * transparency group), looked for in the page's resources, its annotations' appearances, and, inside
 * them, forms, patterns, Type 3 fonts and soft-mask groups. Resources a content stream does not use
 * count too: a page said to contain transparency only needs a group colour space or an output intent,
 * so erring this way can only make the validator stricter. A bound reached counts as transparency.
 */
export function containsTransparency(doc: CosDocument, page: CosDict): boolean {
  if (nameOf(doc, dictIn(doc, page.entries.get('Group')), 'S') === 'Transparency') return true;
  const seen = new Set<CosValue>();
  const resources: Array<CosValue | undefined> = [inheritedEntry(doc, page, 'Resources')];
  const annots = doc.resolve(page.entries.get('Annots'));
  const forms: Array<CosValue | undefined> = [];
  if (annots?.kind === 'array') {
    for (const a of annots.items) {
      const ap = dictIn(doc, dictIn(doc, a)?.entries.get('AP'));
      for (const item of ap?.entries.values() ?? []) {
        const v = doc.resolve(item);
        if (v?.kind === 'stream') forms.push(v);
        else if (v?.kind === 'dict') forms.push(...v.entries.values());
      }
    }
  }
  let nodes = 0;
  while (resources.length > 0 || forms.length > 0) {
    if (++nodes > MAX_NODES) return true;
    const formValue = forms.pop();
    if (formValue !== undefined) {
      const form = doc.resolve(formValue);
      if (form?.kind !== 'stream' || seen.has(form)) continue;
      seen.add(form);
      if (nameOf(doc, dictIn(doc, form.dict.entries.get('Group')), 'S') === 'Transparency') return true;
      resources.push(form.dict.entries.get('Resources'));
      continue;
    }
    const res = dictIn(doc, resources.pop());
    if (res === undefined || seen.has(res)) continue;
    seen.add(res);
    for (const gsValue of dictIn(doc, res.entries.get('ExtGState'))?.entries.values() ?? []) {
      const gs = dictIn(doc, gsValue);
      if (gs === undefined) continue;
      if (transparentGState(doc, gs)) return true;
      const smask = dictIn(doc, gs.entries.get('SMask'));
      if (smask !== undefined) forms.push(smask.entries.get('G'));
    }
    for (const xValue of dictIn(doc, res.entries.get('XObject'))?.entries.values() ?? []) {
      const x = doc.resolve(xValue);
      if (x?.kind !== 'stream') continue;
      const subtype = nameOf(doc, x.dict, 'Subtype');
      if (subtype === 'Image' && (present(doc, x.dict, 'SMask') || (intOf(doc, x.dict, 'SMaskInData') ?? 0) > 0)) return true;
      if (subtype === 'Form') forms.push(x);
    }
    for (const pValue of dictIn(doc, res.entries.get('Pattern'))?.entries.values() ?? []) {
      const p = doc.resolve(pValue);
      const pd = dictIn(doc, p);
      if (pd === undefined) continue;
      if (p?.kind === 'stream') forms.push(p);
      const gs = dictIn(doc, pd.entries.get('ExtGState'));
      if (gs !== undefined && transparentGState(doc, gs)) return true;
    }
    for (const fValue of dictIn(doc, res.entries.get('Font'))?.entries.values() ?? []) {
      const font = dictIn(doc, fValue);
      if (font !== undefined && nameOf(doc, font, 'Subtype') === 'Type3') resources.push(font.entries.get('Resources'));
    }
  }
  return false;
}

function transparentGState(doc: CosDocument, gs: CosDict): boolean {
  const smask = entry(doc, gs, 'SMask');
  if (smask !== undefined && smask.kind !== 'null' && !(smask.kind === 'name' && smask.value === 'None')) return true;
  for (const key of ['CA', 'ca']) {
    const alpha = numberOf(doc, gs, key);
    if (alpha !== null && alpha !== 1) return true;
  }
  const bm = entry(doc, gs, 'BM');
  const first = bm?.kind === 'array' ? doc.resolve(bm.items[0]) : bm;
  return first !== undefined && first.kind !== 'null' && !(first.kind === 'name' && (first.value === 'Normal' || first.value === 'Compatible'));
}
