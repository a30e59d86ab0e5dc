/**
 * Small readers of COS values for the PD layer: a dictionary entry resolved and read as the kind a
 * property wants, or null. Every lookup goes through `doc.resolve`, which is bounded (reference chains
 * of at most 32 hops, cycles read as null), so nothing here can loop on a hostile file.
 */
import type { CosDict, CosDocument, CosStream, CosValue } from '../../cos/index.js';
import { textString } from '../../cos/index.js';

export function dictIn(doc: CosDocument, v: CosValue | undefined): CosDict | undefined {
  const r = doc.resolve(v);
  return r?.kind === 'dict' ? r : r?.kind === 'stream' ? r.dict : undefined;
}

export function entry(doc: CosDocument, d: CosDict | undefined, key: string): CosValue | undefined {
  return doc.resolve(d?.entries.get(key));
}

/** The key is present with a value other than null (ISO 32000-1 7.3.7: a null value is the same as no entry). */
export function present(doc: CosDocument, d: CosDict | undefined, key: string): boolean {
  const v = entry(doc, d, key);
  return v !== undefined && v.kind !== 'null';
}

export function nameOf(doc: CosDocument, d: CosDict | undefined, key: string): string | null {
  const v = entry(doc, d, key);
  return v?.kind === 'name' ? v.value : null;
}

export function numberOf(doc: CosDocument, d: CosDict | undefined, key: string): number | null {
  const v = entry(doc, d, key);
  return v?.kind === 'int' || v?.kind === 'real' ? v.value : null;
}

export function intOf(doc: CosDocument, d: CosDict | undefined, key: string): number | null {
  const v = entry(doc, d, key);
  return v?.kind === 'int' ? v.value : null;
}

export function boolOf(doc: CosDocument, d: CosDict | undefined, key: string): boolean | null {
  const v = entry(doc, d, key);
  return v?.kind === 'bool' ? v.value : null;
}

export function textOf(doc: CosDocument, d: CosDict | undefined, key: string): string | null {
  const v = entry(doc, d, key);
  return v?.kind === 'string' ? textString(v.bytes) : null;
}

export function streamOf(doc: CosDocument, v: CosValue | undefined): CosStream | undefined {
  const r = doc.resolve(v);
  return r?.kind === 'stream' ? r : undefined;
}

/** The keys of a dictionary joined by `&`, as the profiles split them (`entries.split('&')`). */
export function keyList(d: CosDict): string {
  return [...d.entries.keys()].join('&');
}

/** Items of an array value (resolved), or the value itself as a one-item list; nothing for null/absent. */
export function itemsOf(doc: CosDocument, v: CosValue | undefined): CosValue[] {
  const r = doc.resolve(v);
  if (r === undefined || r.kind === 'null') return [];
  return r.kind === 'array' ? r.items : [r];
}

/** A field's or widget's type: its own /FT or the nearest ancestor field's (/FT is inheritable, ISO 32000-1 Table 220); bounded and cycle-safe. */
export function inheritedFieldType(doc: CosDocument, field: CosDict): string | null {
  let node: CosDict | undefined = field;
  const seen = new Set<CosDict>();
  for (let depth = 0; node !== undefined && depth < 64 && !seen.has(node); depth++) {
    seen.add(node);
    const ft = nameOf(doc, node, 'FT');
    if (ft !== null) return ft;
    node = dictIn(doc, node.entries.get('Parent'));
  }
  return null;
}
