import { writeFile } from 'node:fs/promises';
import type { PdfStructureTool } from '../contracts.js';
import type { QpdfCall } from '../pdf/qpdf.js';
import { asArray, asDict, asName, asNumber, isRef, parseJson, type QDict, type QValue } from '../pdf/qpdf-json.js';
import { SignatureEngineError } from './errors.js';
import { pdfNumber } from './pdf-values.js';

/**
 * Removes every signature of a PDF (`{"signature":{"clear":{"flatten":…}}}`): the signature fields
 * leave the AcroForm (and their parents' /Kids), their widgets leave the pages' /Annots, the
 * certification (/Perms /DocMDP) and /SigFlags go. With `flatten`, each visible widget's appearance is
 * drawn into its page's content first, so the page looks as before. qpdf applies the changes
 * (`--update-from-json`) and rewrites the file: the signed revisions are gone, not kept as earlier
 * revisions of an incremental update.
 */

export interface ClearResult {
  removed: number;
}

interface Objects {
  get(ref: QValue | undefined): QValue | undefined;
  dict(ref: QValue | undefined): QDict | undefined;
}

export async function clearSignatures(qpdf: PdfStructureTool, input: string, output: string, flatten: boolean, scratchFile: string, call: QpdfCall): Promise<ClearResult> {
  const run = await qpdf.run(['--json=2', '--json-key=pages', '--json-key=qpdf', '--json-stream-data=none', input], { ...call, maxOutputBytes: 256 * 1024 * 1024 });
  const described = parseJson(run.stdout);
  const header = asDict(asArray(described.qpdf)?.[0]) ?? {};
  const all = asDict(asArray(described.qpdf)?.[1]) ?? {};
  const objects: Objects = {
    get(ref) {
      for (let value = ref, depth = 0; depth < 16; depth++) {
        if (!isRef(value)) return value;
        const wrapper = asDict(all[`obj:${value}`]);
        value = wrapper ? (asDict(wrapper.stream)?.dict ?? wrapper.value ?? null) : null;
      }
      return undefined;
    },
    dict(ref) {
      return asDict(this.get(ref));
    },
  };
  const trailer = asDict(asDict(all.trailer)?.value) ?? {};
  if (trailer['/Encrypt'] !== undefined) throw new SignatureEngineError('encrypted', 'the PDF is encrypted');
  const rootRef = trailer['/Root'];
  const catalog = objects.dict(rootRef);
  if (!isRef(rootRef) || !catalog) throw new SignatureEngineError('unreadable', "the PDF's catalog cannot be read");
  let next = Math.max(asNumber(header.maxobjectid) ?? 0, asNumber(trailer['/Size']) ?? 0) + 1;
  const updates: Record<string, QValue> = {};
  const setValue = (ref: string, value: QValue) => (updates[`obj:${ref}`] = { value });

  // The signature fields (a field's /FT is inherited from its parent) and their widgets.
  const removedWidgets = new Set<string>();
  let removed = 0;
  const isWidget = (field: QDict) => asName(field['/Subtype']) === 'Widget';
  const widgetsOf = (ref: string, field: QDict): string[] => (isWidget(field) ? [ref] : (asArray(field['/Kids']) ?? []).filter((k): k is string => isRef(k)));
  /** The kids (or top-level fields) without the signature fields; undefined when nothing changed. */
  const prune = (list: QValue[], inheritedType: string | undefined, depth: number): QValue[] | undefined => {
    if (depth > 16) return undefined;
    let changed = false;
    const kept: QValue[] = [];
    for (const item of list) {
      const field = objects.dict(item);
      if (!field || !isRef(item)) {
        kept.push(item);
        continue;
      }
      const type = asName(field['/FT']) ?? inheritedType;
      if (type === 'Sig') {
        removed++;
        for (const widget of widgetsOf(item, field)) removedWidgets.add(widget);
        changed = true;
        continue;
      }
      kept.push(item);
      const kids = asArray(field['/Kids']);
      if (kids && !isWidget(field)) {
        const prunedKids = prune(kids, type, depth + 1);
        if (prunedKids) setValue(item, { ...field, '/Kids': prunedKids });
      }
    }
    return changed ? kept : undefined;
  };
  const acroFormValue = catalog['/AcroForm'];
  const acroForm = objects.dict(acroFormValue);
  const newCatalog: QDict = { ...catalog };
  if (acroForm) {
    const fieldsValue = acroForm['/Fields'];
    const pruned = prune(asArray(objects.get(fieldsValue)) ?? [], undefined, 0);
    const form: QDict = { ...acroForm };
    delete form['/SigFlags'];
    if (pruned) {
      if (isRef(fieldsValue)) setValue(fieldsValue, pruned);
      else form['/Fields'] = pruned;
    }
    if (isRef(acroFormValue)) setValue(acroFormValue, form);
    else newCatalog['/AcroForm'] = form;
  }
  const perms = objects.dict(catalog['/Perms']);
  if (perms?.['/DocMDP'] !== undefined) {
    const rest: QDict = { ...perms };
    delete rest['/DocMDP'];
    if (isRef(catalog['/Perms'])) setValue(catalog['/Perms'], rest);
    else if (Object.keys(rest).length > 0) newCatalog['/Perms'] = rest;
    else delete newCatalog['/Perms'];
  }
  setValue(rootRef, newCatalog);

  // The pages: widgets out of /Annots; with flatten, their appearances into the content.
  for (const pageEntry of asArray(described.pages) ?? []) {
    const pageRef = asDict(pageEntry)?.object;
    if (!isRef(pageRef)) continue;
    let page = objects.dict(pageRef);
    if (!page) continue;
    const annotsValue = page['/Annots'];
    const annots = asArray(objects.get(annotsValue)) ?? [];
    const gone = annots.filter((a): a is string => isRef(a) && removedWidgets.has(a));
    if (gone.length === 0) continue;
    const kept = annots.filter((a) => !(isRef(a) && removedWidgets.has(a)));
    page = { ...page };
    if (isRef(annotsValue)) setValue(annotsValue, kept);
    else page['/Annots'] = kept;
    if (flatten) page = flattenInto(page, gone, objects, () => next++, updates);
    // A page changed with a reference in its /Annots would be written over by setValue(annotsValue) only; the page itself always.
    setValue(pageRef, page);
  }

  const json = { qpdf: [{ jsonversion: 2, pushedinheritedpageresources: false, calledgetallpages: false, maxobjectid: next }, updates] };
  await writeFile(scratchFile, JSON.stringify(json), { mode: 0o600 });
  await qpdf.run([input, `--update-from-json=${scratchFile}`, output], call);
  return { removed };
}

/** Draws the appearances of `widgets` at their rectangles after the page's content, in a saved graphics state. */
function flattenInto(page: QDict, widgets: string[], objects: Objects, allocate: () => number, updates: Record<string, QValue>): QDict {
  const draws: string[] = [];
  const xobjects: QDict = {};
  for (const ref of widgets) {
    const widget = objects.dict(ref);
    const flags = asNumber(widget?.['/F']) ?? 0;
    if (!widget || flags & 2 /* hidden */) continue;
    const normal = objects.get(asDict(objects.get(widget['/AP']))?.['/N']);
    const apRef = asDict(objects.get(widget['/AP']))?.['/N'];
    const form = asDict(normal);
    const rect = (asArray(objects.get(widget['/Rect'])) ?? []).map((n) => asNumber(objects.get(n)) ?? 0);
    if (!isRef(apRef) || !form || rect.length !== 4) continue;
    const bbox = (asArray(objects.get(form['/BBox'])) ?? []).map((n) => asNumber(objects.get(n)) ?? 0);
    const [x1, y1, x2, y2] = [Math.min(rect[0]!, rect[2]!), Math.min(rect[1]!, rect[3]!), Math.max(rect[0]!, rect[2]!), Math.max(rect[1]!, rect[3]!)];
    const [bx1, by1, bx2, by2] = bbox.length === 4 ? (bbox as [number, number, number, number]) : [0, 0, x2 - x1, y2 - y1];
    if (x2 - x1 <= 0 || y2 - y1 <= 0 || bx2 - bx1 <= 0 || by2 - by1 <= 0) continue;
    const sx = (x2 - x1) / (bx2 - bx1);
    const sy = (y2 - y1) / (by2 - by1);
    const name = `/QuireSig${draws.length + 1}`;
    xobjects[name] = apRef;
    draws.push(`q ${pdfNumber(sx)} 0 0 ${pdfNumber(sy)} ${pdfNumber(x1 - bx1 * sx)} ${pdfNumber(y1 - by1 * sy)} cm ${name} Do Q`);
  }
  if (draws.length === 0) return page;
  const stream = (text: string): string => {
    const ref = `${allocate()} 0 R`;
    updates[`obj:${ref}`] = { stream: { dict: {}, data: Buffer.from(text, 'latin1').toString('base64') } };
    return ref;
  };
  const contents = page['/Contents'];
  const existing = Array.isArray(contents) ? contents : contents === undefined || contents === null ? [] : [contents];
  const resources: QDict = { ...(objects.dict(page['/Resources']) ?? inheritedResources(page, objects) ?? {}) };
  resources['/XObject'] = { ...(objects.dict(resources['/XObject']) ?? {}), ...xobjects };
  return { ...page, '/Resources': resources, '/Contents': [stream('q\n'), ...existing, stream(`\nQ\n${draws.join('\n')}\n`)] };
}

function inheritedResources(page: QDict, objects: Objects): QDict | undefined {
  let node = objects.dict(page['/Parent']);
  for (let depth = 0; node && depth < 32; depth++) {
    const resources = objects.dict(node['/Resources']);
    if (resources) return resources;
    node = objects.dict(node['/Parent']);
  }
  return undefined;
}
