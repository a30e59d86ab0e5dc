/**
 * Graphics objects (ISO 32000-1 8.4.5 ExtGState, 8.10 form XObjects, 8.9.5 images and 8.9.7 inline
 * images, 11.6.6 transparency groups, 10.5 halftones, 8.6.5.5 ICCBased colour spaces): PDExtGState,
 * PDHalftone, PDXObject/PDXImage/PDMaskImage/PDXForm, PDGroup, ICCInputProfile.
 *
 * Graphics states, XObjects, inline images and groups are those the content uses (content.ts).
 * ICC profiles of ICCBased colour spaces are found anywhere in the file (every in-use object and every
 * value inside it), used or not: stricter than a reader of the page content, never more lenient.
 */
import { type CosDict, type CosDocument, type CosStream, type CosValue, filterChain } from '../../cos/index.js';
import { type LocatedObject, modelObject } from '../cos/object.js';
import { cosKey } from './colour.js';
import type { ContentUses } from './content.js';
import { iccComponents, iccHeader } from './icc.js';
import { jpeg2000Facts } from './jpeg2000.js';
import { dictIn, entry, intOf, nameOf, numberOf, present } from './values.js';

const T = {
  extGState: ['PDExtGState'],
  halftone: ['PDHalftone'],
  image: ['PDXImage', 'PDXObject'],
  maskImage: ['PDMaskImage', 'PDXImage', 'PDXObject'],
  inlineImage: ['PDInlineImage', 'PDXImage', 'PDXObject'],
  inlineMask: ['PDInlineImage', 'PDMaskImage', 'PDXImage', 'PDXObject'],
  form: ['PDXForm', 'PDXObject'],
  postScript: ['PDXObject'],
  group: ['PDGroup'],
  inputProfile: ['ICCInputProfile', 'ICCProfile'],
  jpeg2000: ['JPEG2000'],
  embeddedFile: ['EmbeddedFile'],
} as const;

export interface ColourArrays {
  /** The profile streams of ICCBased colour spaces. */
  readonly iccBased: Map<CosStream, string>;
  /** Per colourant name, the distinct alternate space + tint transform pairs of the file's Separation arrays. */
  readonly separations: Map<string, Set<string>>;
  /** Embedded file streams: the values of every /EF dictionary of a file specification. */
  readonly embeddedFiles: Map<CosStream, string>;
}

/** ICCBased and Separation colour spaces and embedded files anywhere in the file (every in-use object and every value inside it), used or not. */
export function findColourArrays(doc: CosDocument): ColourArrays {
  const found: ColourArrays = { iccBased: new Map(), separations: new Map(), embeddedFiles: new Map() };
  for (const indirect of doc.indirectObjects()) {
    const stack: Array<[CosValue, string]> = [[indirect.value, `${indirect.num} ${indirect.gen} obj`]];
    while (stack.length > 0) {
      const [v, path] = stack.pop()!;
      const d = v.kind === 'stream' ? v.dict : v.kind === 'dict' ? v : undefined;
      if (d !== undefined) {
        const ef = v.kind === 'dict' ? dictIn(doc, d.entries.get('EF')) : undefined;
        for (const [k, item] of ef?.entries ?? []) {
          const s = doc.resolve(item);
          if (s?.kind === 'stream' && !found.embeddedFiles.has(s)) found.embeddedFiles.set(s, refPath(item, `${path}/EF/${k}`));
        }
        for (const [k, item] of d.entries) stack.push([item, `${path}/${k}`]);
      } else if (v.kind === 'array') {
        const first = v.items[0];
        if (first?.kind === 'name' && first.value === 'ICCBased') {
          const s = doc.resolve(v.items[1]);
          if (s?.kind === 'stream' && !found.iccBased.has(s)) found.iccBased.set(s, refPath(v.items[1], `${path}[1]`));
        } else if (first?.kind === 'name' && first.value === 'Separation') {
          const name = v.items[1];
          if (name?.kind === 'name') {
            let pairs = found.separations.get(name.value);
            if (pairs === undefined) {
              pairs = new Set();
              found.separations.set(name.value, pairs);
            }
            if (pairs.size < 16) pairs.add(`${cosKey(doc, v.items[2])} ${cosKey(doc, v.items[3])}`);
          }
        }
        v.items.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
      }
    }
  }
  return found;
}

export function* graphicsObjects(doc: CosDocument, uses: ContentUses, iccBased: ReadonlyMap<CosStream, string>): Generator<LocatedObject> {
  for (const [d, path] of uses.extGStates) {
    yield extGState(doc, d, path);
    yield* halftones(doc, d.entries.get('HT'), `${path}/HT`);
  }
  for (const [s, path] of uses.xobjects) {
    yield xobject(doc, s, path);
    if (nameOf(doc, s.dict, 'Subtype') === 'Image') {
      const jpx = jpeg2000(doc, s, path);
      if (jpx !== undefined) yield jpx;
    }
  }
  for (const { dict, path } of uses.inlineImages) yield inlineImage(doc, dict, path);
  for (const [d, path] of uses.groups) yield modelObject(T.group, path, { S: nameOf(doc, d, 'S') });
  for (const [s, path] of iccBased) {
    const header = iccHeader(doc, s);
    const facts = header === undefined ? {} : { colorSpace: header.colorSpace, deviceClass: header.deviceClass, version: header.version };
    yield modelObject(T.inputProfile, path, { N: iccComponents(doc, s), ...facts });
  }
}

/** A JPXDecode image: the JP2 facts of its data (JPXDecode must be its only filter to read them; otherwise they are unknown, absent). */
function jpeg2000(doc: CosDocument, s: CosStream, path: string): LocatedObject | undefined {
  const chain = filterChain(s.dict, (v) => doc.resolve(v));
  if (!chain.some((f) => f.name === 'JPXDecode')) return undefined;
  const facts = chain.length === 1 ? jpeg2000Facts(doc.rawStreamData(s)) : undefined;
  // Data that is not JPEG2000 at all has no channels, no colour specification and no depth: it fails.
  const known =
    chain.length === 1 ? (facts ?? { nrColorChannels: null, nrColorSpaceSpecs: 0, nrColorSpacesWithApproxField: 0, colrMethod: null, colrEnumCS: null, bitDepth: null, bpccBoxPresent: false }) : {};
  return modelObject(T.jpeg2000, `${path} (JPEG2000)`, { hasColorSpace: present(doc, s.dict, 'ColorSpace'), ...known });
}

function extGState(doc: CosDocument, d: CosDict, path: string): LocatedObject {
  const bm = entry(doc, d, 'BM');
  // A /BM array names blend modes in order of preference (ISO 32000-1 Table 58): the first is what a PDF 1.4+ reader uses.
  const bmFirst = bm?.kind === 'array' ? doc.resolve(bm.items[0]) : bm;
  return modelObject(T.extGState, path, {
    containsTR: present(doc, d, 'TR'),
    containsTR2: present(doc, d, 'TR2'),
    TR2NameValue: nameOf(doc, d, 'TR2'),
    containsSMask: present(doc, d, 'SMask'),
    SMaskNameValue: nameOf(doc, d, 'SMask'),
    containsBM: present(doc, d, 'BM'),
    BMNameValue: bmFirst?.kind === 'name' ? bmFirst.value : null,
    CA: numberOf(doc, d, 'CA'),
    ca: numberOf(doc, d, 'ca'),
    containsHTP: present(doc, d, 'HTP'),
  });
}

/** A halftone (dictionary or stream) and, for type 5, each component halftone with its colourant name (ISO 32000-1 10.5.5.6). */
function* halftones(doc: CosDocument, v: CosValue | undefined, path: string): Generator<LocatedObject> {
  const d = dictIn(doc, v);
  if (d === undefined) return; // /Default (a name) or absent: no halftone dictionary
  yield halftone(doc, d, path, null);
  if (intOf(doc, d, 'HalftoneType') !== 5) return;
  for (const [k, item] of d.entries) {
    if (k === 'Type' || k === 'HalftoneType' || k === 'HalftoneName') continue;
    const c = dictIn(doc, item);
    if (c !== undefined) yield halftone(doc, c, `${path}/${k}`, k);
  }
}

function halftone(doc: CosDocument, d: CosDict, path: string, colorantName: string | null): LocatedObject {
  const tf = entry(doc, d, 'TransferFunction');
  const name = entry(doc, d, 'HalftoneName');
  return modelObject(T.halftone, path, {
    HalftoneType: intOf(doc, d, 'HalftoneType'),
    HalftoneName: name === undefined || name.kind === 'null' ? null : name.kind === 'string' ? name.bytes.toString('latin1') : name.kind,
    TransferFunction: tf === undefined || tf.kind === 'null' ? null : tf.kind === 'name' ? tf.value : tf.kind,
    colorantName,
  });
}

function xobject(doc: CosDocument, s: CosStream, path: string): LocatedObject {
  const d = s.dict;
  const subtype = nameOf(doc, d, 'Subtype');
  const base = { Subtype: subtype, containsOPI: present(doc, d, 'OPI'), containsSMask: present(doc, d, 'SMask') };
  if (subtype === 'Image') {
    const isMask = boolOrFalse(doc, d, 'ImageMask');
    return modelObject(isMask ? T.maskImage : T.image, path, { ...base, ...imageProps(doc, d, isMask, ['BitsPerComponent'], ['Interpolate']), containsAlternates: present(doc, d, 'Alternates') });
  }
  if (subtype === 'PS') return modelObject(T.postScript, path, base);
  // Forms, and appearance streams without /Subtype (read as forms).
  return modelObject(T.form, path, { ...base, Subtype2: nameOf(doc, d, 'Subtype2'), containsPS: present(doc, d, 'PS'), containsRef: present(doc, d, 'Ref') });
}

function inlineImage(doc: CosDocument, d: CosDict, path: string): LocatedObject {
  const isMask = boolOrFalse(doc, d, 'IM') || boolOrFalse(doc, d, 'ImageMask');
  return modelObject(isMask ? T.inlineMask : T.inlineImage, path, {
    Subtype: null,
    containsOPI: present(doc, d, 'OPI'),
    containsSMask: present(doc, d, 'SMask'),
    containsAlternates: present(doc, d, 'Alternates'),
    ...imageProps(doc, d, isMask, ['BPC', 'BitsPerComponent'], ['I', 'Interpolate']),
  });
}

function imageProps(doc: CosDocument, d: CosDict, isMask: boolean, bpcKeys: string[], interpolateKeys: string[]): { BitsPerComponent: number | null; Interpolate: boolean | null; isMask: boolean } {
  const key = (keys: string[]): string => keys.find((k) => d.entries.has(k)) ?? keys[0]!;
  const interpolate = entry(doc, d, key(interpolateKeys));
  return {
    BitsPerComponent: intOf(doc, d, key(bpcKeys)),
    // Absent is false (the default); a value that is not a boolean is neither, and fails "Interpolate == false".
    Interpolate: interpolate === undefined || interpolate.kind === 'null' ? false : interpolate.kind === 'bool' ? interpolate.value : null,
    isMask,
  };
}

function boolOrFalse(doc: CosDocument, d: CosDict, key: string): boolean {
  const v = entry(doc, d, key);
  return v?.kind === 'bool' && v.value;
}

function refPath(v: CosValue | undefined, fallback: string): string {
  return v?.kind === 'ref' ? `${v.num} ${v.gen} obj` : fallback;
}

/**
 * EmbeddedFile (ISO 19005-3 6.8, -2 6.8): the MIME type (/Subtype of the embedded file stream) and
 * whether the file is PDF/A-1 or -2. That needs the embedded file validated in turn, which this model
 * does not do: a file that is no PDF at all (no `%PDF-` in its first 1024 bytes) is not, and for a PDF
 * the answer is unknown (absent: the rule is not-checked). An undecodable stream: unknown too.
 */
export function* embeddedFileObjects(doc: CosDocument, files: ReadonlyMap<CosStream, string>): Generator<LocatedObject> {
  for (const [s, path] of files) {
    const decoded = doc.decodeStream(s);
    const isPdf = decoded.ok ? decoded.data.subarray(0, 1024).includes('%PDF-') : undefined;
    yield modelObject(T.embeddedFile, path, { Subtype: nameOf(doc, s.dict, 'Subtype'), ...(isPdf === false ? { isValidPDFA12: false } : {}) });
  }
}
