/**
 * Colour spaces as the content uses them (ISO 32000-1 8.6): PDDeviceGray, PDDeviceRGB, PDDeviceCMYK,
 * PDICCBasedCMYK, PDSeparation, PDDeviceN. A colour space is used where something is painted with it
 * (content.ts decides where); what it expands to:
 * - a device space is replaced by the Default colour space of the resources in force, when there is one
 *   (8.6.5.6; the corpus' 1b 6-2-3-3-t03 files show PDF/A-1 honours it too), else it is itself;
 * - a name other than a device space is looked up in the resources' /ColorSpace;
 * - Indexed → its base, Pattern → its underlying space, Separation and DeviceN → themselves and their
 *   alternate space (ISO 19005-2 6.2.4.4: the alternate must comply too), ICCBased with 4 components →
 *   PDICCBasedCMYK with the overprint state of the use.
 * Expansion is bounded in depth (a colour space naming itself ends).
 */
import { createHash } from 'node:crypto';
import type { CosArray, CosDict, CosDocument, CosValue } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import { dictIn, intOf } from './values.js';

const T = {
  gray: ['PDDeviceGray', 'PDColorSpace'],
  rgb: ['PDDeviceRGB', 'PDColorSpace'],
  cmyk: ['PDDeviceCMYK', 'PDColorSpace'],
  iccCmyk: ['PDICCBasedCMYK', 'PDICCBased', 'PDColorSpace'],
  separation: ['PDSeparation', 'PDColorSpace'],
  deviceN: ['PDDeviceN', 'PDColorSpace'],
} as const;

/** Device family names, with the inline-image abbreviations (ISO 32000-1 Table 94). */
const DEVICE: Record<string, { default: string; types: readonly string[] }> = {
  DeviceGray: { default: 'DefaultGray', types: T.gray },
  G: { default: 'DefaultGray', types: T.gray },
  DeviceRGB: { default: 'DefaultRGB', types: T.rgb },
  RGB: { default: 'DefaultRGB', types: T.rgb },
  DeviceCMYK: { default: 'DefaultCMYK', types: T.cmyk },
  CMYK: { default: 'DefaultCMYK', types: T.cmyk },
};

/** Process colourants: not spot colours, so they need no /Colorants entry (ISO 19005-2 6.2.4.4). */
const PROCESS = new Set(['Cyan', 'Magenta', 'Yellow', 'Black', 'None']);

const MAX_DEPTH = 8;

export interface ColourUse {
  /** The overprint flag of the use (OP for stroking, op for non-stroking) and the overprint mode in force. */
  readonly overprint: boolean;
  readonly opm: number;
}

export interface SeparationFacts {
  /** Per colourant name: whether every Separation array of the file with that name has the same alternate space and tint transform. */
  readonly consistent: ReadonlyMap<string, boolean>;
}

export function* colourSpaceObjects(
  doc: CosDocument,
  cs: CosValue | undefined,
  resources: CosDict | undefined,
  use: ColourUse,
  separations: SeparationFacts,
  path: string,
  depth = 0,
  defaults = true,
): Generator<LocatedObject> {
  if (depth > MAX_DEPTH) return;
  const v = doc.resolve(cs);
  if (v?.kind === 'name') {
    const device = DEVICE[v.value];
    if (device !== undefined) {
      const replacement = defaults ? dictIn(doc, resources?.entries.get('ColorSpace'))?.entries.get(device.default) : undefined;
      if (replacement !== undefined && doc.resolve(replacement)?.kind !== 'null') {
        // The Default space is used instead; it cannot itself be replaced again.
        yield* colourSpaceObjects(doc, replacement, resources, use, separations, `${path} (${device.default})`, depth + 1, false);
        return;
      }
      yield modelObject(device.types, `${path} (${v.value})`, {});
      return;
    }
    if (v.value === 'Pattern') return;
    const named = dictIn(doc, resources?.entries.get('ColorSpace'))?.entries.get(v.value);
    if (named !== undefined) yield* colourSpaceObjects(doc, named, resources, use, separations, `${path} (/${v.value})`, depth + 1, defaults);
    return;
  }
  if (v?.kind !== 'array') return;
  const family = doc.resolve(v.items[0]);
  if (family?.kind !== 'name') return;
  switch (family.value) {
    case 'DeviceGray':
    case 'DeviceRGB':
    case 'DeviceCMYK':
      yield* colourSpaceObjects(doc, family, resources, use, separations, path, depth + 1, defaults);
      return;
    case 'ICCBased': {
      const stream = doc.resolve(v.items[1]);
      if (stream?.kind === 'stream' && intOf(doc, stream.dict, 'N') === 4) yield modelObject(T.iccCmyk, `${path} (ICCBased)`, { overprintFlag: use.overprint, OPM: use.opm });
      return;
    }
    case 'Indexed':
    case 'I':
      yield* colourSpaceObjects(doc, v.items[1], resources, use, separations, `${path} (Indexed base)`, depth + 1, defaults);
      return;
    case 'Pattern':
      if (v.items.length > 1) yield* colourSpaceObjects(doc, v.items[1], resources, use, separations, `${path} (Pattern underlying)`, depth + 1, defaults);
      return;
    case 'Separation': {
      const name = doc.resolve(v.items[1]);
      const colourant = name?.kind === 'name' ? name.value : null;
      yield modelObject(T.separation, `${path} (Separation)`, { areTintAndAlternateConsistent: colourant === null ? false : (separations.consistent.get(colourant) ?? true) });
      yield* colourSpaceObjects(doc, v.items[2], resources, use, separations, `${path} (Separation alternate)`, depth + 1, defaults);
      return;
    }
    case 'DeviceN': {
      const names = doc.resolve(v.items[1]);
      const list = names?.kind === 'array' ? names.items.map((n) => doc.resolve(n)).map((n) => (n?.kind === 'name' ? n.value : null)) : [];
      yield modelObject(T.deviceN, `${path} (DeviceN)`, { nrComponents: list.length, areColorantsPresent: colorantsPresent(doc, v, list) });
      yield* colourSpaceObjects(doc, v.items[2], resources, use, separations, `${path} (DeviceN alternate)`, depth + 1, defaults);
      // The Separation spaces of an NChannel /Colorants dictionary are part of the space used (ISO 19005-2 6.2.4.4 compares them too).
      const colorants = dictIn(doc, dictIn(doc, v.items[4])?.entries.get('Colorants'));
      for (const [k, c] of colorants?.entries ?? []) yield* colourSpaceObjects(doc, c, resources, use, separations, `${path} (Colorants/${k})`, depth + 1, defaults);
      return;
    }
    default:
      // CalGray, CalRGB, Lab: device independent, no rule.
      return;
  }
}

/** Every spot colourant of a DeviceN space (not a process colourant, not an NChannel /Process component) has a /Colorants entry. */
function colorantsPresent(doc: CosDocument, cs: CosArray, names: ReadonlyArray<string | null>): boolean {
  const attributes = dictIn(doc, cs.items[4]);
  const colorants = dictIn(doc, attributes?.entries.get('Colorants'));
  const process = new Set<string>();
  const components = doc.resolve(dictIn(doc, attributes?.entries.get('Process'))?.entries.get('Components'));
  if (components?.kind === 'array')
    for (const c of components.items) {
      const n = doc.resolve(c);
      if (n?.kind === 'name') process.add(n.value);
    }
  return names.every((n) => n !== null && (PROCESS.has(n) || process.has(n) || colorants?.entries.has(n) === true));
}

/**
 * A canonical text of a COS value, for "the PDF objects shall be compared" (ISO 19005-2 6.2.4.4): by
 * content, references followed (the corpus' 2b 6-2-4-4-t03-pass-a has two identical function streams
 * under different object numbers, and is compliant), a stream as its dictionary and a digest of its raw
 * bytes. Bounded: a value too large or deep to write compares by identity, so it is never wrongly equal.
 */
let unique = 0;

export function cosKey(doc: CosDocument, v: CosValue | undefined, budget = { left: 4096 }, depth = 0): string {
  if (--budget.left < 0 || depth > 16) return `#${unique++}`;
  const r = doc.resolve(v);
  if (r === undefined) return 'undefined';
  switch (r.kind) {
    case 'name':
      return `/${r.value}`;
    case 'int':
    case 'real':
    case 'bool':
      return String(r.value);
    case 'null':
    case 'ref':
      return 'null';
    case 'string':
      return `<${r.bytes.toString('hex')}>`;
    case 'array':
      return `[${r.items.map((i) => cosKey(doc, i, budget, depth + 1)).join(' ')}]`;
    case 'dict':
      return dictKey(doc, r, budget, depth);
    case 'stream':
      return `${dictKey(doc, r.dict, budget, depth)}stream:${createHash('sha256').update(doc.rawStreamData(r)).digest('hex')}`;
  }
}

function dictKey(doc: CosDocument, d: CosDict, budget: { left: number }, depth: number): string {
  return `<<${[...d.entries.keys()]
    .sort()
    .map((k) => `/${k} ${cosKey(doc, d.entries.get(k), budget, depth + 1)}`)
    .join(' ')}>>`;
}
