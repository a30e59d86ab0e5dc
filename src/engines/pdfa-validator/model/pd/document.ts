/**
 * The document-level PD objects (ISO 32000-1 7.7.2 catalog, 12.7 interactive forms, 14.11.5 output
 * intents, 8.11.4 optional content configurations, 12.8.4 permissions): PDDocument, PDAcroForm,
 * PDFormField, OutputIntents, PDOutputIntent, ICCOutputProfile, PDOCConfig, PDPerms.
 */
import type { CosDict, CosDocument, CosValue } from '../../cos/index.js';
import { textString } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import { iccComponents, iccHeader } from './icc.js';
import { pathOf } from './pages.js';
import { boolOf, dictIn, entry, inheritedFieldType, keyList, nameOf, present, streamOf } from './values.js';

const T = {
  document: ['PDDocument'],
  acroForm: ['PDAcroForm'],
  formField: ['PDFormField'],
  outputIntents: ['OutputIntents'],
  outputIntent: ['PDOutputIntent'],
  // ICCOutputProfile is an ICCProfile (the N/colour-space agreement of PDF/A-1 6.2.3.2-2 applies to it too).
  outputProfile: ['ICCOutputProfile', 'ICCProfile'],
  ocConfig: ['PDOCConfig'],
  perms: ['PDPerms'],
  sigRef: ['PDSigRef'],
} as const;

/** Form-field tree nodes visited at most (a cycle is cut by the visited set anyway). */
const MAX_FIELDS = 100_000;
const MAX_FIELD_DEPTH = 64;

export interface FormFields {
  readonly fields: Array<{ dict: CosDict; path: string }>;
  readonly complete: boolean;
}

/** Every node of the AcroForm field tree (ISO 32000-1 12.7.3.1: /Fields, then /Kids), once each. */
export function formFields(doc: CosDocument): FormFields {
  const acroForm = dictIn(doc, doc.catalog?.entries.get('AcroForm'));
  const out: Array<{ dict: CosDict; path: string }> = [];
  const seen = new Set<CosDict>();
  let complete = true;
  const top = doc.resolve(acroForm?.entries.get('Fields'));
  const stack: Array<{ v: CosValue; path: string; depth: number }> = [];
  if (top?.kind === 'array') for (let i = top.items.length - 1; i >= 0; i--) stack.push({ v: top.items[i]!, path: pathOf(top.items[i], `AcroForm/Fields[${i}]`), depth: 0 });
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    const d = dictIn(doc, v);
    if (d === undefined || seen.has(d)) continue;
    if (seen.size >= MAX_FIELDS || depth > MAX_FIELD_DEPTH) {
      complete = false;
      break;
    }
    seen.add(d);
    out.push({ dict: d, path });
    const kids = doc.resolve(d.entries.get('Kids'));
    if (kids?.kind === 'array') for (let i = kids.items.length - 1; i >= 0; i--) stack.push({ v: kids.items[i]!, path: pathOf(kids.items[i], `${path}/Kids[${i}]`), depth: depth + 1 });
  }
  return { fields: out, complete };
}

/** Output intents first: the profile variable gOutputCS is computed over ICCOutputProfile, and rules of later objects read it. */
export function* outputIntentObjects(doc: CosDocument): Generator<LocatedObject> {
  const raw = doc.catalog?.entries.get('OutputIntents');
  const intents = doc.resolve(raw);
  if (intents?.kind !== 'array') return;
  const base = pathOf(raw, 'OutputIntents');
  // 6.2.2-2 / 6.2.3-2: all DestOutputProfile entries are the same indirect object.
  const profiles = new Set<string>();
  for (const item of intents.items) {
    const d = dictIn(doc, item);
    const p = d?.entries.get('DestOutputProfile');
    if (p === undefined || p.kind === 'null') continue;
    profiles.add(p.kind === 'ref' ? `${p.num} ${p.gen}` : `direct ${profiles.size}`);
  }
  yield modelObject(T.outputIntents, base, { sameOutputProfileIndirect: profiles.size <= 1 });
  for (const [i, item] of intents.items.entries()) {
    const d = dictIn(doc, item);
    if (d === undefined) continue;
    const path = pathOf(item, `${base}[${i}]`);
    const S = nameOf(doc, d, 'S');
    yield modelObject(T.outputIntent, path, { S, containsDestOutputProfileRef: present(doc, d, 'DestOutputProfileRef') });
    const profileRef = d.entries.get('DestOutputProfile');
    const stream = streamOf(doc, profileRef);
    if (stream === undefined) continue;
    const header = iccHeader(doc, stream);
    // A profile this reader cannot decode (filter, budget): its facts are unknown, so they stay not-checked; corrupt data gives nulls.
    const facts = header === undefined ? {} : { colorSpace: header.colorSpace, deviceClass: header.deviceClass, version: header.version };
    yield modelObject(T.outputProfile, pathOf(profileRef, `${path}/DestOutputProfile`), { S, N: iccComponents(doc, stream), ...facts });
  }
}

export function* documentObjects(doc: CosDocument, fields: FormFields): Generator<LocatedObject> {
  const catalog = doc.catalog ?? undefined;
  const names = dictIn(doc, catalog?.entries.get('Names'));
  yield modelObject(T.document, 'document (catalog)', {
    containsXRefStream: doc.xrefSections.some((s) => s.kind === 'stream'),
    containsAA: present(doc, catalog, 'AA'),
    containsMetadata: streamOf(doc, catalog?.entries.get('Metadata')) !== undefined,
    containsAlternatePresentations: present(doc, names, 'AlternatePresentations'),
    containsStructTreeRoot: dictIn(doc, catalog?.entries.get('StructTreeRoot')) !== undefined,
  });
  const acroFormRef = catalog?.entries.get('AcroForm');
  const acroForm = dictIn(doc, acroFormRef);
  if (acroForm !== undefined) {
    yield modelObject(T.acroForm, pathOf(acroFormRef, 'AcroForm'), { NeedAppearances: boolOf(doc, acroForm, 'NeedAppearances'), containsXFA: present(doc, acroForm, 'XFA') });
  }
  for (const f of fields.fields) yield modelObject(T.formField, f.path, { containsAA: present(doc, f.dict, 'AA') });

  const permsRef = catalog?.entries.get('Perms');
  const perms = dictIn(doc, permsRef);
  if (perms !== undefined) yield modelObject(T.perms, pathOf(permsRef, 'Perms'), { entries: keyList(perms) });
  yield* signatureReferenceObjects(doc, perms, fields);

  yield* ocConfigObjects(doc);
}

/** Optional content configurations (ISO 32000-1 8.11.4.3): the default /D and each of /Configs. */
function* ocConfigObjects(doc: CosDocument): Generator<LocatedObject> {
  const ocRef = doc.catalog?.entries.get('OCProperties');
  const oc = dictIn(doc, ocRef);
  if (oc === undefined) return;
  const base = pathOf(ocRef, 'OCProperties');
  const configs: Array<{ dict: CosDict; path: string }> = [];
  const d = oc.entries.get('D');
  const dDict = dictIn(doc, d);
  if (dDict !== undefined) configs.push({ dict: dDict, path: pathOf(d, `${base}/D`) });
  const list = doc.resolve(oc.entries.get('Configs'));
  if (list?.kind === 'array') {
    for (const [i, item] of list.items.entries()) {
      const c = dictIn(doc, item);
      if (c !== undefined) configs.push({ dict: c, path: pathOf(item, `${base}/Configs[${i}]`) });
    }
  }
  const ocgs = new Set<CosDict>();
  const ocgList = doc.resolve(oc.entries.get('OCGs'));
  if (ocgList?.kind === 'array')
    for (const item of ocgList.items) {
      const g = dictIn(doc, item);
      if (g !== undefined) ocgs.add(g);
    }
  const nameOfConfig = (c: CosDict): string | null => {
    const v = entry(doc, c, 'Name');
    return v?.kind === 'string' ? textString(v.bytes) : null;
  };
  const nameCounts = new Map<string, number>();
  for (const c of configs) {
    const n = nameOfConfig(c.dict);
    if (n !== null) nameCounts.set(n, (nameCounts.get(n) ?? 0) + 1);
  }
  for (const c of configs) {
    const name = nameOfConfig(c.dict);
    const as = entry(doc, c.dict, 'AS');
    yield modelObject(T.ocConfig, c.path, {
      Name: name,
      hasDuplicateName: name !== null && (nameCounts.get(name) ?? 0) > 1,
      OCGsNotContainedInOrder: missingFromOrder(doc, c.dict, ocgs),
      AS: as === undefined || as.kind === 'null' ? null : as.kind,
    });
  }
}

/** Null when the configuration has no /Order or its /Order (nested arrays, ISO 32000-1 Table 101) names every OCG; else the missing groups' names. */
function missingFromOrder(doc: CosDocument, config: CosDict, ocgs: ReadonlySet<CosDict>): string | null {
  const order = doc.resolve(config.entries.get('Order'));
  if (order === undefined || order.kind === 'null') return null;
  const inOrder = new Set<CosDict>();
  const stack: Array<{ v: CosValue; depth: number }> = [{ v: order, depth: 0 }];
  const seenArrays = new Set<CosValue>();
  let visited = 0;
  while (stack.length > 0 && visited++ < 1_000_000) {
    const { v, depth } = stack.pop()!;
    const r = doc.resolve(v);
    if (r?.kind === 'array') {
      if (seenArrays.has(r) || depth > 64) continue;
      seenArrays.add(r);
      for (const item of r.items) stack.push({ v: item, depth: depth + 1 });
    } else if (r?.kind === 'dict') inOrder.add(r);
  }
  const missing = [...ocgs].filter((g) => !inOrder.has(g));
  if (missing.length === 0) return null;
  return missing
    .map((g) => {
      const n = entry(doc, g, 'Name');
      return n?.kind === 'string' ? textString(n.bytes) : '(unnamed)';
    })
    .join(', ');
}

/**
 * Signature reference dictionaries (ISO 32000-1 12.8.1, Table 253): the /Reference items of every
 * signature dictionary — the values of the catalog's /Perms (DocMDP, UR3) and the /V of signature
 * fields (field type /Sig, inheritable). Each once.
 */
function* signatureReferenceObjects(doc: CosDocument, perms: CosDict | undefined, fields: FormFields): Generator<LocatedObject> {
  const signatures: Array<{ dict: CosDict; path: string }> = [];
  for (const [k, v] of perms?.entries ?? []) {
    const d = dictIn(doc, v);
    if (d !== undefined) signatures.push({ dict: d, path: pathOf(v, `Perms/${k}`) });
  }
  for (const f of fields.fields) {
    if (inheritedFieldType(doc, f.dict) !== 'Sig') continue;
    const v = f.dict.entries.get('V');
    const d = dictIn(doc, v);
    if (d !== undefined) signatures.push({ dict: d, path: pathOf(v, `${f.path}/V`) });
  }
  const permsContainDocMDP = perms !== undefined && present(doc, perms, 'DocMDP');
  const seen = new Set<CosDict>();
  for (const sig of signatures) {
    const refs = doc.resolve(sig.dict.entries.get('Reference'));
    if (refs?.kind !== 'array') continue;
    for (const [i, item] of refs.items.entries()) {
      const d = dictIn(doc, item);
      if (d === undefined || seen.has(d)) continue;
      seen.add(d);
      yield modelObject(T.sigRef, pathOf(item, `${sig.path}/Reference[${i}]`), { entries: keyList(d), permsContainDocMDP });
    }
  }
}
