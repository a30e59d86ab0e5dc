/**
 * The COS model objects of a document, read from cos/ (its properties.ts computes every value; this only
 * decides which objects exist and gives them veraPDF's types). The walk covers:
 * - the document, its trailer, each cross-reference section;
 * - every in-use object of the xref data, reachable or not (ISO 19005 constrains the file, not the page
 *   tree), and every value inside it: keys are names too (the 127-byte limit is about all names);
 * - the trailers of xref tables (an xref stream's dictionary is an indirect object already);
 * - the operands of content streams (page /Contents, form XObjects, appearance streams, tiling patterns, Type 3 glyphs) and
 *   the dictionaries of their inline images: the limits of 6.1.12 / 6.1.13 apply to them as well.
 * Direct values are trees (the parser builds a fresh value per occurrence), so only content streams need
 * a visited set: one stream may be shared by many pages. Every step is bounded by the document's own
 * limits (parse depth, token and decode budgets) and by `maxObjects` here.
 */
import {
  type CosArray,
  type CosDict,
  type CosDocument,
  type CosStream,
  type CosValue,
  cosDocumentProperties,
  cosFileSpecificationProperties,
  cosBBoxProperties,
  cosFilterProperties,
  cosIndirectProperties,
  cosLangProperties,
  cosNameProperties,
  cosSizeProperties,
  cosStreamProperties,
  cosStringProperties,
  cosTrailerProperties,
  cosXRefProperties,
  filterChain,
  isValidUtf8,
} from '../../cos/index.js';
import { ContentCache } from '../content-cache.js';
import { type LocatedObject, modelObject, valueObject } from './object.js';

export interface CosWalkOptions {
  /** Model objects yielded at most; beyond it the walk stops and `state.truncated` says so. */
  readonly maxObjects: number;
  /** Content streams the PD walk read already (their tokens are taken from it); default: none. */
  readonly content?: ContentCache;
}

export interface CosWalkState {
  /** The walk stopped at `maxObjects`: the document was not seen completely. */
  truncated: boolean;
  yielded: number;
}

const T = {
  document: ['CosDocument'],
  trailer: ['CosTrailer'],
  xref: ['CosXRef'],
  indirect: ['CosIndirect'],
  stream: ['CosStream', 'CosDict'],
  dict: ['CosDict'],
  array: ['CosArray'],
  string: ['CosString'],
  name: ['CosName'],
  int: ['CosInteger'],
  real: ['CosReal'],
  filter: ['CosFilter'],
  iiFilter: ['CosIIFilter'],
  fileSpec: ['CosFileSpecification', 'CosDict'],
  unicodeName: ['CosUnicodeName'],
  bbox: ['CosBBox'],
  blendMode: ['CosBM'],
  intent: ['CosRenderingIntent'],
  lang: ['CosLang'],
} as const;

/** Page boundaries (ISO 32000-1 14.11.2), on pages and inherited from page tree nodes. */
const BOX_KEYS = new Set(['MediaBox', 'CropBox', 'BleedBox', 'TrimBox', 'ArtBox']);

/** Keys whose name value is text (font names) and so a CosUnicodeName (ISO 19005-2 6.1.8). */
const TEXT_NAME_KEYS = new Set(['BaseFont', 'FontName']);

/** What the walk learns about the whole document while it goes (read by properties evaluated at the end: deferred rules). */
interface WalkContext {
  /** File specifications named by an /AF array anywhere (ISO 19005-3 6.8: associated files). */
  readonly associated: Set<CosDict>;
}

export function* cosObjects(doc: CosDocument, options: CosWalkOptions, state: CosWalkState): Generator<LocatedObject> {
  const ctx: WalkContext = { associated: new Set() };
  const content = new Set<CosStream>();
  const contentOf = new Map<CosStream, string>();
  const queueContent = (v: CosValue | undefined, path: string): void => {
    const s = doc.resolve(v);
    if (s?.kind === 'stream' && !content.has(s)) {
      content.add(s);
      contentOf.set(s, path);
    }
  };
  const contentCache = options.content ?? new ContentCache(doc, 0);
  const max = options.maxObjects;
  const emit = function* (o: LocatedObject): Generator<LocatedObject, boolean> {
    if (state.yielded >= max) {
      state.truncated = true;
      return false;
    }
    state.yielded++;
    yield o;
    return true;
  };
  // The objects of one value, yielded from here: a value tree makes most of the objects, and a generator per object
  // (emit) would cost more than building the object.
  const batch: LocatedObject[] = [];

  if (!(yield* emit(modelObject(T.document, 'document', cosDocumentProperties(doc))))) return;
  if (!(yield* emit(modelObject(T.trailer, 'trailer', cosTrailerProperties(doc))))) return;
  for (const [i, section] of doc.xrefSections.entries()) {
    if (!(yield* emit(modelObject(T.xref, `xref[${i}] at ${section.offset}`, cosXRefProperties(section))))) return;
  }

  // A value and everything inside it, depth first, without recursion (the parser bounded the depth).
  const walkValue = function* (root: CosValue, rootPath: string): Generator<LocatedObject, boolean> {
    const stack: Array<[CosValue, string, string | undefined]> = [[root, rootPath, undefined]];
    while (stack.length > 0) {
      const [v, path, key] = stack.pop() as [CosValue, string, string | undefined];
      valueObjects(doc, ctx, v, path, key, batch);
      for (let i = 0; i < batch.length; i++) {
        if (state.yielded >= max) {
          state.truncated = true;
          return false;
        }
        state.yielded++;
        yield batch[i] as LocatedObject;
      }
      batch.length = 0;
      const dict = v.kind === 'stream' ? v.dict : v.kind === 'dict' ? v : null;
      if (dict !== null) {
        const start = stack.length;
        for (const [k, item] of dict.entries) stack.push([item, `${path}/${k}`, k]);
        reverseFrom(stack, start);
      } else if (v.kind === 'array') {
        for (let i = v.items.length - 1; i >= 0; i--) stack.push([v.items[i] as CosValue, `${path}[${i}]`, undefined]);
      }
    }
    return true;
  };

  for (const section of doc.xrefSections) {
    if (section.kind !== 'table' || section.trailer === null) continue;
    if (!(yield* walkValue(section.trailer, `trailer at ${section.offset}`))) return;
  }

  for (const indirect of doc.indirectObjects()) {
    const path = `${indirect.num} ${indirect.gen} obj`;
    if (!(yield* emit(modelObject(T.indirect, path, cosIndirectProperties(indirect))))) return;
    const v = indirect.value;
    if (!(yield* walkValue(v, path))) return;
    // Content streams, found from what refers to them (a content stream carries no type of its own).
    const d = v.kind === 'stream' ? v.dict : v.kind === 'dict' ? v : null;
    if (d === null) continue;
    const name = (key: string): string | undefined => {
      const n = doc.resolve(d.entries.get(key));
      return n?.kind === 'name' ? n.value : undefined;
    };
    if (v.kind === 'stream' && (name('Subtype') === 'Form' || doc.resolve(d.entries.get('PatternType'))?.kind === 'int')) queueContent(v, path);
    if (name('Type') === 'Page') {
      const c = doc.resolve(d.entries.get('Contents'));
      if (c?.kind === 'array') c.items.forEach((item, i) => queueContent(item, `${path}/Contents[${i}]`));
      else queueContent(c, `${path}/Contents`);
    }
    // Appearance streams are forms even when a writer left out their /Subtype.
    const ap = doc.resolve(d.entries.get('AP'));
    if (ap?.kind === 'dict') {
      for (const [k, item] of ap.entries) {
        const a = doc.resolve(item);
        if (a?.kind === 'stream') queueContent(a, `${path}/AP/${k}`);
        else if (a?.kind === 'dict') for (const [state, s] of a.entries) queueContent(s, `${path}/AP/${k}/${state}`);
      }
    }
    if (name('Subtype') === 'Type3') {
      const procs = doc.resolve(d.entries.get('CharProcs'));
      if (procs?.kind === 'dict') for (const [k, item] of procs.entries) queueContent(item, `${path}/CharProcs/${k}`);
    }
  }

  for (const stream of content) {
    const read = contentCache.take(stream);
    if (!read.ok) continue; // its filters are CosFilter objects already; undecodable content is the PD layer's concern
    const base = `${contentOf.get(stream) ?? 'stream'} (content)`;
    let i = 0;
    let lastOperand: CosValue | undefined;
    for (const token of read.tokens) {
      const at = `${base}[${i++}]`;
      if (token.kind === 'operand') {
        lastOperand = token.value;
        if (!(yield* walkValue(token.value, at))) return;
        continue;
      }
      if (token.kind === 'operator' && token.name === 'ri' && lastOperand?.kind === 'name') {
        if (!(yield* emit(modelObject(T.intent, at, { internalRepresentation: lastOperand.value })))) return;
      } else if (token.kind === 'inlineImage') {
        const intent = token.dict.entries.get('Intent');
        if (intent?.kind === 'name' && !(yield* emit(modelObject(T.intent, `${at} (inline image)/Intent`, { internalRepresentation: intent.value })))) return;
        // An inline image names its filters /F (the abbreviation, ISO 32000-1 Table 92) or /Filter.
        const filters = token.dict.entries.get('F') ?? token.dict.entries.get('Filter');
        for (const f of filters?.kind === 'array' ? filters.items : filters === undefined ? [] : [filters]) {
          const name = f.kind === 'name' ? f.value : '';
          if (!(yield* emit(modelObject(T.iiFilter, `${at} (inline image)`, { internalRepresentation: name })))) return;
        }
        for (const [k, item] of token.dict.entries) if (!(yield* walkValue(item, `${at} (inline image)/${k}`))) return;
      }
    }
  }
}

/** The objects of a value tree's nodes are pushed in reverse; popping then visits them in order. */
function reverseFrom<T>(stack: T[], start: number): void {
  for (let i = start, j = stack.length - 1; i < j; i++, j--) {
    const t = stack[i] as T;
    stack[i] = stack[j] as T;
    stack[j] = t;
  }
}

/** The model objects one value is, added to `out` (a stream is a CosStream with its filters; a dictionary's keys are CosNames). */
function valueObjects(doc: CosDocument, ctx: WalkContext, v: CosValue, path: string, key: string | undefined, out: LocatedObject[]): void {
  switch (v.kind) {
    case 'stream': {
      out.push(modelObject(T.stream, path, { ...cosStreamProperties(v), ...cosSizeProperties(v.dict) }));
      for (const step of filterChain(v.dict, (x) => doc.resolve(x))) out.push(modelObject(T.filter, `${path}/Filter`, cosFilterProperties(step)));
      keyNames(v.dict, path, out);
      contextObjects(doc, ctx, v.dict, path, out);
      return;
    }
    case 'dict': {
      out.push(isFileSpecification(v) ? fileSpecification(doc, ctx, v, path) : modelObject(T.dict, path, cosSizeProperties(v)));
      keyNames(v, path, out);
      const s = v.entries.get('S');
      if (isStructureElement(v) && s?.kind === 'name') out.push(unicodeName(s.value, `${path}/S`));
      const colorants = v.entries.get('Colorants');
      if (colorants?.kind === 'dict') for (const k of colorants.entries.keys()) out.push(unicodeName(k, `${path}/Colorants`));
      contextObjects(doc, ctx, v, path, out);
      return;
    }
    case 'array':
      out.push(modelObject(T.array, path, cosSizeProperties(v)));
      colourantNames(v, path, out);
      return;
    case 'string':
      out.push(modelObject(T.string, path, cosStringProperties(v)));
      return;
    case 'name':
      out.push(modelObject(T.name, path, cosNameProperties(v)));
      // A font name is a CosName (length) and a CosUnicodeName (UTF-8) at once.
      if (key !== undefined && TEXT_NAME_KEYS.has(key)) out.push(unicodeName(v.value, path));
      return;
    case 'int':
      out.push(valueObject(T.int, path, 'intValue', v.value));
      return;
    case 'real':
      out.push(valueObject(T.real, path, 'realValue', v.value));
      return;
    default:
      return;
  }
}

/**
 * Objects a dictionary's entries are by their key: a page's boundaries (CosBBox), blend modes (CosBM),
 * rendering intents of graphics states and images (CosRenderingIntent; an optional content group's
 * /Intent is something else), language tags (CosLang).
 */
function contextObjects(doc: CosDocument, ctx: WalkContext, d: CosDict, path: string, out: LocatedObject[]): void {
  const type = d.entries.get('Type');
  if (type?.kind === 'name' && type.value === 'Page') {
    // The page's own boundaries, MediaBox and CropBox inherited from the page tree when absent: a node's box a page overrides is not one of its boundaries.
    for (const key of BOX_KEYS) {
      const box = doc.resolve(key === 'MediaBox' || key === 'CropBox' ? inherited(doc, d, key) : d.entries.get(key));
      if (box?.kind === 'array') out.push(modelObject(T.bbox, `${path}/${key}`, cosBBoxProperties(doc, box)));
    }
  }
  for (const [key, raw] of d.entries) {
    if (key === 'BM') {
      const bm = doc.resolve(raw);
      const names = bm?.kind === 'array' ? bm.items.map((x) => doc.resolve(x)) : [bm];
      for (const n of names) if (n?.kind === 'name') out.push(modelObject(T.blendMode, `${path}/BM`, { internalRepresentation: n.value }));
    } else if (key === 'RI' || key === 'Intent') {
      // A graphics state names its rendering intent /RI (ISO 32000-1 Table 58), an image /Intent (Table 89). A name under /RI is
      // always one (an appearance characteristics' /RI is a stream, with or without /Type); an optional content group's /Intent is something else.
      const intent = doc.resolve(raw);
      const subtype = d.entries.get('Subtype');
      const isIntent = key === 'RI' || (subtype?.kind === 'name' && subtype.value === 'Image');
      if (isIntent && intent?.kind === 'name') out.push(modelObject(T.intent, `${path}/${key}`, { internalRepresentation: intent.value }));
    } else if (key === 'AF') {
      const af = doc.resolve(raw);
      for (const item of af?.kind === 'array' ? af.items : []) {
        const spec = doc.resolve(item);
        if (spec?.kind === 'dict') ctx.associated.add(spec);
      }
    } else if (key === 'Lang') {
      const lang = doc.resolve(raw);
      if (lang?.kind === 'string') out.push(modelObject(T.lang, `${path}/Lang`, cosLangProperties(lang)));
    }
  }
}

/** A page attribute from the page or its nearest ancestor that has it (ISO 32000-1 7.7.3.4), at most 64 levels up. */
function inherited(doc: CosDocument, page: CosDict, key: string): CosValue | undefined {
  let node: CosDict | undefined = page;
  for (let depth = 0; node !== undefined && depth < 64; depth++) {
    const v = node.entries.get(key);
    if (v !== undefined) return v;
    const parent = doc.resolve(node.entries.get('Parent'));
    node = parent?.kind === 'dict' ? parent : undefined;
  }
  return undefined;
}

function keyNames(dict: CosDict, path: string, out: LocatedObject[]): void {
  for (const k of dict.entries.keys()) out.push(valueObject(T.name, `${path} (key ${k.length > 40 ? `${k.slice(0, 40)}…` : k})`, 'internalRepresentation', k));
}

function unicodeName(value: string, path: string): LocatedObject {
  return modelObject(T.unicodeName, path, { internalRepresentation: value, isValidUtf8: isValidUtf8(value) });
}

/** `[/Separation /name …]` and `[/DeviceN [/n1 /n2] …]`: the colourant names are text (ISO 19005-2 6.1.8). */
function colourantNames(arr: CosArray, path: string, out: LocatedObject[]): void {
  const family = arr.items[0];
  if (family?.kind !== 'name') return;
  const second = arr.items[1];
  if (family.value === 'Separation' && second?.kind === 'name') out.push(unicodeName(second.value, `${path}[1]`));
  else if (family.value === 'DeviceN' && second?.kind === 'array') {
    second.items.forEach((n, i) => {
      if (n.kind === 'name') out.push(unicodeName(n.value, `${path}[1][${i}]`));
    });
  }
}

/**
 * A structure element: /Type /StructElem, or (the /Type is optional, ISO 32000-1 Table 323) a dictionary with the
 * required /S name and /P parent and no other /Type. No other dictionary has both: actions and transitions have /S
 * without /P, annotations /P without /S.
 */
function isStructureElement(d: CosDict): boolean {
  const type = d.entries.get('Type');
  if (type !== undefined) return type.kind === 'name' && type.value === 'StructElem';
  return d.entries.get('S')?.kind === 'name' && d.entries.has('P');
}

/**
 * A file specification dictionary: /Type /Filespec, or one that embeds a file (/EF). ISO 32000-1 Table 44 requires
 * /Type where /EF, /RF or /EP is present; a reference without them and without /Type (a launch action's /F) passes
 * 6.1.11-1 and 6.8-2 whatever it is. For 6.8-3/4 (PDF/A-3) such a dictionary is not found: see model/cos/README.md.
 */
function isFileSpecification(d: CosDict): boolean {
  const type = d.entries.get('Type');
  return (type?.kind === 'name' && type.value === 'Filespec') || d.entries.has('EF');
}

function fileSpecification(doc: CosDocument, ctx: WalkContext, d: CosDict, path: string): LocatedObject {
  // isAssociatedFile is read by a deferred rule (PDF/A-3 6.8-4), after the walk has seen every /AF array.
  const props = { ...cosFileSpecificationProperties(doc, d), ...cosSizeProperties(d) };
  Object.defineProperty(props, 'isAssociatedFile', { enumerable: true, get: () => ctx.associated.has(d) });
  return modelObject(T.fileSpec, path, props);
}
